#!/usr/bin/python
"""Ansible module: whose data is in this host's Kafka log dirs (runs on the broker host itself)."""

DOCUMENTATION = r"""
module: kafka_broker_identity
short_description: Read the log dirs' meta.properties on a broker host and say whose data they hold
version_added: 0.10.0
description:
  - Runs on the broker host. Reads C(meta.properties) in every log dir and reports, per dir, C(absent),
    C(ours), C(other_broker), C(other_cluster), C(malformed) or C(unreadable) (with the OS error - a disk
    that fails to read is never taken as empty).
  - Returns C(refusals), the reasons why broker I(broker_id) must not start on or empty these dirs, from
    the one rule in module_utils/kafka_identity.py.
extends_documentation_fragment:
  - kafkaops.toolkit.attributes
  - kafkaops.toolkit.attributes.read_only
options:
  log_dirs:
    description: The broker's log dirs.
    type: list
    elements: path
    required: true
  broker_id:
    description: The broker id these dirs should belong to.
    type: int
    required: true
  cluster_id:
    description: The cluster id they should belong to (empty - not compared).
    type: str
    default: ""
  peers:
    description:
      - Other brokers' results of this module (inventory host -> its C(dirs)), to refuse a broker id whose
        data is already on another host and a cluster id that differs from theirs.
    type: dict
    default: {}
  config_file:
    description:
      - The broker's current server.properties. Log dirs of it that hold data and are not in I(log_dirs)
        are refused (a broker moved to new log dirs starts empty).
    type: path
seealso:
  - module: kafkaops.toolkit.kafka_recovery_plan
    description: Takes this module's C(refusals) (I(identity)) into the decision to replace or rebuild a broker.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Read whose data this broker's log dirs hold
  kafkaops.toolkit.kafka_broker_identity:
    log_dirs: [/data/disk1/kafka, /data/disk2/kafka]
    broker_id: 2
    cluster_id: aBcD1234QwErTy5678ZxCv
    config_file: /etc/kafka/server.properties
  register: identity

- name: Refuse to start the broker on data that is not its own
  ansible.builtin.fail:
    msg: "{{ identity.refusals | join('; ') }}"
  when: identity.refusals | length > 0
"""

RETURN = r"""
dirs:
  description: Per log dir - path, status, broker_id, cluster_id and directory_id (KRaft) found, error (for
    unreadable), and bootstrap (the base64 of the bootstrap checkpoint kafka-storage wrote, or null).
  returned: always
  type: list
  elements: dict
  sample:
    - {path: /data/disk1/kafka, status: ours, broker_id: "2", cluster_id: aBcD1234QwErTy5678ZxCv,
       directory_id: i2ZnYpAAXUSxivwo7Vl4lA, error: null, bootstrap: null}
    - {path: /data/disk2/kafka, status: absent, broker_id: null, cluster_id: null, directory_id: null, error: null,
       bootstrap: null}
refusals:
  description: Reasons not to use these dirs for I(broker_id), one sentence each; empty when safe.
  returned: always
  type: list
  elements: str
  sample: ["/data/disk2/kafka holds the data of broker.id 3, not 2"]
abandoned_log_dirs:
  description: The dirs of I(configured_log_dirs) that hold data and that I(log_dirs) leaves out.
  returned: always
  type: list
  elements: str
  sample: []
  version_added: 0.12.0
configured_log_dirs:
  description: The log.dirs of I(config_file) (empty without one).
  returned: always
  type: list
  elements: str
  sample: [/data/disk1/kafka, /data/disk2/kafka]
configured_mode:
  description:
    - What I(config_file) runs, C(kraft), C(zookeeper), C(migrating) (a broker with the migration flag) or
      C(migration) (a controller with it); null without one.
  returned: always
  type: str
  sample: zookeeper
configured_quorum:
  description:
    - How I(config_file) finds the KRaft quorum's voters, C(static) (controller.quorum.voters) or C(dynamic)
      (controller.quorum.bootstrap.servers alone); null for neither.
  returned: always
  type: str
  sample: dynamic
  version_added: 0.12.0
configured_inter_broker_listener:
  description: The inter.broker.listener.name of I(config_file) (null without one).
  returned: always
  type: str
  sample: REPLICATION
configured_properties:
  description: The keys of I(config_file) the migration's precheck reads (kafka_migration.PRECHECK_KEYS).
  returned: always
  type: dict
  sample: {broker.id: "2", inter.broker.protocol.version: "3.9"}
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_identity as ki
from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft, kafka_migration
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import describe_error


def read_config(config_file):
    """The properties of the current config file, {} without one."""
    if not config_file or not os.path.exists(config_file):
        return {}
    with open(config_file, encoding="utf-8") as handle:
        return ki.parse_properties(handle.read())


def abandoned_dirs(props, log_dirs):
    """(log.dirs of the current config, those of them that hold data and are not in log_dirs)."""
    current = ki.normalized_dirs(props.get("log.dirs", props.get("log.dir", "")))
    wanted = set(ki.normalized_dirs(log_dirs))
    left = [d for d in current if d not in wanted and ki.read_meta(d)["meta"] is not None]
    return current, left


def main():
    module = AnsibleModule(argument_spec=dict(
        log_dirs=dict(type="list", elements="path", required=True),
        broker_id=dict(type="int", required=True),
        cluster_id=dict(type="str", default=""),
        peers=dict(type="dict", default={}),
        config_file=dict(type="path")), supports_check_mode=True)
    p = module.params
    dirs = ki.report([ki.read_meta(d) for d in ki.normalized_dirs(p["log_dirs"])], p["broker_id"],
                     p["cluster_id"] or None)
    try:
        props = read_config(p["config_file"])
    except OSError as exc:
        module.fail_json(msg=f"cannot read {p['config_file']}: {describe_error(exc)}")
    current, abandoned = abandoned_dirs(props, p["log_dirs"])
    refusals = ki.refusals(dirs, p["broker_id"], p["cluster_id"] or None, p["peers"], abandoned)
    module.exit_json(changed=False, dirs=dirs, refusals=refusals, configured_log_dirs=current,
                     abandoned_log_dirs=abandoned,
                     configured_mode=kafka_migration.configured_mode(props),
                     configured_quorum=kafka_kraft.configured_quorum(props),
                     configured_inter_broker_listener=props.get("inter.broker.listener.name"),
                     configured_properties={k: v for k, v in props.items() if k in kafka_migration.PRECHECK_KEYS})


if __name__ == "__main__":
    main()
