#!/usr/bin/python
"""Ansible module: set, or remove, the replication throttle for rebuilding one broker's replicas."""

DOCUMENTATION = r"""
module: kafka_replication_throttle
short_description: Throttle the replication that rebuilds one broker, and remove exactly that throttle
version_added: 0.10.0
description:
  - With C(state=present), throttles only the replicas being rebuilt on I(broker_id). The topics'
    C(follower.replication.throttled.replicas) get that broker's partitions and
    C(leader.replication.throttled.replicas) the other replicas of those partitions (merged with the
    entries already there), and the brokers involved get C(follower.replication.throttled.rate) /
    C(leader.replication.throttled.rate) = I(rate) where no rate is set yet. Returns C(added), exactly
    what it added.
  - With C(state=absent), takes away what a C(state=present) run added (its record, or C(added)) and
    nothing else; throttles that were there before stay. It then waits, up to I(request_timeout), until no
    running broker shows a rate it took away (a broker applies a change seconds after it is accepted), and
    fails, keeping the record, if one still does.
  - With I(record_dir), a C(state=present) run writes what it is about to add to
    C(<record_dir>/<cluster id>/broker-<id>.json) before it writes anything to the cluster (merged with a
    record an earlier, failed run left), and C(state=absent) removes what the record says and then the
    record. A run that fails halfway or is killed leaves the record, so a rerun or
    playbooks/remove_throttles.yml removes exactly that. C(state=absent) without I(broker_id) removes every
    record of the cluster.
  - A running broker's rates are set through the AdminClient; a stopped one's (a broker about to be
    replaced or rebuilt) through ZooKeeper with Kafka's ConfigCommand, which Kafka allows only then. On a KRaft
    cluster (I(zookeeper_connect) empty) a stopped broker's rates cannot be set, so they are returned as
    C(deferred), neither recorded nor set, and C(state=absent) fails, keeping the record, while a broker it must
    clear is stopped.
requirements:
  - confluent-kafka and kazoo on the host that runs the module (usually the controller)
  - Java and a Kafka distribution there (I(kafka_tools_home)) to throttle a stopped broker
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.attributes
attributes:
  check_mode:
    support: full
    details: Returns what it would add or remove (C(added), C(removed), C(summary)); writes neither the record nor
      the cluster's configs.
  diff_mode:
    support: none
options:
  broker_id:
    description: The broker whose replicas are rebuilt (required with I(state=present)).
    type: int
  rate:
    description: Bytes per second (required with I(state=present)).
    type: int
  state:
    description: Set or remove the throttle.
    type: str
    choices: [present, absent]
    default: present
  added:
    description: The C(added) result of a C(state=present) run, for C(state=absent) (or give I(record_dir)).
    type: dict
  record_dir:
    description: Directory on the controller for the records of what each run added (per cluster id).
    type: path
  kafka_tools_home:
    description:
      - A Kafka distribution (with C(libs/)) on the machine running the module, to run Kafka's own tools.
      - Needed to throttle a broker that is not running (its rate is written through ZooKeeper, as
        C(kafka-configs.sh --zookeeper) does), and for C(bytes_to_copy) / C(eta_seconds).
    type: path
  estimate:
    description:
      - With I(kafka_tools_home), read the other replicas' sizes for C(bytes_to_copy) / C(eta_seconds) (Kafka's
        LogDirsCommand, a JVM run of seconds). C(false) when a check-mode run of the plan already estimated them.
    type: bool
    default: true
seealso:
  - module: kafkaops.toolkit.kafka_recovery_plan
    description: The decision to rebuild or replace the broker this throttle serves.
  - module: kafkaops.toolkit.kafka_broker_wait_healthy
    description: Waits for the throttled copy to finish, with the bytes left and an ETA.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Throttle the rebuild of broker 3 to 10 MB/s, recording what is added
  kafkaops.toolkit.kafka_replication_throttle:
    broker_id: 3
    rate: 10485760
    record_dir: /var/lib/kafka-kit/throttles
    bootstrap_servers: kafka1:9092
    zookeeper_connect: zk1:2181/kafka
  delegate_to: localhost
  register: throttle

- name: Remove it again (in an always section)
  kafkaops.toolkit.kafka_replication_throttle:
    broker_id: 3
    state: absent
    record_dir: /var/lib/kafka-kit/throttles
    bootstrap_servers: kafka1:9092
    zookeeper_connect: zk1:2181/kafka
  delegate_to: localhost
"""

