"""The chaos probes' pure parts (tests/chaos/probes.py): reading /proc stat lines, tc and df output, the
write probe's answer, the TCP connect command (run here against local ports), and the negative controls'
check that the cut-off leader took writes."""

import socket
import subprocess

import probes
import pytest


def test_process_state_is_read_after_the_command_name():
    assert probes.process_state("4242 (java) S 1 4242 4242 0 -1 4194560") == "S"
    assert probes.process_state("4242 (odd) name) T 1 4242") == "T"
    assert probes.process_state("4242 (java) Z 1") == "Z"
    assert probes.process_state("") is None  # /proc/<pid> gone


def test_connect_command_reports_connected_and_refused():
    with socket.socket() as listening, socket.socket() as closed:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        closed.bind(("127.0.0.1", 0))  # bound, not listening: the kernel refuses connections to it
        up, down = (f"127.0.0.1:{s.getsockname()[1]}" for s in (listening, closed))
        output = subprocess.run(["sh", "-c", probes.connect_command([up, down])], capture_output=True,
                                text=True, check=True).stdout
    assert probes.parse_connects(output) == {up: "connected", down: "refused"}


def test_parse_connects_keeps_each_targets_outcome():
    output = "10.213.7.11:2181 timed out\n10.213.7.22:9092 error Operation not permitted\n"
    assert probes.parse_connects(output) == {"10.213.7.11:2181": "timed out",
                                             "10.213.7.22:9092": "error Operation not permitted"}


def test_qdisc_rate_finds_a_token_bucket_filter():
    limited = "qdisc tbf 8001: root refcnt 2 rate 1Mbit burst 4Kb lat 400ms\n"
    assert probes.qdisc_rate(limited) == "1Mbit"
    assert probes.qdisc_rate("qdisc noqueue 0: root refcnt 2\n") is None


def test_write_error_is_none_only_when_the_write_went_through():
    assert probes.write_error("written\n") is None
    refused = "sh: 1: cannot create /var/lib/kafka/lab-probe: Read-only file system"
    assert probes.write_error(refused + "\n") == refused
    assert probes.write_error("") == ""


def test_free_bytes_reads_dfs_value():
    assert probes.free_bytes("   Avail\n      0\n") == 0
    assert probes.free_bytes("    Avail\n6241239040\n") == 6241239040


class FakeCanary:
    def __init__(self, acks, recent):
        self.acks, self._recent = acks, recent

    def recent_acks(self):
        return list(self._recent)


ACKS = [(0, 100.0), (1, 100.5), (0, 101.0), (0, 102.5), (3, 103.0)]


def test_acked_sent_after_counts_one_partitions_later_sends():
    assert probes.acked_sent_after(ACKS, 0, 100.0) == 2
    assert probes.acked_sent_after(ACKS, 0, 102.5) == 0


def test_a_control_without_writes_in_the_window_is_not_confirmed():
    sentence, count = probes.window_writes(FakeCanary("1", ACKS), 100.0, "the cut")
    assert (sentence, count) == ("2 records on partition 0 sent after the cut acknowledged (acks=1)", 2)
    with pytest.raises(probes.FaultNotConfirmed, match="no record on partition 0 sent after the cut"):
        probes.window_writes(FakeCanary("1", ACKS), 103.0, "the cut")


def test_acks_all_scenarios_only_report_the_window_writes():
    assert probes.window_writes(FakeCanary("all", ACKS), 103.0, "the cut")[1] == 0


class FakeCluster:
    """Partition states as ZooKeeper would show them, one per read."""

    def __init__(self, *states):
        self.states = list(states)

    def partition_state(self, topic, partition=0):
        return self.states.pop(0) if len(self.states) > 1 else self.states[0]


def state(leader, isr, epoch=5):
    return {"leader": leader, "isr": isr, "leader_epoch": epoch}


def test_leadership_moved_waits_for_a_live_new_leader(monkeypatch):
    monkeypatch.setattr(probes.time, "sleep", lambda _: None)
    cluster = FakeCluster(state(3, [3, 1, 2]), state(-1, [3]), state(1, [1, 2], epoch=6))
    sentence, seen = probes.leadership_moved(cluster, "t", 3, timeout=60)
    assert seen == state(1, [1, 2], epoch=6)
    assert sentence == "t[0] leader moved from broker 3 to 1 (epoch 6, ISR [1, 2])"


def test_leadership_that_never_moves_or_only_goes_offline_is_not_confirmed():
    for stuck in (state(3, [3, 1, 2]), state(-1, [3])):
        with pytest.raises(probes.FaultNotConfirmed, match="leadership never moved"):
            probes.leadership_moved(FakeCluster(stuck), "t", 3, timeout=0)


def test_isr_must_still_hold_a_follower_before_the_leader_is_killed():
    assert probes.isr_beyond(FakeCluster(state(3, [3, 1])), "t", 3) == "t[0] ISR [3, 1]"
    with pytest.raises(probes.FaultNotConfirmed, match="ISR shrank to \\[3\\]"):
        probes.isr_beyond(FakeCluster(state(3, [3])), "t", 3)


class Host:
    def __init__(self, name):
        self.name = name


def test_cut_off_needs_every_peer_unreachable(monkeypatch):
    endpoints = {"kafka1": "kafka1.lab.test:9092", "zk1": "10.0.0.11:2181"}
    seen = {"kafka1.lab.test:9092": "timed out", "10.0.0.11:2181": "timed out"}
    monkeypatch.setattr(probes, "endpoint", lambda host: endpoints[host.name])
    monkeypatch.setattr(probes, "connects", lambda targets, host=None: {t: seen[t] for t in targets})
    kafka1, zk1 = Host("kafka1"), Host("zk1")
    assert probes.cut_off(Host("kafka3"), [kafka1, zk1]) == "kafka3 cannot connect to kafka1, zk1 (timed out)"
    seen["10.0.0.11:2181"] = "connected"
    with pytest.raises(probes.FaultNotConfirmed, match="still connects to 10.0.0.11:2181"):
        probes.cut_off(Host("kafka3"), [kafka1, zk1])
