#!/usr/bin/python
"""Ansible module: raise cluster features' finalized levels with Kafka's own tool."""

DOCUMENTATION = r"""
module: kafka_feature
short_description: Raise a KRaft cluster's finalized feature levels (kafka-features upgrade)
version_added: 0.14.0
description:
  - Reads the cluster's finalized feature levels with Kafka's FeatureCommand (kafka-features.sh describe) through the
    brokers, as the kit's admin, from I(kafka_tools_home) on the machine running the module (metadata.version as its
    level, which Kafka's version-mapping gives); raises every feature of I(features) that is below its level in one
    C(kafka-features.sh upgrade) with an explicit C(--feature NAME=LEVEL) each (never C(--release-version), which
    raises kraft.version too), and reads them again.
  - Never lowers a level (a level at or above the one asked is left as it is). Some upgrades cannot be undone by Kafka
    (kraft.version 1, metadata.version past a level that changes metadata), so the playbooks that call this module
    ask for a confirmation first.
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
  features:
    description: Each feature and the finalized level it must have at least, like C(kraft.version) 1.
    type: dict
    required: true
seealso:
  - module: kafkaops.toolkit.kafka_quorum_conversion_plan
    description: Whether the kraft.version upgrade may run now.
  - module: kafkaops.toolkit.kafka_upgrade_plan
    description: The features a version upgrade finalizes.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Make the quorum dynamic (cannot be undone)
  kafkaops.toolkit.kafka_feature:
    kafka_tools_home: /opt/kafka
    features: {kraft.version: 1}
  delegate_to: localhost
"""

RETURN = r"""
before:
  description: The levels of I(features) before (0 when not finalized).
  returned: always
  type: dict
  sample: {kraft.version: 0}
after:
  description: Their levels after (the levels they would have, in check mode).
  returned: always
  type: dict
  sample: {kraft.version: 1}
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
                                              features=dict(type="dict", required=True)),
                           supports_check_mode=True)
    p = module.params
    try:
        wanted = {name: int(level) for name, level in p["features"].items()}
    except (TypeError, ValueError):
        module.fail_json(msg=f"features must map names to numbered levels: {p['features']!r}")
    conf = admin_config(p)
    try:
        levels = kafka_tools.read_feature_levels(p["kafka_tools_home"], conf, p["request_timeout"])
    except Exception as exc:
        module.fail_json(msg=f"cannot read the features through {p['bootstrap_servers']}: {describe_error(exc)}")
    before = {name: levels.get(name, 0) for name in wanted}
    raise_ = {name: level for name, level in wanted.items() if before[name] < level}
    if not raise_:
        module.exit_json(changed=False, before=before, after=before)
    if module.check_mode:
        module.exit_json(changed=True, before=before, after=dict(before, **raise_))
    try:
        kafka_tools.upgrade_features(p["kafka_tools_home"], conf, raise_, p["request_timeout"])
        levels = kafka_tools.read_feature_levels(p["kafka_tools_home"], conf, p["request_timeout"])
    except Exception as exc:
        module.fail_json(msg=f"upgrading {raise_} failed: {describe_error(exc)}", before=before)
    module.exit_json(changed=True, before=before, after={name: levels.get(name, 0) for name in wanted})


if __name__ == "__main__":
    main()
