"""The canary remembers which partitions acknowledged records sent when (recent_acks), for the chaos suite's
snapshot (data in every partition) and its negative controls (writes taken by a cut-off leader)."""

import json

from canary import Canary
from canary.ledger import read_acked, read_failed


class Delivered:
    def __init__(self, partition, offset, sent_at, n):
        self._partition, self._offset, self._n = partition, offset, n
        self._value = json.dumps({"seq": n, "at": sent_at}).encode()

    def key(self):
        return f"canary-{self._n}".encode()

    def value(self):
        return self._value

    def topic(self):
        return "t"

    def partition(self):
        return self._partition

    def offset(self):
        return self._offset


def test_recent_acks_lists_acknowledged_records_only_and_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(Canary, "RECENT", 2)
    canary = Canary({"bootstrap.servers": "127.0.0.1:1"}, "t", tmp_path / "ledger", acks="1")
    canary._on_delivery(None, Delivered(0, 0, 100.0, 0))
    canary._on_delivery("broker down", Delivered(1, -1, 100.5, 1))
    canary._on_delivery(None, Delivered(2, 0, 101.0, 2))
    canary._on_delivery(None, Delivered(0, 1, 101.5, 3))
    assert canary.recent_acks() == [(2, 101.0), (0, 101.5)]
    assert (canary.acks, canary.acked, canary.failed) == ("1", 3, 1)
    canary.stop()
    assert len(read_acked(tmp_path / "ledger")) == 3
    assert [f["key"] for f in read_failed(tmp_path / "ledger")] == ["canary-1"]
