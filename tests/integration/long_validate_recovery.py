"""The canary, the snapshots and the recovery validator end to end on the lab: nothing lost after a
clean run; then records really removed with delete_records are reported, exactly those, and exit 1."""

import json
import pathlib
import signal
import subprocess
import sys
import time
import uuid

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient

from canary import Canary, ensure_topic
from canary.ledger import read_acked
from canary.marks import add_mark
from lab import cluster_settings, faults
from lab.cluster_settings import kafka_config
from lab.config import REPO
from lab.traffic import delete_topic

DELETED_BELOW = 200  # records of partition 0 below this offset are deleted
PAUSE_S = 4          # every broker paused this long: a window without any acknowledgement


def _latest_snapshot(snapshot_dir):
    return max(pathlib.Path(snapshot_dir).glob("*/*/cluster.json")).parent


def test_validator_finds_nothing_lost_then_exactly_the_deleted_records(
        run_playbook, bootstrap_servers, tmp_path):
    topic, ledger = f"canary-{uuid.uuid4().hex[:8]}", tmp_path / "ledger"
    ensure_topic(kafka_config(), topic)  # the kit's admin: the canary's own principal writes and reads only
    canary = subprocess.run([sys.executable, "-m", "canary", "--client-settings", str(cluster_settings.path("canary")),
                             "--topic", topic, "--count", "3000", "--rate", "1500", "--ledger", str(ledger)],
                            cwd=REPO, capture_output=True, text=True, timeout=300)
    assert canary.returncode == 0, canary.stderr[-2000:]
    written = json.loads(canary.stdout.splitlines()[-1])
    assert written == {"topic": topic, "sent": 3000, "acked": 3000, "failed": 0, "unreported": 0}
    entries = read_acked(ledger)
    assert len(entries) == 3000 and all(len(e["sha256"]) == 64 for e in entries)

    snapshots = tmp_path / "snapshots"
    assert run_playbook("snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}").returncode == 0
    before = _latest_snapshot(snapshots)

    clean = run_playbook("validate_recovery.yml", "-e", f"before_snapshot={before}", "-e", f"ledger={ledger}",
                         "-e", f"snapshot_dir={snapshots}", "-e", f"report_dir={tmp_path / 'clean'}",
                         "-e", "check_duplicates=true")
    assert clean.returncode == 0, clean.stdout[-3000:] + clean.stderr[-2000:]
    assert "NOTHING LOST" in clean.stdout
    result = json.loads((tmp_path / "clean" / "result.json").read_text())
    assert result["verdict"] == "ok" and result["lost_records_total"] == 0 and result["duplicate_records_total"] == 0
    assert result["topics"][topic] == {"acknowledged": 3000, "lost": 0}
    assert (tmp_path / "clean" / "chart.png").stat().st_size > 0

    admin = AdminClient(kafka_config(bootstrap_servers))
    gone = TopicPartition(topic, 0, DELETED_BELOW)
    admin.delete_records([gone])[gone].result(30)
    expected = sorted(e["offset"] for e in entries if e["partition"] == 0 and e["offset"] < DELETED_BELOW)
    assert expected, "the canary wrote to partition 0"

    lossy = run_playbook("validate_recovery.yml", "-e", f"before_snapshot={before}", "-e", f"ledger={ledger}",
                         "-e", f"snapshot_dir={snapshots}", "-e", f"report_dir={tmp_path / 'lossy'}")
    assert lossy.returncode != 0
    assert "LOSS OR REGRESSION FOUND" in lossy.stdout + lossy.stderr
    result = json.loads((tmp_path / "lossy" / "result.json").read_text())
    assert result["exit_status"] == 1 and result["failed_checks"] == ["lost_records"]
    assert result["lost_records_total"] == len(expected)
    assert result["topics"][topic] == {"acknowledged": 3000, "lost": len(expected)}
    assert [(r["partition"], r["offset"]) for r in result["lost_records"]] == [(0, o) for o in expected]
    assert {r["reason"] for r in result["lost_records"]} == {"below_log_start"}
    assert "LOSS OR REGRESSION FOUND" in (tmp_path / "lossy" / "report.md").read_text()
    admin.delete_topics([topic])[topic].result(30)


