"""The pure cluster-state decisions, on hand-written states."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_state

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


def test_stop_is_safe_while_every_isr_it_is_in_stays_at_min_isr():
    state = _state(HEALTHY, min_insync={"orders": 2})
    assert kafka_state.stop_check(state, 1) == {"safe": True, "blocking": [], "rf_not_above_min_isr": [],
                                                "only_in_sync_replica": []}


def test_stop_is_refused_where_the_isr_is_already_at_min_isr():
    state = _state([("orders", 0, 1, [1, 2, 3], [1, 2]), ("orders", 1, 2, [2, 3, 1], [2, 3, 1]),
                    ("orders", 2, 3, [3, 1, 2], [3, 2])], brokers=(1, 2, 3), min_insync={"orders": 2})
    assert kafka_state.stop_check(state, 2) == {
        "safe": False, "blocking": ["orders-0", "orders-2"], "rf_not_above_min_isr": [],
        "only_in_sync_replica": []}
    # broker 1 is not in the ISR of orders-2, so that one does not care whether 1 stops
    assert kafka_state.stop_check(state, 1)["blocking"] == ["orders-0"]


def test_only_in_sync_replica_counts_live_other_isr_members_only():
    state = _state([("a", 0, 3, [3, 1], [3]),            # 3 alone in the ISR
                    ("a", 1, 1, [1, 3], [1, 3]),         # 1 also in sync
                    ("a", 2, 3, [3, 2], [3, 2]),         # 2 in the ISR but down: only 3 holds it
                    ("a", 3, -1, [2, 1], [2]),           # 3 not a replica
                    ("a", 4, 1, [1, 3], [1])],           # 3 out of sync: the data is on 1
                   brokers=(1, 3))
    assert kafka_state.only_in_sync_replica(state, 3) == ["a-0", "a-2"]
    # a broker that is down: what is offline because of it
    assert kafka_state.only_in_sync_replica(state, 2) == ["a-3"]


def test_stopping_the_only_in_sync_replica_is_refused_with_min_isr_one():
    state = _state([("logs", 0, 3, [3, 1], [3])], min_insync={"logs": 1})
    assert kafka_state.stop_check(state, 3)["blocking"] == ["logs-0"]


def test_topics_whose_rf_is_not_above_min_isr_are_reported_not_blocking():
    state = _state([("tiny", 0, 1, [1, 2], [1, 2]), ("rf1", 0, 1, [1], [1])],
                   min_insync={"tiny": 2, "rf1": 1})
    assert kafka_state.stop_check(state, 1) == {
        "safe": True, "blocking": [], "rf_not_above_min_isr": ["tiny-0", "rf1-0"],
        "only_in_sync_replica": ["rf1-0"]}


def test_restart_order_puts_the_controller_last():
    state = _state(HEALTHY, controller=1)
    assert kafka_state.restart_plan(state, [1, 2, 3]) == [2, 3, 1]


def test_restart_order_starts_with_restart_first_then_unhealthy_brokers():
    state = _state([("orders", 0, 1, [1, 2, 3], [1, 2]), ("orders", 1, 2, [2, 3, 1], [2, 1])],
                   brokers=(1, 2, 3), controller=2)
    assert kafka_state.restart_plan(state, [1, 2, 3]) == [3, 1, 2]
    assert kafka_state.restart_plan(state, [1, 2, 3], restart_first=[1]) == [1, 3, 2]


def test_a_down_broker_goes_first_even_when_it_has_no_partitions():
    state = _state([], brokers=(1, 3), controller=1)
    assert kafka_state.next_to_restart(state, [1, 2, 3]) == 2


def test_next_to_restart_follows_a_moved_controller():
    before, after = _state(HEALTHY, controller=2), _state(HEALTHY, controller=3)
    assert kafka_state.next_to_restart(before, [2, 3]) == 3
    assert kafka_state.next_to_restart(after, [2, 3]) == 2


def test_only_the_controller_left_is_restarted():
    assert kafka_state.next_to_restart(_state(HEALTHY, controller=3), [3]) == 3


def test_partitions_led_by_another_than_their_first_replica():
    state = _state([("a", 0, 2, [1, 2, 3], [1, 2, 3]), ("a", 1, 2, [2, 3, 1], [2, 3, 1]),
                    ("b", 0, -1, [], [])])
    assert kafka_state.not_preferred_leader(state) == ["a-0"]


def test_preferred_election_moves_only_to_an_in_sync_preferred_replica():
    state = _state([("a", 0, 2, [1, 2, 3], [1, 2, 3]), ("a", 1, 3, [1, 2, 3], [2, 3]),
                    ("a", 2, 1, [1, 2, 3], [1, 2, 3]), ("b", 0, 3, [2, 3], [2, 3])])
    assert kafka_state.preferred_election_plan(state) == ["a-0", "b-0"]
    assert kafka_state.preferred_election_plan(state, only=["b-0", "a-1"]) == ["b-0"]


def test_partition_names_group_topics_and_ranges():
    names = ["t-0", "t-1", "t-2", "t-5", "u-1", "__consumer_offsets-3", "t-6", "my-topic-0"]
    assert kafka_state.partition_names(names) == "__consumer_offsets[3], my-topic[0], t[0-2,5-6], u[1]"


def test_partition_names_cut_long_topic_lists():
    assert kafka_state.partition_names(["a-0", "b-0", "c-0"], max_topics=2) == "a[0], b[0] (+1 more topics)"
    assert kafka_state.partition_names([]) == ""
