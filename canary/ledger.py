"""The canary's ledger: every record the cluster acknowledged, in a folder the validator reads.

A ledger folder holds, for each canary that wrote to it (WRITER: a token of its own, so two canaries never
write the same file):

- WRITER-NNNNNN.parquet: closed segments, columns topic, partition, offset, key, sha256 (the 32 bytes of the
  value's SHA-256), sent_at, acked_at (Unix times). A segment is closed every SEGMENT_S seconds or
  SEGMENT_ROWS records, and when the canary stops.
- WRITER-NNNNNN.tail-MMMM.jsonl: what the open segment acknowledged so far, one small file every FLUSH_S
  seconds (written under a temporary name, then renamed: a file is whole or absent). The JSON lines of the
  exchange format (spark/README.md: sha256 as hex). A tail whose segment is closed is left out by readers
  (the canary removes it right after closing the segment; a kill in between leaves both).
- failed-WRITER.jsonl: deliveries that failed, {"key", "error", "sent_at", "at"}, appended and flushed one
  by one.

So a canary killed with SIGKILL loses from its ledger at most the acknowledgements of its last FLUSH_S
seconds; those records are not in the ledger, so they are never reported lost. SIGTERM loses nothing: stop()
closes the segment. A JSONL file of the exchange format (an application's own acknowledgements) is read too.
"""

import json
import os
import pathlib
import re
import time
import uuid

FLUSH_S = 1.0             # acknowledgements reach a tail file within this
SEGMENT_S = 30.0          # a segment (one Parquet file) is closed after this ...
SEGMENT_ROWS = 250_000    # ... or this many records, whichever first: bounds the canary's memory
SEGMENT = re.compile(r"^(?P<segment>.+-\d{6})\.parquet$")
TAIL = re.compile(r"^(?P<segment>.+-\d{6})\.tail-\d{4}\.jsonl$")
FAILED = re.compile(r"^failed-.+\.jsonl$")
COLUMNS = ("topic", "partition", "offset", "key", "sha256", "sent_at", "acked_at")


def _arrow_schema():
    import pyarrow as pa
    return pa.schema([("topic", pa.string()), ("partition", pa.int32()), ("offset", pa.int64()),
                      ("key", pa.string()), ("sha256", pa.binary()), ("sent_at", pa.float64()),
                      ("acked_at", pa.float64())])


def _write_atomically(path, write):
    tmp = path.with_name(f".{path.name}.tmp")
    write(tmp)
    os.replace(tmp, path)


class LedgerWriter:
    """Appends acknowledged records (add) and failed deliveries (failed) to a ledger folder; writes the tail
    and closes segments on time, at each add and each tick() (the canary's writing loop calls it when no
    acknowledgement comes); close() closes the segment. Not thread-safe: the canary calls it from the
    thread that polls the producer."""

    def __init__(self, folder):
        self.folder = pathlib.Path(folder)
        if self.folder.is_file():
            raise ValueError(f"{self.folder} is a file: the canary's ledger is a folder (a JSONL ledger "
                             "of an older canary can still be validated, but not appended to)")
        self.folder.mkdir(parents=True, exist_ok=True)
        self.writer = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:6]}"
        self._failed = open(self.folder / f"failed-{self.writer}.jsonl", "a", encoding="utf-8")  # noqa: SIM115
        self._segment, self._tails = 0, 0
        self._rows = {c: [] for c in COLUMNS}  # the open segment, column by column
        self._flushed = 0                      # rows of the open segment already in a tail file
        self._segment_opened = self._last_flush = time.monotonic()

    def _stem(self):
        return f"{self.writer}-{self._segment:06d}"

    def add(self, topic, partition, offset, key, sha256, sent_at, acked_at):
        for column, value in zip(COLUMNS, (topic, partition, offset, key, sha256, sent_at, acked_at), strict=True):
            self._rows[column].append(value)
        self.tick()

    def failed(self, key, error, sent_at, at):
        self._failed.write(json.dumps({"key": key, "error": error, "sent_at": sent_at, "at": at}) + "\n")
        self._failed.flush()

    def tick(self):
        now = time.monotonic()
        if len(self._rows["topic"]) >= SEGMENT_ROWS or now - self._segment_opened >= SEGMENT_S:
            self._close_segment()
        elif now - self._last_flush >= FLUSH_S:
            self._write_tail()

    def _write_tail(self):
        self._last_flush = time.monotonic()
        rows = len(self._rows["topic"])
        if rows == self._flushed:
            return
        lines = []
        for i in range(self._flushed, rows):
            entry = {c: self._rows[c][i] for c in COLUMNS}
            entry["sha256"] = entry["sha256"].hex() if entry["sha256"] is not None else None
            lines.append(json.dumps(entry))
        self._tails += 1
        _write_atomically(self.folder / f"{self._stem()}.tail-{self._tails:04d}.jsonl",
                          lambda tmp: tmp.write_text("\n".join(lines) + "\n"))
        self._flushed = rows

    def _close_segment(self):
        import pyarrow as pa
        import pyarrow.parquet as pq
        self._segment_opened = self._last_flush = time.monotonic()
        if self._rows["topic"]:
            table = pa.table(self._rows, schema=_arrow_schema())
            _write_atomically(self.folder / f"{self._stem()}.parquet", lambda tmp: pq.write_table(table, tmp))
        for tail in self.folder.glob(f"{self._stem()}.tail-*.jsonl"):
            tail.unlink()
        self._segment, self._tails, self._flushed = self._segment + 1, 0, 0
        self._rows = {c: [] for c in COLUMNS}

    def close(self):
        self._close_segment()
        self._failed.close()


def ledger_files(names):
    """(segments, tails) among file names of a ledger folder: the tails of closed segments left out."""
    segments = sorted(n for n in names if SEGMENT.match(n))
    closed = {SEGMENT.match(n)["segment"] for n in segments}
    tails = sorted(n for n in names if TAIL.match(n) and TAIL.match(n)["segment"] not in closed)
    return segments, tails


def failed_files(names):
    """The failed deliveries' files among file names of a ledger folder."""
    return sorted(n for n in names if FAILED.match(n))


def _jsonl(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_acked(path):
    """Every acknowledged record of a ledger (folder or JSONL file) as a dict of the exchange format (sha256
    in hex). For small ledgers (the tests' and drills'); the validator reads ledgers with Spark."""
    path = pathlib.Path(path)
    if path.is_file():
        return _jsonl(path)
    import pyarrow.parquet as pq
    segments, tails = ledger_files([p.name for p in path.iterdir()])
    entries = []
    for name in segments:
        for entry in pq.read_table(path / name).to_pylist():
            entry["sha256"] = entry["sha256"].hex() if entry["sha256"] is not None else None
            entries.append(entry)
    for name in tails:
        entries += _jsonl(path / name)
    return entries


def read_failed(path):
    """Every failed delivery written to a ledger folder (none for a JSONL ledger file)."""
    path = pathlib.Path(path)
    if not path.is_dir():
        return []
    return [entry for name in failed_files(p.name for p in path.iterdir()) for entry in _jsonl(path / name)]