RETURN = r"""
added:
  description:
    - What C(state=present) added, with what an earlier run's record holds - per topic, the throttled-replicas
      entries; per broker, the rates.
  returned: when state=present
  type: dict
  sample:
    topics:
      orders:
        follower.replication.throttled.replicas: ["0:3", "4:3"]
        leader.replication.throttled.replicas: ["0:1", "0:2", "4:1", "4:2"]
    brokers:
      "1": [leader.replication.throttled.rate]
      "2": [leader.replication.throttled.rate]
      "3": [follower.replication.throttled.rate]
record:
  description: The record file written (with I(record_dir), not in check mode).
  returned: when state=present, record_dir is given and not in check mode
  type: str
  sample: /var/lib/kafka-kit/throttles/aBcD1234QwErTy5678ZxCv/broker-3.json
records:
  description: The records whose throttles C(state=absent) removed; the files are deleted (not in check mode).
  returned: when state=absent
  type: list
  elements: str
  sample: [/var/lib/kafka-kit/throttles/aBcD1234QwErTy5678ZxCv/broker-3.json]
removed:
  description:
    - What C(state=absent) took away - topic entries (C(topics)), throttled-replicas configs deleted because
      nothing else was left in them (C(delete)) and broker rates (C(brokers)).
  returned: when state=absent
  type: dict
  sample:
    topics: {}
    delete:
      orders: [follower.replication.throttled.replicas, leader.replication.throttled.replicas]
    brokers:
      "1": [leader.replication.throttled.rate]
      "2": [leader.replication.throttled.rate]
      "3": [follower.replication.throttled.rate]
bytes_to_copy:
  description:
    - What the broker copies when it starts on empty log dirs - per partition, the largest copy on its
      other replicas (with I(kafka_tools_home)).
  returned: when state=present, kafka_tools_home is given and estimate is true
  type: int
  sample: 1073741824
bytes_to_copy_human:
  description: I(bytes_to_copy) for people.
  returned: with bytes_to_copy
  type: str
  sample: 1.0 GiB
eta_seconds:
  description: I(bytes_to_copy) / I(rate).
  returned: with bytes_to_copy
  type: int
  sample: 102
summary:
  description: What was added (or removed), in one line.
  returned: always
  type: str
  sample: follower rate on broker(s) 3; leader rate on broker(s) 1,2; throttled replicas on 4 topic(s)
rates:
  description: Broker id -> the throttle rates set on it afterwards (bytes/s).
  returned: always
  type: dict
  sample:
    "1": {leader.replication.throttled.rate: "10485760", follower.replication.throttled.rate: null}
    "3": {leader.replication.throttled.rate: null, follower.replication.throttled.rate: "10485760"}
deferred:
  description:
    - Stopped brokers of a KRaft cluster whose rates could not be set yet (Kafka's tools reach a KRaft broker's
      configs only through that broker); run state=present again once they run. The leaders' rates throttle
      their fetches meanwhile.
  returned: when state=present
  type: list
  elements: int
  sample: []
"""

import json
import os
import re
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_throttle as kt
from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_tools
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    CONNECTION_ARGS,
    admin_client,
    admin_config,
    describe_error,
    read_admin_registry,
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


# Kafka 3.9's clients reach a KRaft broker's own configs only through that broker (the AdminClient sends a
# broker resource to that node id, also with --bootstrap-controller; checked on the lab): a stopped broker's
# rates can be neither read nor written (kafka_throttle.defer_stopped, stopped_to_clear).
def _stopped_broker_rates(zk, broker):
    """A stopped broker's dynamic rates, from its config znode (what ConfigCommand --zookeeper writes); on a KRaft
    cluster (no zk) unknown: none."""
    path = f"/config/brokers/{broker}"
    config = json.loads(zk.get(path)[0]).get("config", {}) if zk is not None and zk.exists(path) else {}
    return {k: config.get(k) for k in _RATES}


