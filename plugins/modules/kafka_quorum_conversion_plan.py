#!/usr/bin/python
"""Ansible module: the refusals and plan of a static KRaft quorum's conversion to a dynamic one."""

DOCUMENTATION = r"""
module: kafka_quorum_conversion_plan
short_description: Decide whether a static KRaft quorum may be made dynamic now, and which steps are left
version_added: 0.14.0
description:
  - Reads the metadata quorum (kafka-metadata-quorum describe) through the brokers with Kafka's own tools, its
    kraft.version as its leader knows the voters (plugins/module_utils/kafka_kraft.quorum_kraft_version), and applies
    plugins/module_utils/kafka_kraft.convert_quorum_plan. Returns C(refusals) (rule and message) and the C(steps)
    left; it never fails on a refusal, so the playbook shows the plan and then stops.
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
  kafka_version:
    description: The release the cluster runs (the connection role's I(kafka_version)).
    type: str
    required: true
  confirm_irreversible:
    description: Whether the operator confirmed the kraft.version upgrade, which Kafka cannot undo.
    type: bool
    default: false
  static_hosts:
    description: The controllers and brokers whose config still lists controller.quorum.voters.
    type: list
    elements: str
    default: []
  max_lag:
    description: Records a voter may be behind the leader and count as caught up.
    type: int
    default: 10
seealso:
  - module: kafkaops.toolkit.kafka_feature
    description: The kraft.version upgrade itself.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Decide
  kafkaops.toolkit.kafka_quorum_conversion_plan:
    kafka_tools_home: /opt/kafka
    kafka_version: 4.4.0
    confirm_irreversible: "{{ confirm_irreversible | default(false) }}"
    static_hosts: [ctrl1, ctrl2, ctrl3, kafka1, kafka2, kafka3]
  delegate_to: localhost
  register: decision
"""

RETURN = r"""
steps:
  description: The steps left, in order (feature, roll); empty on a refusal.
  returned: always
  type: list
  elements: str
  sample: [feature, roll]
kraft_version:
  description: The quorum's kraft.version now (0 static, 1 dynamic), from its voters' directory ids.
  returned: always
  type: int
  sample: 0
voters:
  description: The quorum's voters' node ids.
  returned: always
  type: list
  elements: int
  sample: [9001, 9002, 9003]
refusals:
  description: Why it must not be done now (rule, message); empty when it may.
  returned: always
  type: list
  elements: dict
  sample: [{rule: convert-needs-confirm, message: "kraft.version 1 cannot be undone ..."}]
plan:
  description: The steps in words.
  returned: always
  type: list
  elements: str
  sample: ["voters now: [9001, 9002, 9003], kraft.version 0", "feature: kraft.version 0 -> 1 ..."]
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft, kafka_tools, kafka_versions
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    BROKER_CONNECTION_ARGS,
    admin_config,
    describe_error,
)


def main():
    module = AnsibleModule(argument_spec=dict(
        BROKER_CONNECTION_ARGS,
        kafka_tools_home=dict(type="path", required=True),
        kafka_version=dict(type="str", required=True),
        confirm_irreversible=dict(type="bool", default=False),
        static_hosts=dict(type="list", elements="str", default=[]),
        max_lag=dict(type="int", default=10)), supports_check_mode=True)
    p = module.params
    try:
        converts = kafka_versions.facts(p["kafka_version"])["converts_quorum"]
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    conf = admin_config(p)
    try:
        quorum = kafka_tools.read_quorum(p["kafka_tools_home"], conf, p["request_timeout"])
    except Exception as exc:
        module.fail_json(msg=f"cannot read the KRaft quorum through {p['bootstrap_servers']}: {describe_error(exc)}")
    plan = kafka_kraft.convert_quorum_plan(quorum["replication"], converts, p["confirm_irreversible"],
                                           p["static_hosts"], p["max_lag"], module.check_mode)
    module.exit_json(changed=False, plan=kafka_kraft.convert_quorum_lines(plan, p["static_hosts"]), **plan)


if __name__ == "__main__":
    main()
