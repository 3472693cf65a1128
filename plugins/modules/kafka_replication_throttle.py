#!/usr/bin/python
"""Ansible module: set, or remove, the replication throttle for rebuilding one broker's replicas."""

DOCUMENTATION = r"""
module: kafka_replication_throttle
short_description: Throttle the replication that rebuilds one broker, and remove exactly that throttle
description:
  - With C(state=present), throttles only the replicas being rebuilt on I(broker_id). The topics'
    C(follower.replication.throttled.replicas) get that broker's partitions and
    C(leader.replication.throttled.replicas) the other replicas of those partitions (merged with the
    entries already there), and the brokers involved get C(follower.replication.throttled.rate) /
    C(leader.replication.throttled.rate) = I(rate) where no rate is set yet. Returns C(added), exactly
    what it added.
  - With C(state=absent), takes away what a C(state=present) run added (pass its C(added)) and nothing
    else; throttles that were there before stay.
  - A running broker's rates are set through the AdminClient; a stopped one's (a broker about to be
    replaced or rebuilt) through ZooKeeper with Kafka's ConfigCommand, which Kafka allows only then.
  - Check mode shows the plan and changes nothing.
extends_documentation_fragment: [kafka_connection]
options:
  broker_id: {description: The broker whose replicas are rebuilt., type: int, required: true}
  rate: {description: Bytes per second, for C(state=present)., type: int}
  state: {description: Set or remove the throttle., type: str, choices: [present, absent], default: present}
  added: {description: The C(added) result of the C(state=present) run, for C(state=absent)., type: dict}
  kafka_tools_home:
    description:
      - A Kafka distribution (with C(libs/)) on the machine running the module, to run Kafka's own tools.
      - Needed to throttle a broker that is not running (its rate is written through ZooKeeper, as
        C(kafka-configs.sh --zookeeper) does), and for C(bytes_to_copy) / C(eta_seconds).
    type: path
author: Kafka ops toolkit
"""

EXAMPLES = r"""
- name: Throttle the rebuild of broker 3 to 10 MB/s
  kafka_replication_throttle:
    broker_id: 3
    rate: 10485760
    bootstrap_servers: kafka1:9092
    zookeeper_connect: zk1:2181/kafka
  delegate_to: localhost
  register: throttle

- name: Remove it again (in an always section)
  kafka_replication_throttle:
    broker_id: 3
    state: absent
    added: "{{ throttle.added }}"
    bootstrap_servers: kafka1:9092
    zookeeper_connect: zk1:2181/kafka
  delegate_to: localhost
"""

RETURN = r"""
added:
  description: What state=present added (topics -> config -> entries; brokers -> configs).
  returned: state=present
  type: dict
removed: {description: What state=absent took away, same shape., returned: state=absent, type: dict}
bytes_to_copy:
  description:
    - What the broker copies when it starts on empty log dirs - per partition, the largest copy on its
      other replicas (with I(kafka_tools_home)).
  returned: state=present and kafka_tools_home given
  type: int
eta_seconds: {description: I(bytes_to_copy) / I(rate)., returned: with bytes_to_copy, type: int}
summary:
  description: What was added (or removed), in one line.
  returned: always
  type: str
  sample: follower rate on broker(s) 3; leader rate on broker(s) 1,2; throttled replicas on 4 topic(s)
rates:
  description: Broker id -> the throttle rates set on it afterwards (bytes/s).
  returned: always
  type: dict
"""

import json

from ansible.module_utils import kafka_throttle as kt
from ansible.module_utils import kafka_tools
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.kafka_connection import (
    CONNECTION_ARGS,
    admin_client,
    read_partitions,
    read_zk_registry,
    zk_client,
)

_RATES = (kt.LEADER_RATE, kt.FOLLOWER_RATE)


def _describe(admin, restype, name, keys, dynamic_source, timeout):
    """The given configs of one resource, None where not set dynamically on it."""
    from confluent_kafka.admin import ConfigResource
    resource = ConfigResource(restype, str(name))
    entries = admin.describe_configs([resource])[resource].result(timeout)
    def dynamic(entry):  # the client gives the source as a plain int
        return getattr(entry.source, "value", entry.source) == dynamic_source.value
    return {k: entries[k].value if k in entries and dynamic(entries[k]) else None for k in keys}


def _stopped_broker_rates(zk, broker):
    """A stopped broker's dynamic rates, from its config znode (what ConfigCommand --zookeeper writes)."""
    path = f"/config/brokers/{broker}"
    config = json.loads(zk.get(path)[0]).get("config", {}) if zk.exists(path) else {}
    return {k: config.get(k) for k in _RATES}


