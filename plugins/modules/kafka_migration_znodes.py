#!/usr/bin/python
"""Ansible module: read the znodes a ZooKeeper to KRaft migration uses; delete an empty /migration; and the znode
changes of a rollback."""

DOCUMENTATION = r"""
module: kafka_migration_znodes
short_description: Read and reset the znodes of a migration to KRaft (/migration, /controller, /controller_epoch)
version_added: 0.12.0
description:
  - Reads, under the cluster's chroot, C(/migration) (the KRaft controllers' record of the migration), C(/controller)
    and C(/controller_epoch).
  - With I(delete_empty_migration), deletes a C(/migration) that holds no data. Kafka's ZooKeeper security
    migration tool (zookeeper-security-migration, secure_cluster.yml's ACL step) leaves one, and the migration then
    hangs (KAFKA-19480; Kafka 3.9's docs give the same deletion). A C(/migration) with data is never deleted here.
  - For a rollback (rollback_kraft_migration.yml, in the order Kafka 3.9's docs give), I(controller_epoch) sets
    C(/controller_epoch) (module_utils/kafka_migration.raised_controller_epoch decides the value);
    I(delete_kraft_controller) deletes C(/controller) when a KRaft controller holds it (its kraftControllerEpoch is
    not -1), so that a ZooKeeper-mode broker can be elected; I(delete_migration) deletes C(/migration)
    (the playbook saves its data first).
requirements:
  - kazoo on the host that runs the module (usually the controller)
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.attributes
attributes:
  check_mode:
    support: full
    details: Reads the znodes and reports whether it would change them; changes nothing.
  diff_mode:
    support: none
options:
  delete_empty_migration:
    description: Delete /migration when it holds no data.
    type: bool
    default: false
  controller_epoch:
    description: Set /controller_epoch (where it exists) to this value.
    type: int
  delete_kraft_controller:
    description: Delete a KRaft controller's /controller.
    type: bool
    default: false
  delete_migration:
    description: Delete /migration.
    type: bool
    default: false
seealso:
  - plugin: kafkaops.toolkit.migration_raised_controller_epoch
    plugin_type: filter
    description: The /controller_epoch a rollback writes with I(controller_epoch).
  - plugin: kafkaops.toolkit.migration_rollback_plan
    plugin_type: filter
    description: The rollback's steps, these znodes' among them.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Read the migration's znodes, and delete an empty /migration
  kafkaops.toolkit.kafka_migration_znodes:
    delete_empty_migration: true
  delegate_to: localhost
  register: znodes

- name: Raise /controller_epoch above the KRaft controllers' epoch before a rollback
  kafkaops.toolkit.kafka_migration_znodes:
    controller_epoch: "{{ epoch }}"
  vars:
    epoch: "{{ znodes.controller_epoch | kafkaops.toolkit.migration_raised_controller_epoch(znodes.migration) }}"
  when: epoch is not none
  delegate_to: localhost
"""

RETURN = r"""
migration:
  description: /migration's data (kraft_controller_id, kraft_controller_epoch, kraft_metadata_offset, ...), or null.
  returned: always
  type: dict
  sample: {version: 0, kraft_metadata_offset: 1432, kraft_controller_id: 3000, kraft_metadata_epoch: 5,
           kraft_controller_epoch: 5}
migration_empty:
  description: Whether /migration existed without data.
  returned: always
  type: bool
  sample: false
controller:
  description: /controller's data (brokerid; kraftControllerEpoch when a KRaft controller holds it), or null.
  returned: always
  type: dict
  sample: {version: 2, brokerid: 3000, timestamp: "1732456789012", kraftControllerEpoch: 5}
controller_epoch:
  description: /controller_epoch, or null.
  returned: always
  type: int
  sample: 4
"""

import json

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    CONNECTION_ARGS,
    check_addresses,
    zk_client,
)


def _read(zk, path):
    """(exists, data parsed as JSON or None when empty)."""
    if not zk.exists(path):
        return False, None
    data = zk.get(path)[0]
    return True, (json.loads(data) if data and data.strip() else None)


def main():
    module = AnsibleModule(argument_spec=dict(CONNECTION_ARGS, delete_empty_migration=dict(type="bool", default=False),
                                              controller_epoch=dict(type="int"),
                                              delete_kraft_controller=dict(type="bool", default=False),
                                              delete_migration=dict(type="bool", default=False)),
                           supports_check_mode=True)
    check_addresses(module.params)
    zk = zk_client(module.params)
    try:
        exists, migration = _read(zk, "/migration")
        _, controller = _read(zk, "/controller")
        _, epoch = _read(zk, "/controller_epoch")
        empty = exists and migration is None
        p = module.params
        changes = []
        if exists and (p["delete_migration"] or (empty and p["delete_empty_migration"])):
            changes.append(lambda: zk.delete("/migration"))
        # a ZooKeeper-mode controller writes kraftControllerEpoch -1
        if (controller or {}).get("kraftControllerEpoch", -1) >= 0 and p["delete_kraft_controller"]:
            changes.append(lambda: zk.delete("/controller"))
        if p["controller_epoch"] is not None and epoch is not None and p["controller_epoch"] != epoch:
            changes.append(lambda: zk.set("/controller_epoch", str(p["controller_epoch"]).encode()))
        if not module.check_mode:
            for change in changes:
                change()
        changed = bool(changes)
    finally:
        zk.stop()
        zk.close()
    module.exit_json(changed=changed, migration=migration, migration_empty=empty, controller=controller,
                     controller_epoch=epoch)


if __name__ == "__main__":
    main()
