"""The recovery validator's checks, on tiny hand-written snapshots, ledgers and read-backs."""

import hashlib

import pytest

from spark import checks

PARTITIONS = ("topic string, partition int, log_start_offset long, high_watermark long, leader int, "
              "replicas array<int>, isr array<int>")
GROUP_OFFSETS = "`group` string, topic string, partition int, committed_offset long"
LEDGER = "topic string, partition int, offset long, key string, sha256 string"
READABLE = "topic string, partition int, offset long, sha256 string, key string"
LOST = ("topic string, partition int, offset long, key string, expected_sha256 string, actual_sha256 string, "
        "reason string")

LOST_COLUMNS = ["topic", "partition", "offset", "key", "expected_sha256", "actual_sha256", "sent_at", "reason"]
HW_COLUMNS = ["topic", "partition", "hw_before", "hw_after"]
COMMITTED_COLUMNS = ["group", "topic", "partition", "committed_offset", "log_start_offset", "high_watermark",
                     "reason"]
REPLICA_COLUMNS = ["topic", "partition", "leader", "replicas", "isr", "reason"]
CHANGE_COLUMNS = ["topic", "partition", "change"]

R = [1, 2, 3]  # replicas (and a full ISR) of a healthy partition


def sha(value):
    return hashlib.sha256(value.encode()).hexdigest()


@pytest.fixture
def df(spark_session):
    def make(schema, rows):
        return spark_session.createDataFrame(rows, schema)
    return make


@pytest.fixture
def partitions(df):
    """Snapshot partitions from (topic, partition, log_start, hw) with a healthy leader 1 and full ISR,
    or full 7-tuples."""
    return lambda *rows: df(PARTITIONS, [r if len(r) == 7 else (*r, 1, R, R) for r in rows])


@pytest.fixture
def ledger(df):
    """Ledger lines from (topic, partition, offset, value) or (..., key) tuples; the digest is the value's."""
    return lambda *rows: df(LEDGER, [(t, p, o, k[0] if k else f"k{o}", sha(v)) for t, p, o, v, *k in rows])


@pytest.fixture
def readable(df):
    """Read-back records from (topic, partition, offset, value) or (..., key) tuples; key k<offset> by default."""
    return lambda *rows: df(READABLE, [(t, p, o, sha(v), k[0] if k else f"k{o}") for t, p, o, v, *k in rows])


def result(frame, columns, leave_out=()):
    """The problem rows (in a stable order, without the leave_out columns) after checking the documented columns."""
    assert frame.columns == columns
    return sorted((tuple(row) for row in frame.drop(*leave_out).collect()), key=repr)


def lost(frame):
    """lost_records' rows without sent_at (null in ledgers without times; see the test of sent_at)."""
    return result(frame, LOST_COLUMNS, leave_out=("sent_at",))


def rows(*expected):
    return sorted(expected, key=repr)


# lost_records


def test_nothing_lost_when_every_acknowledged_record_reads_back_with_its_digest(df, partitions):
    ledger = df(LEDGER, [("orders", 0, 0, "k0", sha("a0")),
                         ("orders", 0, 1, None, sha("a1").upper()),  # no key; a digest in upper case
                         ("orders", 0, 2, "k2", None)])  # a tombstone: no value, no digest
    readable = df(READABLE, [("orders", 0, 0, sha("a0"), "k0"), ("orders", 0, 1, sha("a1"), None),
                             ("orders", 0, 2, None, "k2"), ("orders", 0, 3, sha("not in the ledger"), "k3")])
    after = partitions(("orders", 0, 0, 4), ("empty", 0, 0, 0))
    assert lost(checks.lost_records(ledger, readable, after)) == []


