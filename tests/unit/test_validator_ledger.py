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
