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
