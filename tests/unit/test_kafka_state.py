"""The pure cluster-state decisions, on hand-written states."""

import kafka_state

FIELDS = ("topic", "partition", "leader", "replicas", "isr")


def _state(partitions, brokers=(1, 2, 3), min_insync=None, controller=1):
    return {
        "cluster_id": "c1",
        "controller_id": controller,
        "brokers": {b: {"host": f"kafka{b}", "port": 9092} for b in brokers},
        "partitions": [dict(zip(FIELDS, p, strict=True)) for p in partitions],
        "min_insync": min_insync or {},
    }


HEALTHY = [("orders", 0, 1, [1, 2, 3], [1, 2, 3]), ("orders", 1, 2, [2, 3, 1], [2, 3, 1])]


def test_healthy_cluster_has_nothing_to_report():
    state = _state(HEALTHY, min_insync={"orders": 2})
    assert kafka_state.under_replicated(state) == []
    assert kafka_state.under_min_isr(state) == []
    assert kafka_state.offline(state) == []
    assert kafka_state.broker_health(state, 2) == {"registered": True, "lagging": [], "healthy": True}


def test_broker_missing_from_isr_is_lagging_and_partition_under_replicated():
    state = _state([("orders", 0, 1, [1, 2, 3], [1, 3]), ("orders", 1, 2, [2, 3, 1], [2, 3, 1]),
                    ("audit", 0, 3, [3, 1], [3])], min_insync={"orders": 2, "audit": 2})
    assert kafka_state.lagging_partitions(state, 2) == ["orders-0"]
    assert kafka_state.under_replicated(state) == ["orders-0", "audit-0"]
    assert kafka_state.under_min_isr(state) == ["audit-0"]
    assert kafka_state.broker_health(state, 2)["healthy"] is False


def test_unregistered_broker_is_not_healthy_even_without_partitions():
    state = _state([], brokers=(1, 3))
    assert kafka_state.broker_health(state, 2) == {"registered": False, "lagging": [], "healthy": False}


def test_partition_led_by_a_dead_broker_or_none_is_offline():
    state = _state([("orders", 0, -1, [2], []), ("orders", 1, 2, [2, 3], [2]), ("orders", 2, 3, [3], [3])],
                   brokers=(1, 3))
    assert kafka_state.offline(state) == ["orders-0", "orders-1"]


def test_topic_without_known_min_insync_counts_min_isr_of_one():
    state = _state([("t", 0, 1, [1, 2, 3], [1]), ("t", 1, 1, [1, 2, 3], [])])
    assert kafka_state.under_min_isr(state) == ["t-1"]


def test_summary_counts():
    state = _state([("a", 0, 1, [1, 2, 3], [1, 2]), ("b", 0, -1, [2], [])], min_insync={"a": 2, "b": 2},
                   controller=3)
    assert kafka_state.summary(state) == {
        "cluster_id": "c1", "controller_id": 3, "live_brokers": [1, 2, 3], "topics": 2, "partitions": 2,
        "under_replicated": 2, "under_min_isr": 1, "offline": 1,
    }
