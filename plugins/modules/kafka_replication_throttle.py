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
  - Check mode shows the plan and changes nothing.
extends_documentation_fragment: [kafka_connection]
options:
  broker_id: {description: The broker whose replicas are rebuilt., type: int, required: true}
  rate: {description: Bytes per second, for C(state=present)., type: int}
  state: {description: Set or remove the throttle., type: str, choices: [present, absent], default: present}
  added: {description: The C(added) result of the C(state=present) run, for C(state=absent)., type: dict}
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
rates:
  description: Broker id -> the throttle rates set on it afterwards (bytes/s).
  returned: always
  type: dict
"""

from ansible.module_utils import kafka_throttle as kt
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.kafka_connection import CONNECTION_ARGS, admin_client, read_partitions

_RATES = (kt.LEADER_RATE, kt.FOLLOWER_RATE)


def _describe(admin, restype, name, keys, dynamic_source, timeout):
    """The given configs of one resource, None where not set dynamically on it."""
    from confluent_kafka.admin import ConfigResource
    resource = ConfigResource(restype, str(name))
    entries = admin.describe_configs([resource])[resource].result(timeout)
    def dynamic(entry):  # the client gives the source as a plain int
        return getattr(entry.source, "value", entry.source) == dynamic_source.value
    return {k: entries[k].value if k in entries and dynamic(entries[k]) else None for k in keys}


def read_configs(admin, topics, brokers, timeout):
    from confluent_kafka.admin import ConfigSource, ResourceType
    topic_configs = {t: _describe(admin, ResourceType.TOPIC, t, (kt.LEADER_REPLICAS, kt.FOLLOWER_REPLICAS),
                                  ConfigSource.DYNAMIC_TOPIC_CONFIG, timeout) for t in topics}
    broker_configs = {b: _describe(admin, ResourceType.BROKER, b, _RATES, ConfigSource.DYNAMIC_BROKER_CONFIG,
                                   timeout) for b in brokers}
    return topic_configs, broker_configs


def apply(admin, plan, topic_op, broker_op, rate, timeout):
    """Append/subtract the topic entries, delete the topic lists to delete, set/delete the broker rates."""
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType
    resources = [ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry(name, ",".join(entries), incremental_operation=topic_op)
        for name, entries in configs.items()]) for topic, configs in plan["topics"].items()]
    value = None if rate is None else str(rate)
    resources += [ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry(name, None, incremental_operation=AlterConfigOpType.DELETE) for name in names])
        for topic, names in plan.get("delete", {}).items()]
    resources += [ConfigResource(ResourceType.BROKER, str(broker), incremental_configs=[
        ConfigEntry(name, value, incremental_operation=broker_op) for name in names])
        for broker, names in plan["brokers"].items()]
    for resource in resources:  # one broker resource per request, as the AdminClient requires
        admin.incremental_alter_configs([resource])[resource].result(timeout)


def main():
    module = AnsibleModule(
        argument_spec=dict(CONNECTION_ARGS, broker_id=dict(type="int", required=True), rate=dict(type="int"),
                           state=dict(type="str", choices=["present", "absent"], default="present"),
                           added=dict(type="dict")),
        required_if=[("state", "present", ["rate"]), ("state", "absent", ["added"])],
        supports_check_mode=True)
    p = module.params
    from confluent_kafka.admin import AlterConfigOpType as Op
    admin, timeout = admin_client(p), p["request_timeout"]
    try:
        if p["state"] == "present":
            wanted = kt.wanted_throttles(read_partitions(admin, timeout), p["broker_id"])
            topic_configs, broker_configs = read_configs(admin, wanted[0], wanted[1], timeout)
            plan = kt.plan_throttle(wanted, topic_configs, broker_configs)
            if not module.check_mode:
                apply(admin, plan, Op.APPEND, Op.SET, p["rate"], timeout)
            result = dict(added=plan)
        else:
            added = {"topics": p["added"].get("topics", {}),
                     "brokers": {int(b): names for b, names in p["added"].get("brokers", {}).items()}}
            topic_configs, broker_configs = read_configs(admin, added["topics"], added["brokers"], timeout)
            plan = kt.plan_removal(added, topic_configs, broker_configs)
            if not module.check_mode:
                apply(admin, plan, Op.SUBTRACT, Op.DELETE, None, timeout)
            result = dict(removed=plan)
        brokers = sorted({int(b) for b in plan["brokers"]})
        rates = read_configs(admin, [], brokers, timeout)[1] if brokers else {}
    except Exception as exc:
        module.fail_json(msg=f"replication throttle ({p['state']}) for broker {p['broker_id']} failed: {exc}")
    module.exit_json(changed=not kt.is_empty(plan), rates=rates, **result)


if __name__ == "__main__":
    main()