def test_a_lost_record_keeps_the_time_it_was_sent(df, partitions):
    timed = "topic string, partition int, offset long, key string, sha256 string, sent_at double"
    acked = df(timed, [("orders", 0, 0, "k0", sha("a0"), 100.5), ("orders", 0, 1, "k1", sha("a1"), 101.25),
                       ("orders", 0, None, "k9", sha("a9"), 102.0)])  # acknowledged without an offset
    back = df(READABLE, [("orders", 0, 0, sha("a0"), "k0")])
    assert result(checks.lost_records(acked, back, partitions(("orders", 0, 0, 1))), LOST_COLUMNS) == rows(
        ("orders", 0, 1, "k1", sha("a1"), None, 101.25, "missing"),
        ("orders", 0, None, "k9", sha("a9"), None, 102.0, "missing"),
    )


def test_records_cut_off_by_a_truncation_are_missing_and_the_high_watermark_regressed(ledger, readable,
                                                                                     partitions):
    acked = ledger(*[("orders", 0, o, f"a{o}") for o in range(5)], ("orders", 1, 0, "b0"))
    back = readable(*[("orders", 0, o, f"a{o}") for o in range(3)], ("orders", 1, 0, "b0"))
    before = partitions(("orders", 0, 0, 5), ("orders", 1, 0, 1))
    after = partitions(("orders", 0, 0, 3), ("orders", 1, 0, 1))
    assert lost(checks.lost_records(acked, back, after)) == rows(
        ("orders", 0, 3, "k3", sha("a3"), None, "missing"),
        ("orders", 0, 4, "k4", sha("a4"), None, "missing"),
    )
    assert result(checks.high_watermark_regressions(before, after), HW_COLUMNS) == [("orders", 0, 5, 3)]


def test_log_truncated_and_regrown_past_its_old_high_watermark_is_caught_by_digest(ledger, readable,
                                                                                  partitions):
    acked = ledger(*[("orders", 0, o, f"a{o}") for o in range(5)])
    back = readable(*[("orders", 0, o, f"a{o}") for o in range(2)],
                    *[("orders", 0, o, f"new{o}") for o in range(2, 7)])
    before = partitions(("orders", 0, 0, 5))
    after = partitions(("orders", 0, 0, 7))
    assert result(checks.high_watermark_regressions(before, after), HW_COLUMNS) == []
    assert lost(checks.lost_records(acked, back, after)) == rows(
        ("orders", 0, 2, "k2", sha("a2"), sha("new2"), "digest_mismatch"),
        ("orders", 0, 3, "k3", sha("a3"), sha("new3"), "digest_mismatch"),
        ("orders", 0, 4, "k4", sha("a4"), sha("new4"), "digest_mismatch"),
    )


def test_a_write_acknowledged_without_an_offset_is_found_by_key_and_digest_in_its_partition(
        ledger, readable, partitions):
    # An idempotent producer's retry the broker already had is acknowledged without an offset.
    acked = ledger(("orders", 0, None, "a7", "k7"), ("orders", 0, None, "a8", "k8"), ("orders", 1, None, "b9", "k9"))
    back = readable(("orders", 0, 7, "a7", "k7"), ("orders", 1, 0, "b9", "other-key"))
    after = partitions(("orders", 0, 0, 8), ("orders", 1, 0, 1))
    assert lost(checks.lost_records(acked, back, after)) == rows(
        ("orders", 0, None, "k8", sha("a8"), None, "missing"),
        ("orders", 1, None, "k9", sha("b9"), None, "missing"),
    )


def test_a_lost_record_at_offset_zero_is_reported(ledger, readable, partitions):
    acked = ledger(("orders", 0, 0, "a0"), ("orders", 1, 0, "b0"), ("orders", 2, 0, "c0"))
    back = readable(("orders", 1, 0, "other"), ("orders", 2, 0, "c0"))
    after = partitions(("orders", 0, 0, 0), ("orders", 1, 0, 1), ("orders", 2, 0, 1))
    assert lost(checks.lost_records(acked, back, after)) == rows(
        ("orders", 0, 0, "k0", sha("a0"), None, "missing"),
        ("orders", 1, 0, "k0", sha("b0"), sha("other"), "digest_mismatch"),
    )


