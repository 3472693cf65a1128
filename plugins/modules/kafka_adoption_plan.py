#!/usr/bin/python
"""Ansible module: whether a running cluster the kit did not deploy can be adopted, and the inventory layer that
describes it."""

DOCUMENTATION = r"""
module: kafka_adoption_plan
short_description: Decide whether a cluster the kit did not deploy can be adopted, and write nothing yet
version_added: 0.13.0
description:
  - Runs on the controller over what kafka_adoption_facts read on every host of the inventory. Reads the broker
    registry (C(/brokers/ids)) from the ensemble the members run, over its plaintext client port (adoption takes open
    clusters), then applies kafka_adoption.adoption_plan - the refusals, or the kit's variables that describe the
    cluster - and kafka_adoption.inventory_files - the inventory layer's files, refused over a file there it did not
    write.
  - Changes nothing; the playbook writes the files. Returns C(refusals) (each with its rule and a message) and never
    fails on a refusal, so the playbook shows them and stops.
requirements:
  - kazoo on the host that runs the module (usually the controller)
extends_documentation_fragment:
  - kafkaops.toolkit.attributes
  - kafkaops.toolkit.attributes.read_only
options:
  hosts:
    description: Inventory host -> its kafka_adoption_facts result (processes, server, log_dirs, myid, errors).
    type: dict
    required: true
  groups:
    description: C({kafka_broker, zookeeper}) -> the inventory's hosts of each.
    type: dict
    required: true
  kit:
    description:
      - What the inventory says the kit would use - C(addresses) (host -> the address the kit reaches it at),
        C(advertised) (broker host -> the name the kit would advertise), C(ids) (host -> the broker id or myid the
        inventory gives, or null), C(ports) (kit port variable -> port of the listeners the kit opens beside the
        cluster's), C(policy) (the connection role's topic policy, variable -> value; the plan says what the
        takeover changes in it).
    type: dict
    required: true
  layer_dir:
    description: The dir of the inventory layer to write (its existing files are read, never changed here).
    type: path
    required: true
  request_timeout:
    description: Seconds to wait for ZooKeeper.
    type: int
    default: 15
seealso:
  - module: kafkaops.toolkit.kafka_adoption_facts
    description: What runs on each host.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Decide
  kafkaops.toolkit.kafka_adoption_plan:
    hosts: "{{ dict(_hosts | zip(_hosts | map('extract', hostvars, '_adoption_read'))) }}"
    groups: {kafka_broker: "{{ groups.kafka_broker }}", zookeeper: "{{ groups.zookeeper }}"}
    kit: "{{ _kit }}"
    layer_dir: "{{ adopt_inventory_dir }}"
  register: adoption
"""

RETURN = r"""
refusals:
  description: Why the cluster cannot be adopted, each C({rule, message}); empty when it can.
  returned: always
  type: list
  elements: dict
  sample: [{rule: adopt-not-open, message: "the cluster is (partly) secured: kafka1: SASL_SSL is SASL_SSL. ..."}]
files:
  description: The layer's files, path under layer_dir -> text (empty on a refusal).
  returned: always
  type: dict
  sample: {group_vars/all/adopted-cluster.yml: "# Written by ...\n---\nkafka_version: \"3.6.2\"\n"}
registered:
  description: The broker registry read, broker id -> the host its registration advertises.
  returned: always
  type: dict
  sample: {"1": kafka1.example.com}
plan:
  description: What was read and will be written, one line each.
  returned: always
  type: list
  elements: str
  sample: ["kafka1.example.com: broker 1 (apache-kafka.service), Kafka 3.6.2, log dirs /var/lib/kafka/kafka-logs"]
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_adoption
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    describe_error,
    read_zk_registry,
    zk_client,
)


def _registry(module, hosts, groups, kit):
    """{broker id: advertised host} from the ensemble the inventory's members run; {} when nothing tells where it is
    (the plan refuses such hosts anyway)."""
    connect = kafka_adoption.registry_connect(hosts, groups, kit)
    if not connect:
        return {}
    try:
        zk = zk_client({"zookeeper_connect": connect, "request_timeout": module.params["request_timeout"]})
        try:
            brokers = read_zk_registry(zk)["brokers"]
        finally:
            zk.stop()
    except Exception as exc:
        module.fail_json(msg=f"cannot read the broker registry from ZooKeeper at {connect}: {describe_error(exc)}")
    return {broker_id: info["host"] for broker_id, info in brokers.items()}


def _existing(layer_dir):
    found = {}
    for top, _, names in os.walk(layer_dir):
        for name in names:
            path = os.path.join(top, name)
            with open(path, encoding="utf-8", errors="replace") as handle:
                found[os.path.relpath(path, layer_dir)] = handle.read()
    return found


def main():
    module = AnsibleModule(
        argument_spec=dict(hosts=dict(type="dict", required=True), groups=dict(type="dict", required=True),
                           kit=dict(type="dict", required=True), layer_dir=dict(type="path", required=True),
                           request_timeout=dict(type="int", default=15)),
        supports_check_mode=True)
    p = module.params
    registered = _registry(module, p["hosts"], p["groups"], p["kit"])
    plan = kafka_adoption.adoption_plan(p["hosts"], p["groups"], registered, p["kit"])
    files = {"refusals": [], "files": {}}
    if not plan["refusals"]:
        files = kafka_adoption.inventory_files(plan, _existing(p["layer_dir"]))
    module.exit_json(changed=False, refusals=plan["refusals"] + files["refusals"], files=files["files"],
                     registered={str(k): v for k, v in registered.items()},
                     plan=kafka_adoption.plan_lines(p["hosts"], plan))


if __name__ == "__main__":
    main()