def read_configs(admin, zk, live, topics, brokers, timeout):
    from confluent_kafka.admin import ConfigSource, ResourceType
    topic_configs = {t: _describe(admin, ResourceType.TOPIC, t, (kt.LEADER_REPLICAS, kt.FOLLOWER_REPLICAS),
                                  ConfigSource.DYNAMIC_TOPIC_CONFIG, timeout) for t in topics}
    broker_configs = {b: _describe(admin, ResourceType.BROKER, b, _RATES, ConfigSource.DYNAMIC_BROKER_CONFIG,
                                   timeout) if b in live else _stopped_broker_rates(zk, b) for b in brokers}
    return topic_configs, broker_configs


def apply(admin, params, live, plan, topic_op, broker_op, rate):
    """Append/subtract the topic entries, delete the topic lists to delete, set/delete the broker rates
    (a running broker through the AdminClient, a stopped one through ZooKeeper)."""
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType
    timeout = params["request_timeout"]
    resources = [ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry(name, ",".join(entries), incremental_operation=topic_op)
        for name, entries in configs.items()]) for topic, configs in plan["topics"].items()]
    resources += [ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry(name, None, incremental_operation=AlterConfigOpType.DELETE) for name in names])
        for topic, names in plan.get("delete", {}).items()]
    value = None if rate is None else str(rate)
    resources += [ConfigResource(ResourceType.BROKER, str(broker), incremental_configs=[
        ConfigEntry(name, value, incremental_operation=broker_op) for name in names])
        for broker, names in plan["brokers"].items() if broker in live]
    for resource in resources:  # one broker resource per request, as the AdminClient requires
        admin.incremental_alter_configs([resource])[resource].result(timeout)
    for broker, names in plan["brokers"].items():
        if broker not in live:
            kafka_tools.alter_stopped_broker_config(
                params["kafka_tools_home"], params["zookeeper_connect"], broker,
                {n: value for n in names} if value else {}, [] if value else names, timeout)


def copy_estimate(params, partitions, live, rate):
    """What the broker copies when it starts on empty log dirs, and the ETA at the throttle rate (when
    the sizes can be read)."""
    if not params["kafka_tools_home"]:
        return {}
    others = sorted(live - {params["broker_id"]})
    sizes = kafka_tools.read_log_dir_sizes(params["kafka_tools_home"], params["bootstrap_servers"], others,
                                           params["request_timeout"])
    total = kafka_tools.bytes_to_copy(partitions, sizes, params["broker_id"])[0]
    return {"bytes_to_copy": total, "bytes_to_copy_human": kafka_tools.human_bytes(total),
            "eta_seconds": round(total / rate)}


def main():
    module = AnsibleModule(
        argument_spec=dict(CONNECTION_ARGS, broker_id=dict(type="int", required=True), rate=dict(type="int"),
                           state=dict(type="str", choices=["present", "absent"], default="present"),
                           added=dict(type="dict"), kafka_tools_home=dict(type="path")),
        required_if=[("state", "present", ["rate"]), ("state", "absent", ["added"])],
        supports_check_mode=True)
    p = module.params
    from confluent_kafka.admin import AlterConfigOpType as Op
    admin, timeout = admin_client(p), p["request_timeout"]
    zk = None
    try:
        zk = zk_client(p)
        live = set(read_zk_registry(zk)["brokers"])
        if p["state"] == "present":
            partitions = read_partitions(admin, timeout)
            wanted = kt.wanted_throttles(partitions, p["broker_id"])
            topic_configs, broker_configs = read_configs(admin, zk, live, wanted[0], wanted[1], timeout)
            plan = kt.plan_throttle(wanted, topic_configs, broker_configs)
            result = dict(added=plan, **copy_estimate(p, partitions, live, p["rate"]))
            if not module.check_mode:
                apply(admin, p, live, plan, Op.APPEND, Op.SET, p["rate"])
        else:
            added = {"topics": p["added"].get("topics", {}),
                     "brokers": {int(b): names for b, names in p["added"].get("brokers", {}).items()}}
            topic_configs, broker_configs = read_configs(admin, zk, live, added["topics"], added["brokers"],
                                                         timeout)
            plan = kt.plan_removal(added, topic_configs, broker_configs)
            if not module.check_mode:
                apply(admin, p, live, plan, Op.SUBTRACT, Op.DELETE, None)
            result = dict(removed=plan)
        brokers = sorted({int(b) for b in plan["brokers"]})
        rates = read_configs(admin, zk, live, [], brokers, timeout)[1] if brokers else {}
    except Exception as exc:
        module.fail_json(msg=f"replication throttle ({p['state']}) for broker {p['broker_id']} failed: {exc}")
    finally:
        if zk is not None:
            zk.stop()
            zk.close()
    module.exit_json(changed=not kt.is_empty(plan), rates=rates, summary=kt.describe(plan), **result)


if __name__ == "__main__":
    main()