def test_records_deleted_below_the_log_start_are_reported_as_such(ledger, readable, partitions):
    # delete_records moved orders-0's log start from 0 to 3; offset 3 itself is still there.
    acked = ledger(*[("orders", 0, o, f"a{o}") for o in range(5)])
    back = readable(("orders", 0, 3, "a3"), ("orders", 0, 4, "a4"))
    after = partitions(("orders", 0, 3, 5))
    assert lost(checks.lost_records(acked, back, after)) == rows(
        ("orders", 0, 0, "k0", sha("a0"), None, "below_log_start"),
        ("orders", 0, 1, "k1", sha("a1"), None, "below_log_start"),
        ("orders", 0, 2, "k2", sha("a2"), None, "below_log_start"),
    )


def test_duplicate_ledger_lines_count_once(ledger, readable, partitions):
    acked = ledger(("orders", 0, 0, "a0"), ("orders", 0, 0, "a0"),  # intact, logged twice
                   ("orders", 0, 1, "a1"), ("orders", 0, 1, "a1"), ("orders", 0, 1, "a1", "k-retry"))
    back = readable(("orders", 0, 0, "a0"))
    after = partitions(("orders", 0, 0, 1))
    assert lost(checks.lost_records(acked, back, after)) == [
        ("orders", 0, 1, "k-retry", sha("a1"), None, "missing"),
    ]


def test_two_acknowledged_writes_at_one_offset_lose_the_one_not_there(ledger, readable, partitions):
    # Acknowledged at offset 0, truncated away, and the offset reused by a later acknowledged write.
    acked = ledger(("orders", 0, 0, "first"), ("orders", 0, 0, "second"))
    back = readable(("orders", 0, 0, "second"))
    after = partitions(("orders", 0, 0, 1))
    assert lost(checks.lost_records(acked, back, after)) == [
        ("orders", 0, 0, "k0", sha("first"), sha("second"), "digest_mismatch"),
    ]


# A deleted topic: audit existed before recovery and is gone after it.


@pytest.fixture
def audit_deleted(partitions):
    before = partitions(("orders", 0, 0, 2), ("audit", 0, 0, 2), ("audit", 1, 0, 1))
    after = partitions(("orders", 0, 0, 2))
    return before, after


def test_records_of_a_deleted_topic_are_lost_with_their_partition(ledger, readable, audit_deleted):
    _, after = audit_deleted
    acked = ledger(("audit", 0, 0, "x0"), ("audit", 0, 1, "x1"), ("orders", 0, 0, "a0"))
    back = readable(("orders", 0, 0, "a0"))
    assert lost(checks.lost_records(acked, back, after)) == rows(
        ("audit", 0, 0, "k0", sha("x0"), None, "partition_gone"),
        ("audit", 0, 1, "k1", sha("x1"), None, "partition_gone"),
    )


def test_a_deleted_topic_disappears_and_its_committed_offsets_point_nowhere(df, audit_deleted):
    before, after = audit_deleted
    committed = df(GROUP_OFFSETS, [("auditor", "audit", 0, 2), ("auditor", "orders", 0, 2)])
    assert result(checks.committed_offset_problems(committed, after), COMMITTED_COLUMNS) == [
        ("auditor", "audit", 0, 2, None, None, "partition_gone"),
    ]
    assert result(checks.partition_changes(before, after), CHANGE_COLUMNS) == rows(
        ("audit", 0, "disappeared"), ("audit", 1, "disappeared"),
    )
    assert result(checks.high_watermark_regressions(before, after), HW_COLUMNS) == []


# duplicate_records

KEYED = "topic string, partition int, offset long, sha256 string, key string"


