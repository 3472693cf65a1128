"""The recovery timeline (spark/timeline.py) on tiny hand-written ledgers: acknowledgements per second and the
windows without any, counted by hand here."""

import pytest
from pyspark.testing import assertDataFrameEqual

from spark import timeline

LEDGER = "topic string, partition int, offset long, acked_at double"


@pytest.fixture
def ledger(spark_session):
    return lambda *rows: spark_session.createDataFrame(list(rows), LEDGER)


def test_acknowledgements_are_counted_per_whole_second(ledger, spark_session):
    acked = ledger(("t", 0, 0, 100.2), ("t", 0, 1, 100.9), ("t", 1, 0, 101.0), ("t", 1, 1, None))
    assertDataFrameEqual(timeline.per_second(acked, "acked_at", "acknowledged"),
                         spark_session.createDataFrame([(100, 2), (101, 1)], "second long, acknowledged long"))


def test_windows_without_an_acknowledgement_are_the_gaps_longer_than_a_second(ledger, spark_session):
    times = [10.0, 10.5, 11.2, 14.2, 14.3, 15.0, 15.9, 20.4, 21.0]  # gaps: 11.2 -> 14.2 and 15.9 -> 20.4
    acked = ledger(*[("t", i % 2, i, at) for i, at in enumerate(times)])
    by_hand = [(a, b, b - a) for a, b in zip(times, times[1:], strict=False) if b - a > 1]
    assert [(a, b) for a, b, _ in by_hand] == [(11.2, 14.2), (15.9, 20.4)]
    assertDataFrameEqual(timeline.unavailable_windows(timeline.ack_seconds(acked)),
                         spark_session.createDataFrame(by_hand, "start double, end double, seconds double"))


def test_windows_per_partition_see_a_partition_that_stopped_while_others_went_on(ledger, spark_session):
    acked = ledger(("t", 0, 0, 10.0), ("t", 0, 1, 13.5),
                   *[("t", 1, i, at) for i, at in enumerate([10.1, 11.0, 12.0, 13.0, 13.9])])
    seconds = timeline.ack_seconds(acked)
    assert timeline.unavailable_windows(seconds).count() == 0  # the cluster as a whole acknowledged every second
    assertDataFrameEqual(timeline.unavailable_windows(timeline.ack_seconds(acked), by=("topic", "partition")),
                         spark_session.createDataFrame([("t", 0, 10.0, 13.5, 3.5)],
                                                       "topic string, partition int, start double, end double, "
                                                       "seconds double"))


def test_gaps_shorter_than_a_second_cannot_be_asked_for(ledger):
    with pytest.raises(ValueError, match="at least 1 second"):
        timeline.unavailable_windows(timeline.ack_seconds(ledger(("t", 0, 0, 1.0))), min_gap_s=0.5)


def test_acknowledgements_per_second_add_up_every_partition(ledger, spark_session):
    acked = ledger(("t", 0, 0, 100.2), ("t", 1, 0, 100.5), ("u", 0, 0, 100.7), ("t", 0, 1, 102.0))
    assertDataFrameEqual(timeline.acknowledged_per_second(timeline.ack_seconds(acked)),
                         spark_session.createDataFrame([(100, 3), (102, 1)], "second long, acknowledged long"))


def test_the_worst_partitions_are_those_longest_without_an_acknowledgement(ledger, spark_session):
    acked = ledger(("t", 0, 0, 10.0), ("t", 0, 1, 12.0), ("t", 0, 2, 14.5),   # 2.0 + 2.5
                   ("t", 1, 0, 10.0), ("t", 1, 1, 16.0),                       # 6.0 in one
                   ("t", 2, 0, 10.0), ("t", 2, 1, 10.5),                       # none
                   ("u", 0, 0, 10.0), ("u", 0, 1, 11.5))                       # 1.5
    windows = timeline.unavailable_windows(timeline.ack_seconds(acked), by=("topic", "partition"))
    worst = timeline.worst_partitions(windows, limit=2)
    assert [tuple(r) for r in worst.collect()] == [("t", 1, 1, 6.0, 6.0), ("t", 0, 2, 4.5, 2.5)]
