#!/usr/bin/python
"""Ansible module: each ZooKeeper member's mode and zxid, and whether the quorum has a leader."""

DOCUMENTATION = r"""
module: zookeeper_ensemble_info
short_description: Read every ZooKeeper member's mode and zxid and whether the quorum has a leader
version_added: 0.10.0
description:
  - Asks each member C(srvr) (one of the four-letter words the zookeeper role allows) and reports its
    mode (leader, follower or standalone; null when it is not serving), zxid and node count.
  - With I(wait_timeout), keeps checking until the quorum has one leader and every member serves,
    printing who is not serving yet; fails at the timeout.
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.kafka_connection.wait
  - kafkaops.toolkit.attributes
  - kafkaops.toolkit.attributes.read_only
options:
  members:
    description: Member name -> C(host:port) of its client port (TLS with I(zookeeper_tls)).
    type: dict
    required: true
  bootstrap_servers:
    description: Not used; accepted so the kit's connection variables pass.
    type: str
    required: false
  zookeeper_connect:
    description: Not used; accepted so the kit's connection variables pass.
    type: str
    required: false
  request_timeout:
    description: Seconds to wait for each member's answer.
    type: int
    default: 5
  wait_timeout:
    description: Seconds to wait (see above).
    type: int
    default: 0
seealso:
  - module: kafkaops.toolkit.kafka_cluster_info
    description: The Kafka side of the cluster.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Read the ensemble
  kafkaops.toolkit.zookeeper_ensemble_info:
    members: {zk1: "zk1:2181", zk2: "zk2:2181", zk3: "zk3:2181"}
  delegate_to: localhost
  register: ensemble

- name: Wait until the quorum has a leader and every member serves
  kafkaops.toolkit.zookeeper_ensemble_info:
    members: {zk1: "zk1:2182", zk2: "zk2:2182", zk3: "zk3:2182"}
    zookeeper_tls: true
    zookeeper_ssl_ca_location: /etc/kafka-kit/ca.pem
    zookeeper_ssl_certificate_location: /etc/kafka-kit/client.pem
    zookeeper_ssl_key_location: /etc/kafka-kit/client-key.pem
    wait_timeout: 120
  delegate_to: localhost
"""

RETURN = r"""
nodes:
  description: Member name -> serving, mode, zxid (as a number) and node_count; null where a member does not answer.
  returned: always
  type: dict
  sample:
    zk1: {serving: true, mode: follower, zxid: 8589934883, node_count: 187}
    zk2: {serving: true, mode: leader, zxid: 8589934883, node_count: 187}
    zk3: {serving: false, mode: null, zxid: null, node_count: null}
leader:
  description: The leader's name, or null without a single leader.
  returned: always
  type: str
  sample: zk2
has_leader:
  description: Whether exactly one member leads.
  returned: always
  type: bool
  sample: true
serving:
  description: Members that serve requests.
  returned: always
  type: list
  elements: str
  sample: [zk1, zk2]
all_serving:
  description: Whether every member serves.
  returned: always
  type: bool
  sample: false
restart_order:
  description: Followers first, the leader last.
  returned: always
  type: list
  elements: str
  sample: [zk1, zk3, zk2]
done:
  description: Whether the quorum has one leader and every member serves (what the wait waits for).
  returned: always
  type: bool
  sample: false
progress:
  description: The line printed while waiting.
  returned: always
  type: str
  sample: "ensemble: leader zk2; not serving: zk3"
waited:
  description: Seconds waited.
  returned: when wait_timeout > 0
  type: float
  sample: 9.0
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