def read_registry(admin, zk, timeout):
    """The live brokers and the cluster id: ZooKeeper's registry, or a KRaft cluster's (no zk) through the brokers."""
    return read_zk_registry(zk) if zk is not None else read_admin_registry(admin, timeout)


def read_configs(admin, zk, live, topics, brokers, timeout):
    from confluent_kafka.admin import ConfigSource, ResourceType
    # a recorded topic may be deleted since
    existing = set(admin.list_topics(timeout=timeout).topics) if topics else set()
    topic_configs = {t: _describe(admin, ResourceType.TOPIC, t, (kt.LEADER_REPLICAS, kt.FOLLOWER_REPLICAS),
                                  ConfigSource.DYNAMIC_TOPIC_CONFIG, timeout) for t in topics if t in existing}
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
        if broker in live:
            continue
        try:
            kafka_tools.alter_stopped_broker_config(
                params["kafka_tools_home"], params, broker,
                {n: value for n in names} if value else {}, [] if value else names, timeout)
        except RuntimeError as exc:
            if "only supported if the affected broker(s) are not running" not in str(exc):
                raise
            # It registered since the registry was read (a broker starting): it runs, the AdminClient reaches it.
            resource = ConfigResource(ResourceType.BROKER, str(broker), incremental_configs=[
                ConfigEntry(name, value, incremental_operation=broker_op) for name in names])
            admin.incremental_alter_configs([resource])[resource].result(timeout)


def copy_estimate(params, partitions, live, rate):
    """What the broker copies when it starts on empty log dirs, and the ETA at the throttle rate (when
    the sizes can be read)."""
    if not params["kafka_tools_home"]:
        return {}
    others = sorted(live - {params["broker_id"]})
    sizes = kafka_tools.read_log_dir_sizes(params["kafka_tools_home"], admin_config(params), others,
                                           params["request_timeout"])
    total = kafka_tools.bytes_to_copy(partitions, sizes, params["broker_id"])[0]
    return {"bytes_to_copy": total, "bytes_to_copy_human": kafka_tools.human_bytes(total),
            "eta_seconds": round(total / rate)}


def record_path(record_dir, cluster_id, broker_id):
    return os.path.join(record_dir, str(cluster_id), f"broker-{broker_id}.json")


def read_record(path):
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def write_record(path, added):
    """Written before the cluster is changed; replaced atomically so a kill never leaves half a record."""
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        json.dump(added, handle, indent=1, sort_keys=True)
    os.replace(path + ".tmp", path)


def records_of(record_dir, cluster_id, broker_id):
    """{broker id: record path} of the cluster's records (one broker's, or all with broker_id None)."""
    folder = os.path.join(record_dir, str(cluster_id))
    names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    matches = [re.fullmatch(r"broker-(\d+)\.json", n) for n in names]
    found = {int(m.group(1)): os.path.join(folder, m.group(0)) for m in matches if m}
    return found if broker_id is None else {b: path for b, path in found.items() if b == broker_id}


def throttle(module, admin, zk, registry, timeout):
    """state=present: plan, record, apply. Returns (plan applied, result)."""
    from confluent_kafka.admin import AlterConfigOpType as Op
    p, live = module.params, set(registry["brokers"])
    partitions = read_partitions(admin, timeout)
    wanted = kt.wanted_throttles(partitions, p["broker_id"])
    topic_configs, broker_configs = read_configs(admin, zk, live, wanted[0], wanted[1], timeout)
    plan = kt.plan_throttle(wanted, topic_configs, broker_configs)
    plan, deferred = kt.defer_stopped(plan, live, bool(p["zookeeper_connect"]))
    result = dict(copy_estimate(p, partitions, live, p["rate"]) if p["estimate"] else {}, deferred=deferred)
    path = record_path(p["record_dir"], registry["cluster_id"], p["broker_id"]) if p["record_dir"] else None
    # What an earlier run of ours added and left (it failed or was killed) is ours too: removed at the end.
    added = kt.merge(read_record(path) if path else {}, plan)
    if not module.check_mode:
        if path:
            write_record(path, added)
            result["record"] = path
        apply(admin, p, live, plan, Op.APPEND, Op.SET, p["rate"])
    return plan, dict(result, added=added)


