"""The canary's ledger folder (canary/ledger.py): tails within a flush interval, closed segments, and what a
reader takes when a kill left a segment and its tails both."""

import os
import signal
import subprocess
import sys
import time

from canary import ledger as ledger_module
from canary.ledger import LedgerWriter, ledger_files, read_acked, read_failed


def _add(writer, n, partition=0):
    writer.add("t", partition, n, f"canary-{n}", bytes([n % 256]) * 32, 100.0 + n, 100.5 + n)


def test_stop_closes_the_segment_into_parquet_and_removes_its_tails(tmp_path, monkeypatch):
    monkeypatch.setattr(ledger_module, "FLUSH_S", 0)  # every add writes a tail
    writer = LedgerWriter(tmp_path / "ledger")
    for n in range(3):
        _add(writer, n)
    assert len(list((tmp_path / "ledger").glob("*.tail-*.jsonl"))) == 3
    writer.failed("canary-3", "timed out", 103.0, 223.0)
    writer.close()
    names = sorted(p.name for p in (tmp_path / "ledger").iterdir())
    assert sorted(n.rsplit(".", 1)[-1] for n in names) == ["jsonl", "parquet"], names  # failed-*, one segment
    entries = read_acked(tmp_path / "ledger")
    assert [(e["offset"], e["key"], e["sha256"]) for e in entries] == [
        (n, f"canary-{n}", (bytes([n]) * 32).hex()) for n in range(3)]
    assert entries[0]["sent_at"] == 100.0 and entries[0]["acked_at"] == 100.5
    assert read_failed(tmp_path / "ledger") == [{"key": "canary-3", "error": "timed out", "sent_at": 103.0,
                                                 "at": 223.0}]


def test_a_segment_closes_at_its_row_limit_and_a_second_writer_adds_its_own_files(tmp_path, monkeypatch):
    monkeypatch.setattr(ledger_module, "SEGMENT_ROWS", 2)
    first = LedgerWriter(tmp_path / "ledger")
    for n in range(5):
        _add(first, n)
    first.close()
    second = LedgerWriter(tmp_path / "ledger")
    _add(second, 5)
    second.close()
    segments, tails = ledger_files(os.listdir(tmp_path / "ledger"))
    assert (len(segments), tails) == (4, [])  # 2 + 2 + 1 rows, then the second writer's
    assert sorted(e["offset"] for e in read_acked(tmp_path / "ledger")) == list(range(6))


def test_readers_take_a_closed_segment_and_leave_out_its_tails():
    names = ["w-000000.parquet", "w-000000.tail-0001.jsonl", "w-000001.tail-0001.jsonl",
             "w-000001.tail-0002.jsonl", "failed-w.jsonl", ".w-000002.parquet.tmp"]
    assert ledger_files(names) == (["w-000000.parquet"], ["w-000001.tail-0001.jsonl", "w-000001.tail-0002.jsonl"])


KILLED_WRITER = """
import sys, time
from canary.ledger import LedgerWriter
writer = LedgerWriter(sys.argv[1])
n = 0
while True:
    writer.add("t", 0, n, f"canary-{n}", b"x" * 32, time.time(), time.time())
    print(n, flush=True)
    n += 1
    time.sleep(0.001)
"""


def test_after_sigkill_the_ledger_lacks_only_the_last_flush_interval(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(tmp_path / "ledger")], stdout=subprocess.PIPE,
                            text=True, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    time.sleep(3 * ledger_module.FLUSH_S + 0.5)
    proc.send_signal(signal.SIGKILL)
    added = [int(line) for line in proc.communicate()[0].split()]
    kept = sorted(e["offset"] for e in read_acked(tmp_path / "ledger"))
    assert kept == list(range(len(kept))), "the ledger holds a prefix of what was added, each record once"
    assert len(added) - len(kept) > 0
    # what is missing was added within the last flush interval (added at about 1 per ms, with slack)
    assert len(added) - len(kept) <= 2 * 1000 * ledger_module.FLUSH_S
    assert all(e["key"] == f"canary-{e['offset']}" for e in read_acked(tmp_path / "ledger"))
