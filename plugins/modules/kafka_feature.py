#!/usr/bin/python
"""Ansible module: raise a cluster feature's finalized level with Kafka's own tool."""

DOCUMENTATION = r"""
module: kafka_feature
short_description: Raise a KRaft cluster's finalized feature level (kafka-features upgrade)
version_added: 0.14.0
description:
  - Reads the cluster's finalized feature levels with Kafka's FeatureCommand (kafka-features.sh describe) through the
    brokers, as the kit's admin, from I(kafka_tools_home) on the machine running the module; when I(feature) is below
    I(level), upgrades it (kafka-features.sh upgrade --feature NAME=LEVEL) and reads it again.
  - Never lowers a level (a level at or above I(level) is left as it is). Some upgrades cannot be undone by Kafka
    (kraft.version 1), so the playbooks that call this module ask for a confirmation first.
requirements:
  - Java and a Kafka distribution (I(kafka_tools_home)) on the host that runs the module
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.kafka_connection.tools
  - kafkaops.toolkit.attributes
attributes:
  check_mode:
    support: full
    details: Reads the levels and reports whether it would upgrade; changes nothing.
  diff_mode:
    support: none
options:
  zookeeper_connect:
    description: Not used; accepted so the kit's connection variables pass.
    type: str
    required: false
  feature:
    description: The feature, like C(kraft.version).
    type: str
    required: true
  level:
    description: The finalized level it must have at least.
    type: int
    required: true
seealso:
  - module: kafkaops.toolkit.kafka_quorum_conversion_plan
    description: Whether the kraft.version upgrade may run now.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Make the quorum dynamic (cannot be undone)
  kafkaops.toolkit.kafka_feature:
    kafka_tools_home: /opt/kafka
    feature: kraft.version
    level: 1
  delegate_to: localhost
"""

RETURN = r"""
before:
  description: The feature's finalized level before (0 when not finalized).
  returned: always
  type: raw
  sample: 0
after:
  description: Its level after (the level it would have, in check mode).
  returned: always
  type: raw
  sample: 1
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_tools
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    BROKER_CONNECTION_ARGS,
    admin_config,
    describe_error,
)


def main():
    module = AnsibleModule(argument_spec=dict(BROKER_CONNECTION_ARGS,
                                              kafka_tools_home=dict(type="path", required=True),
                                              feature=dict(type="str", required=True),
                                              level=dict(type="int", required=True)),
                           supports_check_mode=True)
    p = module.params
    conf = admin_config(p)
    try:
        before = kafka_tools.read_features(p["kafka_tools_home"], conf, p["request_timeout"]).get(p["feature"], 0)
    except Exception as exc:
        module.fail_json(msg=f"cannot read the features through {p['bootstrap_servers']}: {describe_error(exc)}")
    if not isinstance(before, int):
        module.fail_json(msg=f"{p['feature']}'s level is {before!r}, not a number: this module raises numbered levels")
    if before >= p["level"]:
        module.exit_json(changed=False, before=before, after=before)
    if module.check_mode:
        module.exit_json(changed=True, before=before, after=p["level"])
    try:
        kafka_tools.upgrade_feature(p["kafka_tools_home"], conf, p["feature"], p["level"], p["request_timeout"])
        after = kafka_tools.read_features(p["kafka_tools_home"], conf, p["request_timeout"]).get(p["feature"], 0)
    except Exception as exc:
        module.fail_json(msg=f"upgrading {p['feature']} to {p['level']} failed: {describe_error(exc)}", before=before)
    module.exit_json(changed=True, before=before, after=after)


if __name__ == "__main__":
    main()
