#!/usr/bin/python
"""Ansible module: the refusals and plan of a rolling version upgrade (playbooks/upgrade_kafka.yml)."""

DOCUMENTATION = r"""
module: kafka_upgrade_plan
short_description: Decide whether a cluster may be upgraded to a Kafka release now, and which steps are left
version_added: 0.15.0
description:
  - Reads the cluster (its id, under-replicated partitions; on KRaft its finalized features through the brokers with
    Kafka's own FeatureCommand, metadata.version as its level) and the upgrade record
    C(<record_dir>/<cluster id>.json), takes each node's release from I(nodes), and applies
    plugins/module_utils/kafka_upgrade.upgrade_plan. When the next step raises the features, Kafka's controller first
    validates their levels in a dry run (C(kafka-features upgrade --dry-run)), which refuses a node or a stale
    registration that does not support them.
  - Returns C(refusals), the C(steps) this run takes (the rolls; once every node runs the target, the finalize step
    alone) and the C(record) to write before the first host changes; it never fails on a refusal, so the playbook
    shows the plan and then stops.
requirements:
  - confluent-kafka and kazoo, Java and a Kafka distribution (I(kafka_tools_home)) on the host that runs the module
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.kafka_connection.tools
  - kafkaops.toolkit.attributes
  - kafkaops.toolkit.attributes.read_only
options:
  kafka_version:
    description: The release to upgrade to.
    type: str
    required: true
  metadata_mode:
    description: How the cluster keeps its metadata (the connection role's I(kafka_metadata_mode)).
    type: str
    choices: [zookeeper, kraft]
    required: true
  rollback:
    description:
      - Plan the way back instead (rollback_upgrade.yml) - kafka_upgrade.rollback_plan, to the release the record
        names, refused once the upgrade took its irreversible step; I(kafka_version) and I(finalize) are not used.
    type: bool
    default: false
  finalize:
    description: Plan the finalize step (raising inter.broker.protocol.version or the features), maybe irreversible.
    type: bool
    default: false
  nodes:
    description:
      - Each inventory host of the cluster - C(role) (zookeeper, controller, broker), C(release) (the Kafka release
        its process runs, null when none runs), C(running), C(settled) (no gated restart waits for it), C(ibp) (a
        broker's configured inter.broker.protocol.version, null when it sets none) - as
        kafka_upgrade.node_from_processes makes it.
    type: dict
    required: true
  record_dir:
    description: Directory on the controller holding each cluster's upgrade record.
    type: path
    required: true
  controller_quorum:
    description: The kind of quorum the KRaft controllers' configs run (static, dynamic); it stays through the upgrade.
    type: str
    choices: [static, dynamic]
seealso:
  - module: kafkaops.toolkit.kafka_feature
    description: The features step itself.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Decide
  kafkaops.toolkit.kafka_upgrade_plan:
    kafka_tools_home: /opt/kafka
    kafka_version: 4.4.0
    metadata_mode: kraft
    nodes: {ctrl1: {role: controller, release: 3.9.2, running: true, settled: true, ibp: null}}
    record_dir: /root/.kafkaops/upgrades
  delegate_to: localhost
  register: upgrade
"""

RETURN = r"""
steps:
  description: The steps this run takes, in order (each with step, hosts, irreversible; ibp, features); empty on a
    refusal.
  returned: always
  type: list
  elements: dict
  sample: [{step: controllers, hosts: [ctrl1, ctrl2, ctrl3], irreversible: false}]
stop_before:
  description: The finalize step left for -e finalize=true, or null.
  returned: always
  type: str
  sample: features
record:
  description: The upgrade record to keep (from, to).
  returned: always
  type: dict
  sample: {from: 3.9.2, to: 4.4.0}
record_path:
  description: Where the record is kept.
  returned: always
  type: str
  sample: /root/.kafkaops/upgrades/MJSNmLXLTdKg3aNmVou26g.json
refusals:
  description: Why it must not be done now (rule, message); empty when it may.
  returned: always
  type: list
  elements: dict
  sample: [{rule: upgrade-under-replicated, message: "2 partition(s) are under-replicated ..."}]
quorum:
  description: The quorum kind the controllers keep through the rolls (I(controller_quorum), else the target's).
  returned: always
  type: str
  sample: static
commit:
  description: What the inventory must say once this run is done (kafka_upgrade.commit_lines).
  returned: always
  type: list
  elements: str
  sample: ["kafka_version: 4.4.0", "kafka_controller_quorum: static (...)"]
plan:
  description: The steps in words.
  returned: always
  type: list
  elements: str
  sample: ["upgrade from 3.9.2 to 4.4.0", "controllers: ctrl1, ctrl2, ctrl3"]
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import (
    kafka_state,
    kafka_tools,
    kafka_upgrade,
    kafka_versions,
)
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    CONNECTION_ARGS,
    admin_config,
    describe_error,
    read_cluster_state,
)


def main():
    module = AnsibleModule(argument_spec=dict(
        CONNECTION_ARGS,
        kafka_tools_home=dict(type="path", required=True),
        kafka_version=dict(type="str", required=True),
        metadata_mode=dict(type="str", choices=["zookeeper", "kraft"], required=True),
        finalize=dict(type="bool", default=False),
        rollback=dict(type="bool", default=False),
        nodes=dict(type="dict", required=True),
        record_dir=dict(type="path", required=True),
        controller_quorum=dict(type="str", choices=["static", "dynamic"])), supports_check_mode=True)
    p = module.params
    home, conf, timeout = p["kafka_tools_home"], admin_config(p), p["request_timeout"]
    try:
        state = read_cluster_state(p)
        cluster = {"mode": p["metadata_mode"], "nodes": p["nodes"],
                   "under_replicated": kafka_state.under_replicated(state)}
        if p["metadata_mode"] == "kraft":
            cluster["features"] = kafka_tools.read_feature_levels(home, conf, timeout)
    except Exception as exc:
        module.fail_json(msg=f"cannot read the cluster through {p['bootstrap_servers']}: {describe_error(exc)}")
    record_path = os.path.join(p["record_dir"], f"{state['cluster_id']}.json")
    try:
        with open(record_path) as f:
            record = json.load(f)
    except FileNotFoundError:
        record = None
    if p["rollback"]:
        plan = kafka_upgrade.rollback_plan(cluster, record)
        release, this_run = (record or {}).get("from"), plan["steps"]
    else:
        plan = kafka_upgrade.upgrade_plan(cluster, p["kafka_version"], record, p["finalize"])
        levels = kafka_upgrade.feature_check_levels(plan)
        if levels:
            try:
                kafka_tools.upgrade_features(home, conf, levels, timeout, dry_run=True)
            except RuntimeError as exc:  # the tool's own answer: what Kafka's controller refused
                cluster["feature_check"] = str(exc)
                plan = kafka_upgrade.upgrade_plan(cluster, p["kafka_version"], record, p["finalize"])
        release, this_run = p["kafka_version"], [] if plan["refusals"] else kafka_upgrade.steps_this_run(plan)
    lines = kafka_upgrade.upgrade_lines(plan, this_run)
    module.exit_json(changed=False, steps=this_run, stop_before=plan["stop_before"], record=plan["record"],
                     record_path=record_path, refusals=plan["refusals"],
                     quorum=p["controller_quorum"] or kafka_versions.new_quorum(release),
                     commit=kafka_upgrade.commit_lines(release, this_run, p["metadata_mode"], p["controller_quorum"]),
                     plan=[f"back to {release}:"] + lines if p["rollback"] and release else lines)


if __name__ == "__main__":
    main()
