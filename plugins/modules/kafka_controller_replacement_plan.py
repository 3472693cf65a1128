#!/usr/bin/python
"""Ansible module: the refusals and plan of a KRaft controller's replacement, from the quorum as it is."""

DOCUMENTATION = r"""
module: kafka_controller_replacement_plan
short_description: Decide whether a lost KRaft voter may be replaced now, and which steps are left
version_added: 0.14.0
description:
  - Reads the metadata quorum through the brokers with Kafka's MetadataQuorumCommand (as kafka_quorum_info does)
    and applies plugins/module_utils/kafka_kraft.replace_controller_plan to the request. Returns C(refusals) (each
    with its rule and a message naming the cause and what to do) and the C(steps) not done yet; it never fails on a
    refusal, so the playbook shows the plan and then stops. A rerun after a failure gets only the steps left.
requirements:
  - Java and a Kafka distribution (I(kafka_tools_home)) on the host that runs the module
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.kafka_connection.tools
  - kafkaops.toolkit.attributes
  - kafkaops.toolkit.attributes.read_only
options:
  zookeeper_connect:
    description: Not used; accepted so the kit's connection variables pass.
    type: str
    required: false
  node_id:
    description: The lost voter's node id (the replacement takes it).
    type: int
    required: true
  failed_host:
    description: The lost voter's inventory host (for the plan's words).
    type: str
    required: true
  replacement_host:
    description: The inventory host that takes its place (the failed host itself with a new disk, or another).
    type: str
    required: true
  replacement_metadata:
    description: The replacement's metadata dir as the kafka_controller role reads it (C(kafka_controller_metadata)
      - C(state), C(cluster_id), C(directory_id)).
    type: dict
    required: true
  replacement_identity:
    description: The C(refusals) of kafka_broker_identity on the replacement's metadata dir (another node's,
      malformed, unreadable).
    type: list
    elements: str
    default: []
  replacement_dirs:
    description:
      - The C(dirs) of kafka_broker_identity on the replacement's metadata dir; the metadata.version a bootstrap
        checkpoint there records is read with Kafka's DumpLogSegments, and a level above I(kafka_version)'s is
        refused (a newer release's kafka-storage formatted it).
    type: list
    elements: dict
    default: []
  kafka_version:
    description: The cluster's Kafka release (the connection role's C(kafka_version)).
    type: str
    required: true
  replacement_running:
    description: Whether kafka-controller runs on the replacement.
    type: bool
    default: false
  failed_host_running:
    description: Whether the failed host, when it is not the replacement, answers and still runs kafka-controller.
    type: bool
    default: false
  fence_failed_host:
    description: Stop and disable that controller first (otherwise a refusal).
    type: bool
    default: false
  max_lag:
    description: Records a voter may be behind the leader and count as caught up.
    type: int
    default: 10
seealso:
  - module: kafkaops.toolkit.kafka_quorum_info
    description: The quorum's voters and observers.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Decide
  kafkaops.toolkit.kafka_controller_replacement_plan:
    kafka_tools_home: /opt/kafka
    node_id: 9003
    failed_host: ctrl3
    replacement_host: ctrl4
    replacement_metadata: "{{ kafka_controller_metadata }}"
  delegate_to: localhost
  register: decision
"""

RETURN = r"""
steps:
  description: The steps left, in order (fence, remove, format, start, add, wait); empty on a refusal.
  returned: always
  type: list
  elements: str
  sample: [remove, format, start, add, wait]
remove:
  description: The voter to remove (node_id, directory_id), or null.
  returned: always
  type: dict
  sample: {node_id: 9003, directory_id: i2ZnYpAAXUSxivwo7Vl4lA}
voters:
  description: The quorum's voters' node ids now.
  returned: always
  type: list
  elements: int
  sample: [9001, 9002, 9003]
leader_id:
  description: The quorum's leader.
  returned: always
  type: int
  sample: 9001
cluster_id:
  description: The cluster id (the replacement is formatted with it).
  returned: always
  type: str
  sample: aBcD1234QwErTy5678ZxCv
refusals:
  description: Why it must not be done now (rule, message); empty when it may.
  returned: always
  type: list
  elements: dict
  sample: [{rule: kraft-replace-static, message: "the quorum's voters [9001, 9002, 9003] are static ..."}]
plan:
  description: The steps in words.
  returned: always
  type: list
  elements: str
  sample: ["voters now: [9001, 9002, 9003]", "remove: voter 9003 (directory i2ZnYpAAXUSxivwo7Vl4lA) leaves ..."]
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft, kafka_tools
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    BROKER_CONNECTION_ARGS,
    admin_config,
    describe_error,
)


def main():
    module = AnsibleModule(argument_spec=dict(
        BROKER_CONNECTION_ARGS,
        kafka_tools_home=dict(type="path", required=True),
        node_id=dict(type="int", required=True),
        failed_host=dict(type="str", required=True),
        replacement_host=dict(type="str", required=True),
        replacement_metadata=dict(type="dict", required=True),
        replacement_identity=dict(type="list", elements="str", default=[]),
        replacement_dirs=dict(type="list", elements="dict", default=[]),
        kafka_version=dict(type="str", required=True),
        replacement_running=dict(type="bool", default=False),
        failed_host_running=dict(type="bool", default=False),
        fence_failed_host=dict(type="bool", default=False),
        max_lag=dict(type="int", default=10)), supports_check_mode=True)
    p = module.params
    try:
        quorum = kafka_tools.read_quorum(p["kafka_tools_home"], admin_config(p), p["request_timeout"])
    except Exception as exc:
        module.fail_json(msg=f"cannot read the KRaft quorum through {p['bootstrap_servers']}: {describe_error(exc)}")
    metadata = p["replacement_metadata"]
    try:
        format_refusals = kafka_tools.newer_format_refusals(p["kafka_tools_home"], p["replacement_dirs"],
                                                            p["kafka_version"], p["request_timeout"])
    except RuntimeError as exc:
        module.fail_json(msg=str(exc))
    plan = kafka_kraft.replace_controller_plan(
        quorum["replication"], p["node_id"],
        {"state": metadata["state"], "cluster_id": metadata.get("cluster_id") or None,
         "directory_id": metadata.get("directory_id") or None, "identity": p["replacement_identity"],
         "refusals": format_refusals,
         "running": p["replacement_running"]},
        quorum["status"]["cluster_id"], p["max_lag"], p["failed_host_running"], p["fence_failed_host"])
    module.exit_json(changed=False, leader_id=quorum["status"]["leader_id"], cluster_id=quorum["status"]["cluster_id"],
                     plan=kafka_kraft.replace_controller_lines(plan, p["node_id"], p["failed_host"],
                                                               p["replacement_host"]), **plan)


if __name__ == "__main__":
    main()
