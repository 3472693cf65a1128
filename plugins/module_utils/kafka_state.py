"""Pure decisions on a cluster state, unit-tested on hand-written states.

A state is a dict: controller_id, brokers {id: {...}} (live, as registered in ZooKeeper), cluster_id,
partitions [{topic, partition, leader, replicas, isr}] and min_insync {topic: int}.
"""


def _name(p):
    return f"{p['topic']}-{p['partition']}"


def under_replicated(state):
    return [_name(p) for p in state["partitions"] if len(p["isr"]) < len(p["replicas"])]


def offline(state):
    """Partitions without a live leader."""
    live = set(state["brokers"])
    return [_name(p) for p in state["partitions"] if p["leader"] not in live]


def under_min_isr(state):
    return [_name(p) for p in state["partitions"]
            if len(p["isr"]) < state["min_insync"].get(p["topic"], 1)]


def lagging_partitions(state, broker_id):
    """Partitions that broker_id hosts but whose ISR it is not (yet) in."""
    return [_name(p) for p in state["partitions"]
            if broker_id in p["replicas"] and broker_id not in p["isr"]]


def broker_health(state, broker_id):
    """Whether broker_id is fully back: registered (a broker registers in ZooKeeper only after its
    log recovery) and in the ISR of every partition it hosts."""
    registered = broker_id in state["brokers"]
    lagging = lagging_partitions(state, broker_id)
    return {"registered": registered, "lagging": lagging, "healthy": registered and not lagging}


def summary(state):
    """The counts an operator looks at first."""
    return {
        "cluster_id": state["cluster_id"],
        "controller_id": state["controller_id"],
        "live_brokers": sorted(state["brokers"]),
        "topics": len({p["topic"] for p in state["partitions"]}),
        "partitions": len(state["partitions"]),
        "under_replicated": len(under_replicated(state)),
        "under_min_isr": len(under_min_isr(state)),
        "offline": len(offline(state)),
    }


def only_in_sync_replica(state, broker_id):
    """Partitions of broker_id with no other live broker in their ISR: their data exists, as far as
    Kafka knows, only on broker_id (offline if it is down). Wiping or replacing it loses that data."""
    return [_name(p) for p in state["partitions"] if broker_id in p["replicas"]
            and not any(r != broker_id and r in state["brokers"] for r in p["isr"])]


def stop_check(state, broker_id):
    """Whether broker_id may stop now without any partition falling below min.insync.replicas.

    Stopping B shrinks the ISR of every partition whose ISR holds B; that is refused while such an ISR
    is no larger than min.insync.replicas. A partition whose replication factor is not above
    min.insync.replicas falls below it whenever any replica stops: it is reported apart and never
    blocks, or it would hold every roll forever.
    """
    blocking, rf_too_low = [], []
    for p in state["partitions"]:
        if broker_id not in p["isr"]:
            continue
        min_isr = state["min_insync"].get(p["topic"], 1)
        if len(p["replicas"]) <= min_isr:
            rf_too_low.append(_name(p))
        elif len(p["isr"]) <= min_isr:
            blocking.append(_name(p))
    return {"safe": not blocking, "blocking": blocking, "rf_not_above_min_isr": rf_too_low,
            "only_in_sync_replica": only_in_sync_replica(state, broker_id)}


def next_to_restart(state, remaining, restart_first=()):
    """The broker of `remaining` (ids) to restart next: those in restart_first (in that order), then
    brokers that are down or out of an ISR (lowest id first), then the others by id, and the active
    controller last. Call it again before every step: the controller moves."""
    for broker_id in restart_first:
        if broker_id in remaining:
            return broker_id
    ordered = sorted(remaining)
    unhealthy = [b for b in ordered if not broker_health(state, b)["healthy"]]
    if unhealthy:
        return unhealthy[0]
    others = [b for b in ordered if b != state["controller_id"]]
    return (others or ordered)[0]


def restart_plan(state, brokers, restart_first=()):
    """The whole order next_to_restart gives if the cluster stayed as it is now (for check mode)."""
    remaining, order = list(brokers), []
    while remaining:
        broker_id = next_to_restart(state, remaining, restart_first)
        order.append(broker_id)
        remaining.remove(broker_id)
    return order


def not_preferred_leader(state):
    """Partitions whose leader is not their preferred (first) replica."""
    return [_name(p) for p in state["partitions"] if p["replicas"] and p["leader"] != p["replicas"][0]]


def preferred_election_plan(state, only=None):
    """Partitions not led by their preferred replica whose preferred replica is in sync (an election can
    move leadership only there), limited to the names in `only` when given."""
    return [_name(p) for p in state["partitions"]
            if p["replicas"] and p["leader"] != p["replicas"][0] and p["replicas"][0] in p["isr"]
            and (only is None or _name(p) in only)]


def partition_names(names, max_topics=10):
    """Partition names grouped by topic with consecutive numbers as ranges, for messages people read:
    ['t-0', 't-1', 't-2', 't-5', 'u-1'] -> 't[0-2,5], u[1]'."""
    by_topic = {}
    for name in names:
        topic, _, number = name.rpartition("-")
        by_topic.setdefault(topic, []).append(int(number))
    parts = []
    for topic in sorted(by_topic)[:max_topics]:
        numbers, ranges = sorted(by_topic[topic]), []
        start = prev = numbers[0]
        for n in numbers[1:] + [None]:
            if n is not None and n == prev + 1:
                prev = n
                continue
            ranges.append(str(start) if start == prev else f"{start}-{prev}")
            if n is not None:
                start = prev = n
        parts.append(f"{topic}[{','.join(ranges)}]")
    more = len(by_topic) - max_topics
    return ", ".join(parts) + (f" (+{more} more topics)" if more > 0 else "")
