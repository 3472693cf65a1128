#!/usr/bin/python
"""Ansible module: the refusals and plan of a broker replacement or rebuild, from the cluster as it is."""

DOCUMENTATION = r"""
module: kafka_recovery_plan
short_description: Decide whether a broker may be replaced or rebuilt now, and how
version_added: 0.10.0
description:
  - Reads the cluster (ZooKeeper registry, partitions, ISRs, configs) and applies the rules of
    plugins/module_utils/kafka_recovery.py to the request. Returns C(refusals) (each with its rule and a
    message naming the cause, the partitions or hosts and the override) and the C(plan); it never fails
    on a refusal, so the playbook shows the plan and then stops.
requirements:
  - confluent-kafka and kazoo on the host that runs the module (usually the controller)
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.attributes
  - kafkaops.toolkit.attributes.read_only
options:
  action:
    description: What is planned.
    type: str
    choices: [replace, rebuild]
    required: true
  broker_id:
    description: The failed broker's id (replace) or the broker to rebuild.
    type: int
    required: true
  host:
    description: The failed host (replace) or the broker's host (rebuild).
    type: str
    required: true
  replacement_host:
    description: The inventory host that takes the id over (required to replace).
    type: str
  replacement_endpoint:
    description: The host and port the replacement will advertise on the listener the kit reaches brokers on (its
      kafka_advertised_host and the connection role's kafka_admin_port), as the registry is read; required to replace.
    type: list
    elements: str
  replacement_active:
    description: Whether a kafka service runs on the replacement.
    type: bool
    default: false
  fence_failed_host:
    description: Stop and disable a failed broker still registered.
    type: bool
    default: false
  failed_host_reachable:
    description: Whether the failed host answers (unset - not checked).
    type: bool
  accept_offline_partitions:
    description: Go on although partitions lose their only in-sync copy.
    type: bool
    default: false
  identity:
    description: The C(refusals) of kafka_broker_identity on the log dirs to use (replacement) or empty (rebuild).
    type: list
    elements: str
    default: []
  dirs:
    description:
      - The C(dirs) of kafka_broker_identity on the replacement's log dirs; the metadata.version a bootstrap
        checkpoint there records (KRaft) is read with Kafka's DumpLogSegments, and a level above I(kafka_version)'s
        is refused (a newer release's kafka-storage formatted it).
    type: list
    elements: dict
    default: []
  kafka_version:
    description: The cluster's Kafka release (the connection role's C(kafka_version)); needed with I(dirs).
    type: str
  keep_old_data:
    description: Rebuild keeps the old data moved aside.
    type: bool
    default: false
  free_bytes:
    description: Least free space of the log dirs (rebuild with keep_old_data).
    type: int
  bytes_to_copy:
    description: What the broker will copy, when known.
    type: int
  kafka_tools_home:
    description: A Kafka distribution on the controller; a replacement needs it (checked before anything changes).
    type: path
seealso:
  - module: kafkaops.toolkit.kafka_broker_identity
    description: Whose data a host's log dirs hold (I(identity)).
  - module: kafkaops.toolkit.kafka_replication_throttle
    description: The throttle the rebuilt or replacing broker copies under.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Decide
  kafkaops.toolkit.kafka_recovery_plan:
    action: rebuild
    broker_id: 3
    host: kafka3
    identity: "{{ identity.refusals }}"
    bootstrap_servers: kafka1:9092
    zookeeper_connect: zk1:2181/kafka
  delegate_to: localhost
  register: decision

- name: Show the plan
  ansible.builtin.debug:
    var: decision.plan

- name: Stop on a refusal
  ansible.builtin.fail:
    msg: "{{ decision.refusals | map(attribute='message') | join(' | ') }}"
  when: decision.refusals | length > 0
"""

RETURN = r"""
refusals:
  description: The reasons the request must not go on, each C({rule, message}); empty when it may.
  returned: always
  type: list
  elements: dict
  sample:
    - rule: rebuild-below-min-isr
      message: "Refusing to rebuild broker 3 (kafka3): stopping it would leave 1 partition(s) below min.insync.replicas,
        and acks=all producers would fail: orders-4. Wait until their other replicas are back in the ISR, then rerun."
plan:
  description: The plan in lines for people.
  returned: always
  type: list
  elements: str
  sample:
    - rebuild broker 3 on kafka3 (registered), cluster aBcD1234QwErTy5678ZxCv
    - "old log dirs: deleted; its identity (broker id, cluster id) written back into meta.properties"
    - stop through the safe-to-stop gate (no partition below min.insync.replicas), right before the stop
rerun:
  description: Replace - the replacement already runs under the id (a rerun).
  returned: when action=replace
  type: bool
  sample: false
fence:
  description: Replace - the failed broker will be stopped and disabled.
  returned: when action=replace
  type: bool
  sample: false
cluster_id:
  description: The cluster id.
  returned: always
  type: str
  sample: aBcD1234QwErTy5678ZxCv
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_recovery, kafka_tools
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    CONNECTION_ARGS,
    describe_error,
    read_cluster_state,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            CONNECTION_ARGS,
            action=dict(type="str", choices=["replace", "rebuild"], required=True),
            broker_id=dict(type="int", required=True),
            host=dict(type="str", required=True),
            replacement_host=dict(type="str"),
            replacement_endpoint=dict(type="list", elements="str"),
            replacement_active=dict(type="bool", default=False),
            fence_failed_host=dict(type="bool", default=False),
            failed_host_reachable=dict(type="bool"),
            accept_offline_partitions=dict(type="bool", default=False),
            identity=dict(type="list", elements="str", default=[]),
            dirs=dict(type="list", elements="dict", default=[]),
            kafka_version=dict(type="str"),
            keep_old_data=dict(type="bool", default=False),
            free_bytes=dict(type="int"),
            bytes_to_copy=dict(type="int"),
            kafka_tools_home=dict(type="path")),
        required_if=[("action", "replace", ["replacement_host", "replacement_endpoint", "kafka_version"])],
        supports_check_mode=True)
    p = module.params
    try:
        state = read_cluster_state(p)
    except Exception as exc:
        module.fail_json(msg=f"cannot read the cluster state from {p['bootstrap_servers']} / "
                             f"{p['zookeeper_connect']}: {describe_error(exc)}")
    if p["action"] == "replace":
        host, port = p["replacement_endpoint"]
        tools_problem = kafka_tools.tools_problem(p["kafka_tools_home"])
        try:  # without the tools, their refusal stands for this check too
            format_refusals = [] if tools_problem else kafka_tools.newer_format_refusals(
                p["kafka_tools_home"], p["dirs"], p["kafka_version"], p["request_timeout"])
        except RuntimeError as exc:
            module.fail_json(msg=str(exc))
        decision = kafka_recovery.replace_decision(state, dict(
            failed_id=p["broker_id"], failed_host=p["host"], replacement_host=p["replacement_host"],
            replacement_endpoint=(host, int(port)), fence_failed_host=p["fence_failed_host"],
            failed_host_reachable=p["failed_host_reachable"],
            accept_offline_partitions=p["accept_offline_partitions"], replacement_active=p["replacement_active"],
            replacement_identity=p["identity"], tools_problem=tools_problem,
            format_refusals=format_refusals))
    else:
        decision = kafka_recovery.rebuild_decision(state, dict(
            broker_id=p["broker_id"], host=p["host"], identity=p["identity"], keep_old_data=p["keep_old_data"],
            free_bytes=p["free_bytes"], bytes_to_copy=p["bytes_to_copy"]))
    module.exit_json(changed=False, cluster_id=state["cluster_id"], **decision)


if __name__ == "__main__":
    main()