def wait_removed(admin, zk, live, plan, timeout, interval=1.0):
    """Until no running broker shows a rate the plan took away: a broker applies a config change when its metadata
    (KRaft) or its ZooKeeper watch brings it, which on a broker catching up under the throttle can be seconds after
    the change was accepted. Raises when one still shows it after timeout seconds."""
    pending = {b: names for b, names in plan["brokers"].items() if b in live}
    deadline = time.monotonic() + timeout
    while pending:
        configs = read_configs(admin, zk, live, {}, pending, timeout)[1]
        pending = {b: [n for n in names if configs.get(b, {}).get(n)] for b, names in pending.items()}
        pending = {b: names for b, names in pending.items() if names}
        if pending and time.monotonic() > deadline:
            raise RuntimeError(f"the removed rates still act on broker(s) {sorted(pending)} after {timeout}s: "
                               f"{pending}")
        if pending:
            time.sleep(interval)


def unthrottle(module, admin, zk, registry, timeout):
    """state=absent: remove what `added` and the records say, then the records. Returns (plan, result)."""
    from confluent_kafka.admin import AlterConfigOpType as Op
    p = module.params
    records = records_of(p["record_dir"], registry["cluster_id"], p["broker_id"]) if p["record_dir"] else {}
    added = kt.merge(p["added"] or {}, *(read_record(path) for path in records.values()))
    for attempt in (1, 2):  # a broker starting up moves between "stopped" and "running": read again, once
        live = set((registry if attempt == 1 else read_registry(admin, zk, timeout))["brokers"])
        topic_configs, broker_configs = read_configs(admin, zk, live, added["topics"], added["brokers"], timeout)
        plan = kt.plan_removal(added, topic_configs, broker_configs)
        if module.check_mode:
            break
        try:
            apply(admin, p, live, plan, Op.SUBTRACT, Op.DELETE, None)
            wait_removed(admin, zk, live, plan, timeout)
            break
        except Exception:
            if attempt == 2:
                raise
            time.sleep(10)
    stopped = kt.stopped_to_clear(added, live, bool(p["zookeeper_connect"]))
    if stopped and not module.check_mode:
        raise RuntimeError(
            f"the throttle on the topics is removed, but broker(s) {stopped} do not run: on a KRaft cluster a "
            "broker's rates can be removed only while it runs (Kafka's tools reach its own configs through it)")
    if not module.check_mode:
        for path in records.values():
            os.remove(path)
    return plan, dict(removed=plan, records=sorted(records.values()))


def main():
    module = AnsibleModule(
        argument_spec=dict(CONNECTION_ARGS, broker_id=dict(type="int"), rate=dict(type="int"),
                           state=dict(type="str", choices=["present", "absent"], default="present"),
                           added=dict(type="dict"), kafka_tools_home=dict(type="path"),
                           estimate=dict(type="bool", default=True),
                           record_dir=dict(type="path")),
        required_if=[("state", "present", ["rate", "broker_id"]),
                     ("state", "absent", ["added", "record_dir"], True)],
        supports_check_mode=True)
    p = module.params
    admin, timeout = admin_client(p), p["request_timeout"]
    zk = None
    try:
        zk = zk_client(p) if p["zookeeper_connect"] else None
        registry = read_registry(admin, zk, timeout)
        step = throttle if p["state"] == "present" else unthrottle
        plan, result = step(module, admin, zk, registry, timeout)
        brokers = sorted({int(b) for b in plan["brokers"]})
        rates = read_configs(admin, zk, set(registry["brokers"]), [], brokers, timeout)[1] if brokers else {}
    except Exception as exc:
        who = f"broker {p['broker_id']}" if p["broker_id"] is not None else "every recorded broker"
        module.fail_json(msg=f"replication throttle ({p['state']}) for {who} failed: {describe_error(exc)}"
                             + (f". What this run added is recorded in {p['record_dir']}: rerun, or run "
                                "playbooks/remove_throttles.yml, to remove it" if p["record_dir"] else ""))
    finally:
        if zk is not None:
            zk.stop()
            zk.close()
    module.exit_json(changed=not kt.is_empty(plan), rates=rates, summary=kt.describe(plan), **result)


if __name__ == "__main__":
    main()
