"""Replication throttles for rebuilding one broker's replicas (pure functions, unit-tested).

Kafka throttles replication with two broker rates (leader.replication.throttled.rate on the brokers
that send, follower.replication.throttled.rate on the one that fetches) that apply only to the
replicas listed in each topic's leader/follower.replication.throttled.replicas ("partition:broker,...",
or "*" for all). A plan throttles exactly the replicas being rebuilt, merged with what is there, and
records what it added so that removing it later takes away that and nothing else: throttles that were
there before stay.
"""

LEADER_REPLICAS = "leader.replication.throttled.replicas"
FOLLOWER_REPLICAS = "follower.replication.throttled.replicas"
LEADER_RATE = "leader.replication.throttled.rate"
FOLLOWER_RATE = "follower.replication.throttled.rate"


def parse_replicas(value):
    """A throttled-replicas value as a set of 'partition:broker' entries ('*' stays '*')."""
    return {entry.strip() for entry in (value or "").split(",") if entry.strip()}


def wanted_throttles(partitions, broker_id):
    """What rebuilding broker_id's replicas needs: per topic, the follower entries of broker_id and the
    leader entries of every other replica (any of them may lead while it copies); per broker, the
    rate it needs (follower on broker_id, leader on the others)."""
    topics, brokers = {}, {}
    for p in partitions:
        if broker_id not in p["replicas"]:
            continue
        entries = topics.setdefault(p["topic"], {LEADER_REPLICAS: set(), FOLLOWER_REPLICAS: set()})
        entries[FOLLOWER_REPLICAS].add(f"{p['partition']}:{broker_id}")
        for other in p["replicas"]:
            if other != broker_id:
                entries[LEADER_REPLICAS].add(f"{p['partition']}:{other}")
                brokers.setdefault(other, set()).add(LEADER_RATE)
        brokers.setdefault(broker_id, set()).add(FOLLOWER_RATE)
    return topics, brokers


def _entry_key(entry):
    partition, _, broker = entry.partition(":")
    return (int(partition), int(broker)) if partition.isdigit() and broker.isdigit() else (-1, -1)


def plan_throttle(wanted, topic_configs, broker_configs):
    """What to add: topic entries not there yet (none where the value is '*': all replicas already are
    throttled) and broker rates not set yet (a rate someone set stays as it is).

    topic_configs: {topic: {config: value}}; broker_configs: {broker id: {config: value or None}}.
    Returns {"topics": {topic: {config: [entries]}}, "brokers": {id: [configs]}} with empty parts left out.
    """
    topics_wanted, brokers_wanted = wanted
    added = {"topics": {}, "brokers": {}}
    for topic, configs in sorted(topics_wanted.items()):
        for name, entries in sorted(configs.items()):
            current = parse_replicas(topic_configs.get(topic, {}).get(name))
            if "*" in current:
                continue
            new = sorted(entries - current, key=_entry_key)
            if new:
                added["topics"].setdefault(topic, {})[name] = new
    for broker, names in sorted(brokers_wanted.items()):
        new = sorted(n for n in names if not broker_configs.get(broker, {}).get(n))
        if new:
            added["brokers"][broker] = new
    return added


def defer_stopped(plan, live, can_set_stopped):
    """(plan without the rates of stopped brokers, their ids) when a stopped broker's rates cannot be set: on a
    KRaft cluster (can_set_stopped false) Kafka's tools reach a broker's own configs only through that broker.
    What is deferred is neither recorded nor set: it is planned again once the broker runs."""
    if can_set_stopped:
        return plan, []
    deferred = sorted(b for b in plan["brokers"] if b not in live)
    return dict(plan, brokers={b: n for b, n in plan["brokers"].items() if b not in deferred}), deferred


def stopped_to_clear(added, live, can_set_stopped):
    """The brokers whose recorded rates a removal cannot take away now (stopped, on a KRaft cluster): the
    record must stay until they run."""
    return [] if can_set_stopped else sorted(b for b in added.get("brokers", {}) if b not in live)


def plan_removal(added, topic_configs, broker_configs):
    """What to take away of what a plan added and is still there: its topic entries (a list left empty
    is deleted rather than kept as "") and its broker rates."""
    removal = {"topics": {}, "brokers": {}, "delete": {}}
    for broker, names in added.get("brokers", {}).items():
        still_set = [n for n in names if broker_configs.get(broker, {}).get(n)]
        if still_set:
            removal["brokers"][broker] = still_set
    for topic, configs in added.get("topics", {}).items():
        for name, entries in configs.items():
            current = parse_replicas(topic_configs.get(topic, {}).get(name))
            present = [e for e in entries if e in current]
            if present and current - set(present):
                removal["topics"].setdefault(topic, {})[name] = present
            elif present:
                removal["delete"].setdefault(topic, []).append(name)
    return removal


def is_empty(plan):
    return not plan.get("topics") and not plan.get("brokers") and not plan.get("delete")


def describe(plan):
    """One line for people: which rates on which brokers, how many topics' replica lists."""
    by_rate = {}
    for broker, names in sorted(plan.get("brokers", {}).items(), key=lambda item: int(item[0])):
        for name in names:
            by_rate.setdefault(name.split(".")[0], []).append(str(broker))
    rates = [f"{kind} rate on broker(s) {','.join(brokers)}" for kind, brokers in sorted(by_rate.items())]
    topics = set(plan.get("topics", {})) | set(plan.get("delete", {}))
    if not rates and not topics:
        return "nothing"
    return "; ".join(rates + [f"throttled replicas on {len(topics)} topic(s)"])


def merge(*plans):
    """One plan holding every topic entry and broker rate of the given plans (an earlier run's record and
    this run's additions)."""
    merged = {"topics": {}, "brokers": {}}
    for plan in plans:
        for topic, configs in (plan or {}).get("topics", {}).items():
            for name, entries in configs.items():
                current = merged["topics"].setdefault(topic, {}).setdefault(name, [])
                current.extend(e for e in entries if e not in current)
        for broker, names in (plan or {}).get("brokers", {}).items():
            current = merged["brokers"].setdefault(int(broker), [])
            current.extend(n for n in names if n not in current)
    for configs in merged["topics"].values():
        for name in configs:
            configs[name] = sorted(configs[name], key=_entry_key)
    merged["brokers"] = {b: sorted(n) for b, n in sorted(merged["brokers"].items())}
    return merged