def test_a_key_readable_twice_is_one_duplicate_and_keyless_records_are_not_counted(df):
    back = df(KEYED, [("orders", 0, 0, sha("a"), "k0"), ("orders", 1, 5, sha("a"), "k0"),
                      ("orders", 0, 1, sha("b"), "k1"), ("orders", 0, 2, sha("c"), None),
                      ("orders", 0, 3, sha("c"), None), ("other", 0, 0, sha("a"), "k1")])
    found = checks.duplicate_records(back)
    assert result(found, ["topic", "key", "copies", "first", "last"]) == [("orders", "k0", 2, "0:0", "1:5")]


# high_watermark_regressions


def test_only_a_high_watermark_that_went_backwards_is_a_regression(partitions):
    before = partitions(("t", 0, 0, 10), ("t", 1, 0, 10), ("t", 2, 0, 10), ("t", 3, 0, 0))
    after = partitions(("t", 0, 0, 9), ("t", 1, 0, 10), ("t", 2, 0, 11), ("t", 3, 0, 0), ("new", 0, 0, 0))
    assert result(checks.high_watermark_regressions(before, after), HW_COLUMNS) == [("t", 0, 10, 9)]


# committed_offset_problems


def test_committed_offset_past_the_high_watermark_is_a_problem_and_at_it_is_caught_up(df, partitions):
    after = partitions(("orders", 0, 0, 5), ("orders", 1, 0, 5))
    committed = df(GROUP_OFFSETS, [("billing", "orders", 0, 7), ("billing", "orders", 1, 5),
                                   ("search", "orders", 0, 6), ("search", "orders", 1, 4)])
    assert result(checks.committed_offset_problems(committed, after), COMMITTED_COLUMNS) == rows(
        ("billing", "orders", 0, 7, 0, 5, "beyond_high_watermark"),
        ("search", "orders", 0, 6, 0, 5, "beyond_high_watermark"),
    )


def test_committed_offset_before_the_log_start_is_a_problem_and_at_it_is_fine(df, partitions):
    after = partitions(("orders", 0, 3, 8))
    committed = df(GROUP_OFFSETS, [("billing", "orders", 0, 2), ("search", "orders", 0, 3),
                                   ("audit", "orders", 0, 0)])
    assert result(checks.committed_offset_problems(committed, after), COMMITTED_COLUMNS) == rows(
        ("billing", "orders", 0, 2, 3, 8, "before_log_start"),
        ("audit", "orders", 0, 0, 3, 8, "before_log_start"),
    )


def test_empty_partition_with_a_committed_offset_zero_and_no_ledger_is_fine(df, ledger, partitions):
    before = partitions(("empty", 0, 0, 0))
    after = partitions(("empty", 0, 0, 0))
    committed = df(GROUP_OFFSETS, [("billing", "empty", 0, 0),
                                   ("billing", "empty", 0, -1),  # Kafka's "nothing committed"
                                   ("search", "empty", 0, None)])
    no_records = df(READABLE, [])
    assert lost(checks.lost_records(df(LEDGER, []), no_records, after)) == []
    assert result(checks.committed_offset_problems(committed, after), COMMITTED_COLUMNS) == []
    assert result(checks.high_watermark_regressions(before, after), HW_COLUMNS) == []
    assert result(checks.replica_problems(after), REPLICA_COLUMNS) == []
    assert result(checks.partition_changes(before, after), CHANGE_COLUMNS) == []


def test_committed_offset_one_past_an_empty_partition_is_beyond_its_high_watermark(df, partitions):
    after = partitions(("empty", 0, 0, 0))
    committed = df(GROUP_OFFSETS, [("billing", "empty", 0, 1)])
    assert result(checks.committed_offset_problems(committed, after), COMMITTED_COLUMNS) == [
        ("billing", "empty", 0, 1, 0, 0, "beyond_high_watermark"),
    ]


# replica_problems