def test_canary_with_acks_1_writes_its_ledger_too(bootstrap_servers, tmp_path):
    topic, ledger = f"canary-{uuid.uuid4().hex[:8]}", tmp_path / "ledger"
    ensure_topic(kafka_config(), topic)
    canary = subprocess.run([sys.executable, "-m", "canary", "--client-settings", str(cluster_settings.path("canary")),
                             "--topic", topic, "--count", "500", "--rate", "1000", "--acks", "1",
                             "--ledger", str(ledger)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert canary.returncode == 0, canary.stderr[-2000:]
    assert json.loads(canary.stdout.splitlines()[-1])["acked"] == 500
    entries = read_acked(ledger)
    assert len({(e["partition"], e["offset"]) for e in entries}) == 500
    assert all(e["acked_at"] > 1.7e9 for e in entries)
    admin = AdminClient(kafka_config(bootstrap_servers))
    admin.delete_topics([topic])[topic].result(30)


def test_a_canary_killed_with_sigkill_leaves_a_ledger_with_nothing_reported_lost(run_playbook, bootstrap_servers,
                                                                                  tmp_path):
    """SIGKILL takes the canary's last second of acknowledgements out of its ledger (canary/ledger.py): the
    cluster holds more records than the ledger, and the validator reports none of them lost."""
    topic, ledger, snapshots = f"canary-{uuid.uuid4().hex[:8]}", tmp_path / "ledger", tmp_path / "snapshots"
    ensure_topic(kafka_config(), topic)
    canary = subprocess.Popen([sys.executable, "-m", "canary", "--client-settings",
                               str(cluster_settings.path("canary")), "--topic", topic, "--rate", "1000",
                               "--ledger", str(ledger)], cwd=REPO)
    try:
        time.sleep(5)  # the topic exists and holds records
        assert run_playbook("snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}").returncode == 0
        time.sleep(5)
    finally:
        canary.send_signal(signal.SIGKILL)
        canary.wait()
    in_ledger = len(read_acked(ledger))
    consumer = Consumer(kafka_config(bootstrap_servers) | {"group.id": "sigkill-test"})
    stored = sum(consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1]
                 for p in consumer.list_topics(topic, timeout=30).topics[topic].partitions)
    consumer.close()
    assert 0 < in_ledger < stored, (in_ledger, stored)

    validated = run_playbook("validate_recovery.yml", "-e", f"before_snapshot={_latest_snapshot(snapshots)}",
                             "-e", f"ledger={ledger}", "-e", f"snapshot_dir={snapshots}",
                             "-e", f"report_dir={tmp_path / 'report'}")
    assert validated.returncode == 0, validated.stdout[-3000:]
    result = json.loads((tmp_path / "report" / "result.json").read_text())
    assert (result["verdict"], result["lost_records_total"]) == ("ok", 0)
    assert result["topics"][topic] == {"acknowledged": in_ledger, "lost": 0}
    delete_topic(bootstrap_servers, topic)


def test_the_timeline_has_the_window_every_broker_was_paused(run_playbook, bootstrap_servers, brokers, tmp_path):
    """Every broker SIGSTOPped for PAUSE_S under a canary: result.json's windows without an acknowledgement are
    the gaps counted by hand over the ledger's acked_at, one of them the pause; the marks and a chart are there."""
    topic, ledger, marks = f"canary-{uuid.uuid4().hex[:8]}", tmp_path / "ledger", tmp_path / "marks.jsonl"
    ensure_topic(kafka_config(bootstrap_servers), topic, partitions=3)
    snapshots = tmp_path / "snapshots"
    canary = Canary(kafka_config(principal="canary"), topic, ledger, rate=100).start()
    try:
        time.sleep(5)
        assert run_playbook("snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}").returncode == 0
        paused_at = time.time()
        for host in brokers:
            faults.pause(host, "kafka")
        time.sleep(PAUSE_S)
    finally:
        for host in brokers:
            faults.resume(host, "kafka")
    add_mark(marks, "every broker paused", at=paused_at, until=time.time())
    time.sleep(5)
    canary.stop()

    report = tmp_path / "report"
    validated = run_playbook("validate_recovery.yml", "-e", f"before_snapshot={_latest_snapshot(snapshots)}",
                             "-e", f"ledger={ledger}", "-e", f"snapshot_dir={snapshots}",
                             "-e", f"report_dir={report}", "-e", f"timeline_marks={marks}")
    assert validated.returncode == 0, validated.stdout[-3000:] + validated.stderr[-2000:]
    timeline = json.loads((report / "result.json").read_text())["timeline"]

    times = sorted(e["acked_at"] for e in read_acked(ledger))
    by_hand = [(a, b) for a, b in zip(times, times[1:], strict=False) if b - a > 1]
    assert [(w["start"], w["end"]) for w in timeline["unavailable_windows"]] == by_hand
    assert any(start <= paused_at + 1 and end >= paused_at + PAUSE_S for start, end in by_hand), \
        f"no window covers the pause at {paused_at}: {by_hand}"
    assert (timeline["first_acked_at"], timeline["last_acked_at"]) == (times[0], times[-1])
    assert [m["label"] for m in timeline["marks"]] == ["every broker paused"]
    assert timeline["failed_sends"] == 0
    assert (report / "chart.png").read_bytes()[:4] == b"\x89PNG"
    delete_topic(bootstrap_servers, topic)
