"""The lag exporter's arithmetic and what it serves (lag_exporter/), on hand-written cluster states."""

from prometheus_client import CollectorRegistry, generate_latest

from lag_exporter import LagCollector, lag_rows

NONE_COMMITTED = -1001  # librdkafka's OFFSET_INVALID: the group has no offset for the partition


def test_lag_is_the_end_less_the_committed_offset_per_group_and_partition():
    committed = {"billing": {("orders", 0): 90, ("orders", 1): 0}, "audit": {("orders", 0): 100}}
    ends = {("orders", 0): 100, ("orders", 1): 7}
    assert lag_rows(committed, ends) == [("audit", "orders", 0, 0), ("billing", "orders", 0, 10),
                                         ("billing", "orders", 1, 7)]


def test_no_committed_offset_and_no_known_end_give_no_row_and_lag_never_goes_below_zero():
    committed = {"new": {("orders", 0): NONE_COMMITTED}, "ahead": {("orders", 0): 120}, "lost": {("gone", 3): 5}}
    assert lag_rows(committed, {("orders", 0): 100}) == [("ahead", "orders", 0, 0)]
    assert lag_rows({}, {}) == []


def _served(read):
    registry = CollectorRegistry()
    registry.register(LagCollector(read))
    return generate_latest(registry).decode()


def test_the_collector_serves_each_row_and_says_the_read_worked():
    text = _served(lambda: ({"billing": {("orders", 2): 40}}, {("orders", 2): 45}))
    assert 'kafka_consumergroup_lag{group="billing",partition="2",topic="orders"} 5.0' in text
    assert "kafka_consumergroup_lag_read_failed 0.0" in text


def test_a_failed_read_serves_no_lag_and_says_so():
    def read():
        raise RuntimeError("no broker answered")
    text = _served(read)
    assert "kafka_consumergroup_lag{" not in text
    assert "kafka_consumergroup_lag_read_failed 1.0" in text