def test_a_partition_without_a_leader_in_its_isr_is_offline(partitions):
    after = partitions(("t", 0, 0, 1, -1, [1], [1]),     # no leader elected, ISR still names broker 1
                       ("t", 1, 0, 1, None, [2], [2]),   # leader unknown
                       ("t", 2, 0, 1, 4, [3], [3]),      # led by a broker outside the ISR
                       ("t", 3, 0, 1, 1, [1], [1]))      # healthy single replica
    assert result(checks.replica_problems(after), REPLICA_COLUMNS) == rows(
        ("t", 0, -1, [1], [1], "offline"),
        ("t", 1, None, [2], [2], "offline"),
        ("t", 2, 4, [3], [3], "offline"),
    )


def test_a_partition_with_a_shrunk_isr_is_under_replicated(partitions):
    after = partitions(("t", 0, 0, 1, 1, R, [1, 2]),
                       ("t", 1, 0, 1, 2, R, [1, 2, 3]))
    assert result(checks.replica_problems(after), REPLICA_COLUMNS) == [
        ("t", 0, 1, R, [1, 2], "under_replicated"),
    ]


def test_each_replica_problem_of_a_partition_is_its_own_row(partitions):
    after = partitions(("t", 0, 0, 1, -1, R, []),
                       ("t", 1, 0, 1, 2, R, [1, 3]),
                       ("t", 2, 0, 1, 1, [1], None))  # a missing ISR counts as empty
    assert result(checks.replica_problems(after), REPLICA_COLUMNS) == rows(
        ("t", 0, -1, R, [], "offline"), ("t", 0, -1, R, [], "under_replicated"),
        ("t", 1, 2, R, [1, 3], "offline"), ("t", 1, 2, R, [1, 3], "under_replicated"),
        ("t", 2, 1, [1], None, "offline"), ("t", 2, 1, [1], None, "under_replicated"),
    )


# partition_changes


def test_partitions_on_one_side_only_disappeared_or_appeared(partitions):
    before = partitions(("orders", 0, 0, 1), ("orders", 1, 0, 1), ("old", 0, 0, 0))
    after = partitions(("orders", 0, 0, 1), ("orders", 1, 0, 1), ("orders", 2, 0, 0), ("new", 0, 0, 0))
    assert result(checks.partition_changes(before, after), CHANGE_COLUMNS) == rows(
        ("old", 0, "disappeared"), ("orders", 2, "appeared"), ("new", 0, "appeared"),
    )


# run_checks and summarize


@pytest.fixture
def maintenance(df, ledger, readable, partitions):
    """A recovery that lost records: orders-1 was truncated (3 acknowledged records gone, its high
    watermark regressed), orders-0 kept everything, and a topic was created meanwhile."""
    before = partitions(("orders", 0, 0, 2), ("orders", 1, 0, 4))
    after = partitions(("orders", 0, 0, 2), ("orders", 1, 0, 1, 2, R, [2]), ("fresh", 0, 0, 0))
    committed = df(GROUP_OFFSETS, [("billing", "orders", 0, 2), ("billing", "orders", 1, 1)])
    acked = ledger(("orders", 0, 0, "a0"), ("orders", 0, 1, "a1"),
                   *[("orders", 1, o, f"b{o}") for o in range(4)])
    back = readable(("orders", 0, 0, "a0"), ("orders", 0, 1, "a1"), ("orders", 1, 0, "b0"))
    return {"before": before, "after": after, "committed": committed, "ledger": acked, "readable": back}


