"""How the validator reads a ledger (spark/validate_recovery.py read_ledger): a canary's folder (Parquet segments and
the JSONL tails of the segment still open) and a JSONL file of the exchange format come out as one DataFrame, with the
digest as its 32 bytes and malformed lines flagged."""

import json
import sys

import pytest
from pyspark.testing import assertDataFrameEqual, assertSchemaEqual

from canary import ledger as ledger_module
from canary.ledger import LedgerWriter
from lab.config import REPO

sys.path.insert(0, str(REPO / "spark"))
import validate_recovery  # noqa: E402

COLUMNS = ["topic", "partition", "offset", "key", "sha256", "sent_at", "acked_at", "_malformed"]


def digest(n):
    return bytes([n]) * 32


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A ledger folder: records 0 and 1 in a closed segment (its tails removed), 2 and 3 in the tails of the open
    one, and a stale tail of the closed segment put back (a kill between closing and removing)."""
    monkeypatch.setattr(ledger_module, "FLUSH_S", 0)
    monkeypatch.setattr(ledger_module, "SEGMENT_ROWS", 2)
    writer = LedgerWriter(tmp_path / "ledger")
    for n in range(4):
        writer.add("t", n % 2, n, f"canary-{n}", digest(n), 10.0 + n, 11.0 + n)
    stem = f"{writer.writer}-000000"
    (tmp_path / "ledger" / f"{stem}.tail-0001.jsonl").write_text(
        json.dumps({"topic": "t", "partition": 0, "offset": 0, "key": "stale", "sha256": "00" * 32}) + "\n")
    return tmp_path / "ledger"  # writer left open: records 2 and 3 are in tails only


def test_a_canary_folder_reads_as_its_segments_and_open_tails(spark_session, folder):
    ledger, jsonl_file = validate_recovery.read_ledger(spark_session, str(folder))
    assert jsonl_file is None
    expected = spark_session.createDataFrame(
        [("t", n % 2, n, f"canary-{n}", bytearray(digest(n)), 10.0 + n, 11.0 + n, False) for n in range(4)],
        ledger.schema)
    assertDataFrameEqual(ledger, expected)
    assertSchemaEqual(ledger.select(*COLUMNS[:7]).schema, validate_recovery.checks.LEDGER_PARQUET_SCHEMA)


def test_a_jsonl_file_flags_its_malformed_lines(spark_session, tmp_path):
    good = {"topic": "t", "partition": 0, "offset": 1, "key": "k", "sha256": "AB" * 32}
    lines = [json.dumps(good), "not json", json.dumps(good | {"sha256": "xyz"}), json.dumps(good | {"partition": None}),
             json.dumps(good | {"sha256": None}), ""]
    (tmp_path / "ledger.jsonl").write_text("\n".join(lines) + "\n")
    ledger, jsonl_file = validate_recovery.read_ledger(spark_session, str(tmp_path / "ledger.jsonl"))
    assert jsonl_file.endswith("ledger.jsonl")
    rows = sorted(((r["sha256"], r["_malformed"]) for r in ledger.select("sha256", "_malformed").collect()), key=repr)
    assert rows == sorted([(bytearray(b"\xab" * 32), False), (None, True), (None, True),
                           (bytearray(b"\xab" * 32), True), (None, False)], key=repr)
    partitions = validate_recovery.ledger_partitions(ledger)
    assert sum(p["malformed"] for p in partitions) == 3 and sum(p["lines"] for p in partitions) == 5


def test_the_timeline_of_a_canary_folder_matches_a_hand_count(spark_session, tmp_path):
    """Acknowledgements 0.2 s apart but none between 101.8 and 104.9, partition 0 silent from 100.4 to 105.9, two
    failed sends, one lost record: the timeline's windows are the gaps counted by hand over acked_at."""
    times = [100.0 + 0.2 * n for n in range(10)] + [104.9 + 0.2 * n for n in range(10)]  # 101.8 -> 104.9
    writer = LedgerWriter(tmp_path / "ledger")
    for n, at in enumerate(times):
        partition = 1 if 3 <= n <= 14 else 0  # partition 1: 100.6 .. 106.1, nothing between 101.8 and 104.9
        writer.add("t", partition, n, f"canary-{n}", digest(n), at - 0.05, at)
    writer.failed("canary-x", "timed out", 102.0, 103.5)
    writer.failed("canary-y", "timed out", 102.1, 103.6)
    writer.close()
    ledger, _ = validate_recovery.read_ledger(spark_session, str(tmp_path / "ledger"))
    failed = validate_recovery.failed_sends(spark_session, str(tmp_path / "ledger"))
    lost = spark_session.createDataFrame([("t", 0, 2, 100.35)], "topic string, partition int, offset long, "
                                                                "sent_at double")
    marks = [{"at": 101.9, "label": "fault"}]
    found, series = validate_recovery.read_timeline(spark_session, ledger, failed, lost, marks)

    by_hand = [(a, b) for a, b in zip(times, times[1:], strict=False) if b - a > 1]
    assert [(w["start"], w["end"]) for w in found["unavailable_windows"]] == by_hand == [(times[9], times[10])]
    assert found["unavailable_s"] == round(times[10] - times[9], 3)
    # per partition: 0 waits from its third record (100.4) to its fourth (105.9), 1 from 101.8 to 104.9
    p0 = [times[n] for n in range(20) if not 3 <= n <= 14]
    p1 = [times[n] for n in range(3, 15)]
    worst = {(p["topic"], p["partition"]): p["unavailable_s"] for p in found["worst_partitions"]}
    assert worst == pytest.approx({("t", 0): p0[3] - p0[2], ("t", 1): p1[7] - p1[6]})
    assert (found["failed_sends"], series["failed"]) == (2, [(103, 2)])
    assert series["lost"] == [(100, 1)]
    assert sum(n for _, n in series["acknowledged"]) == 20
    assert (found["first_acked_at"], found["last_acked_at"], found["marks"]) == (times[0], times[-1], marks)

    validate_recovery.recovery_report.write_chart(tmp_path / "chart.png", found, series, [("t", 0, 20, 20)], 60)
    assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_ledger_without_acknowledgement_times_has_no_timeline(spark_session, tmp_path):
    (tmp_path / "ledger.jsonl").write_text(json.dumps({"topic": "t", "partition": 0, "offset": 1, "key": "k",
                                                       "sha256": "ab" * 32}) + "\n")
    ledger, _ = validate_recovery.read_ledger(spark_session, str(tmp_path / "ledger.jsonl"))
    assert validate_recovery.failed_sends(spark_session, str(tmp_path / "ledger.jsonl")) is None
    assert validate_recovery.read_timeline(spark_session, ledger, None, None, []) == (None, {})
