#!/usr/bin/python
"""Ansible module: each ZooKeeper member's mode and zxid, and whether the quorum has a leader."""

DOCUMENTATION = r"""
module: zookeeper_ensemble_info
short_description: Read every ZooKeeper member's mode and zxid and whether the quorum has a leader
description:
  - Asks each member C(srvr) (one of the four-letter words the zookeeper role allows) and reports its
    mode (leader, follower, standalone or none when it is not serving), zxid and node count.
  - With I(wait_timeout), keeps checking until the quorum has one leader and every member serves,
    printing who is not serving yet; fails at the timeout. Read-only; runs in check mode.
extends_documentation_fragment: [kafkaops.toolkit.kafka_connection, kafkaops.toolkit.kafka_connection.wait]
options:
  members:
    description: Member name -> C(host:port) of its client port (TLS with I(zookeeper_tls)).
    type: dict
    required: true
  bootstrap_servers: {description: Not used; accepted so the kit's connection variables pass., type: str,
                      required: false}
  zookeeper_connect: {description: Not used; accepted so the kit's connection variables pass., type: str,
                      required: false}
  request_timeout: {description: Seconds to wait for each member's answer., type: int, default: 5}
  wait_timeout: {description: Seconds to wait (see the fragment)., type: int, default: 0}
author: Kafka ops toolkit
"""

EXAMPLES = r"""
- name: Read the ensemble
  zookeeper_ensemble_info:
    members: {zk1: "zk1:2181", zk2: "zk2:2181", zk3: "zk3:2181"}
  delegate_to: localhost
  register: ensemble
"""

RETURN = r"""
nodes: {description: Member name -> serving, mode, zxid and node_count., returned: always, type: dict}
leader: {description: The leader's name, or null without a single leader., returned: always, type: str}
has_leader: {description: Whether exactly one member leads., returned: always, type: bool}
serving: {description: Members that serve requests., returned: always, type: list}
restart_order: {description: Followers first, the leader last., returned: always, type: list}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import zookeeper_state
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    CONNECTION_ARGS,
    PermanentError,
    check_resolvable,
    wait_args,
)


def main():
    # The kit's connection options pass to every module alike; this one reads the ZooKeeper ones.
    connection = dict(CONNECTION_ARGS, bootstrap_servers=dict(type="str"), zookeeper_connect=dict(type="str"))
    module = AnsibleModule(argument_spec=dict(connection, members=dict(type="dict", required=True),
                                              request_timeout=dict(type="int", default=5), **wait_args(0)),
                           supports_check_mode=True)
    p = module.params
    tls = (zookeeper_state.tls_context(p["zookeeper_ssl_ca_location"], p["zookeeper_ssl_certificate_location"],
                                       p["zookeeper_ssl_key_location"]) if p["zookeeper_tls"] else None)
    answers = {}
    try:  # a member name that does not resolve is a wrong inventory: waiting cannot fix it
        check_resolvable("ZooKeeper members", ",".join(map(str, module.params["members"].values())))
    except PermanentError as exc:
        module.fail_json(msg=str(exc))
    for name, address in module.params["members"].items():
        host, _, port = str(address).rpartition(":")
        answers[name] = zookeeper_state.four_letter_word(host, int(port), timeout=p["request_timeout"], tls=tls)
    state = zookeeper_state.ensemble(answers)
    not_serving = sorted(set(answers) - set(state["serving"]))
    leader = f"leader {state['leader']}" if state["has_leader"] else "no leader"
    module.exit_json(changed=False, **state, restart_order=zookeeper_state.restart_order(state),
                     done=state["has_leader"] and state["all_serving"], remaining=len(not_serving),
                     progress=f"ensemble: {leader}; not serving: {', '.join(not_serving) or 'none'}",
                     timeout_msg=(f"the ensemble is not healthy ({leader}; not serving: "
                                  f"{', '.join(not_serving) or 'none'}): check those members' zookeeper "
                                  "service and log, and that a majority of the ensemble runs"))


if __name__ == "__main__":
    main()