def test_summary_of_a_lossy_recovery_fails_and_lists_the_first_lost_records(maintenance):
    m = maintenance
    results = checks.run_checks(m["before"], m["after"], m["committed"], m["ledger"], m["readable"])
    assert checks.summarize(results, lost_limit=2) == {
        "verdict": "loss_or_regression",
        "failed_checks": ["lost_records", "high_watermark_regressions", "replica_problems"],
        "counts": {"lost_records": 3, "high_watermark_regressions": 1, "committed_offset_problems": 0,
                   "replica_problems": 1, "partition_changes": 1},
        "reasons": {"lost_records": {"missing": 3}, "committed_offset_problems": {},
                    "replica_problems": {"under_replicated": 1}, "partition_changes": {"appeared": 1}},
        "lost_records_total": 3,
        "lost_by_topic": {"orders": 3},
        "lost_records": [
            {"topic": "orders", "partition": 1, "offset": 1, "key": "k1", "expected_sha256": sha("b1"),
             "actual_sha256": None, "sent_at": None, "reason": "missing"},
            {"topic": "orders", "partition": 1, "offset": 2, "key": "k2", "expected_sha256": sha("b2"),
             "actual_sha256": None, "sent_at": None, "reason": "missing"},
        ],
    }


def test_summary_sorts_lost_records_by_topic_partition_offset_and_may_list_none(df):
    lost = df(LOST, [(t, p, o, None, "aa", None, "missing")
                     for o in (10, 3, 2) for t, p in (("b", 0), ("a", 1), ("a", 0), ("a", 10))])
    summary = checks.summarize({"lost_records": lost}, lost_limit=5)
    assert [(r["topic"], r["partition"], r["offset"]) for r in summary["lost_records"]] == [
        ("a", 0, 2), ("a", 0, 3), ("a", 0, 10), ("a", 1, 2), ("a", 1, 3)]
    summary = checks.summarize({"lost_records": lost}, lost_limit=0)
    assert (summary["verdict"], summary["lost_records_total"], summary["lost_records"]) == (
        "loss_or_regression", 12, [])


def test_summary_of_a_clean_recovery_with_a_new_topic_is_ok(df, ledger, readable, partitions):
    before = partitions(("orders", 0, 0, 2))
    after = partitions(("orders", 0, 0, 3), ("fresh", 0, 0, 0))
    committed = df(GROUP_OFFSETS, [("billing", "orders", 0, 3)])
    acked = ledger(("orders", 0, 0, "a0"), ("orders", 0, 1, "a1"))
    back = readable(("orders", 0, 0, "a0"), ("orders", 0, 1, "a1"), ("orders", 0, 2, "a2"))
    results = checks.run_checks(before, after, committed, acked, back)
    assert checks.summarize(results, lost_limit=5) == {
        "verdict": "ok",
        "failed_checks": [],
        "counts": {"lost_records": 0, "high_watermark_regressions": 0, "committed_offset_problems": 0,
                   "replica_problems": 0, "partition_changes": 1},
        "reasons": {"lost_records": {}, "committed_offset_problems": {}, "replica_problems": {},
                    "partition_changes": {"appeared": 1}},
        "lost_records_total": 0,
        "lost_by_topic": {},
        "lost_records": [],
    }


def test_summary_fails_on_a_disappeared_partition_alone_and_without_a_ledger_has_no_lost_total(partitions,
                                                                                             df):
    before = partitions(("orders", 0, 0, 0), ("old", 0, 0, 0))
    after = partitions(("orders", 0, 0, 0))
    summary = checks.summarize(checks.run_checks(before, after, df(GROUP_OFFSETS, [])), lost_limit=5)
    assert (summary["verdict"], summary["failed_checks"], summary["lost_records_total"]) == (
        "loss_or_regression", ["partition_changes"], None)
    assert "lost_records" not in summary["counts"]


def test_summary_refuses_a_negative_lost_limit():
    with pytest.raises(ValueError, match="lost_limit"):
        checks.summarize({}, lost_limit=-1)


def test_a_ledger_cannot_be_checked_without_what_was_read_back(df, partitions):
    after = partitions(("orders", 0, 0, 0))
    with pytest.raises(ValueError, match="readable"):
        checks.run_checks(after, after, df(GROUP_OFFSETS, []), df(LEDGER, []))
