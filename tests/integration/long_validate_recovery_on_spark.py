"""The recovery validator on a Spark standalone cluster (lab/spark.py: a master on spark1, workers on spark2 and
spark3): nothing lost after a clean run, then exactly the records removed with delete_records; the tasks ran on
the worker hosts, as the application's event log records them. Through spark-submit, whose --master the job
reads from its JVM: a ledger path of this machine is refused (exit 2), and a crash is no loss (exit 3). About 2
minutes: make test-long runs it (pytest collects long_*.py files only when named)."""

import json
import os
import subprocess
import sys
import uuid

import pytest
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient

from canary import ensure_topic
from canary.ledger import read_acked
from lab import cluster_settings, config, spark
from lab.cluster_settings import kafka_config

DELETED_BELOW = 100


@pytest.fixture(scope="module")
def spark_cluster():
    subprocess.run([sys.executable, "-m", "lab", "spark-up"], cwd=config.REPO, check=True)
    yield spark.MASTER_URL
    subprocess.run([sys.executable, "-m", "lab", "spark-down"], cwd=config.REPO, check=True)


def _task_hosts(event_dir):
    """The hosts the application's tasks ran on, from its Spark event log."""
    hosts = set()
    for log in event_dir.rglob("events_*"):  # eventlog_v2_<app>/events_<n>_<app> (next to an empty appstatus)
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event["Event"] == "SparkListenerTaskEnd":
                hosts.add(event["Task Info"]["Host"])
    return hosts


def _submit(*job_args):
    """spark/validate_recovery.py submitted to the lab's Spark cluster as spark/README.md shows: the checkout's
    spark-submit with the venv's Python, its --master and --jars, the driver reachable from the workers. The
    finished process, with .output: spark-submit passes the job's stderr on through its stdout."""
    jars = ",".join(str(j) for j in sorted((config.REPO / ".cache" / "spark-jars").glob("*.jar")))
    proc = subprocess.run([str(config.REPO / ".venv" / "bin" / "spark-submit"), "--master", spark.MASTER_URL,
                           "--jars", jars, "--conf", f"spark.driver.host={spark.driver_address()}",
                           "spark/validate_recovery.py", *map(str, job_args)],
                          cwd=config.REPO, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    proc.output = proc.stdout + proc.stderr
    return proc


def _validate(run_playbook, before, ledger, snapshots, report, events):
    events.mkdir()
    conf = [f"spark.driver.host={spark.driver_address()}", "spark.eventLog.enabled=true",
            f"spark.eventLog.dir={events.as_uri()}", "spark.eventLog.compress=false"]
    proc = run_playbook("validate_recovery.yml", "-e", f"before_snapshot={before}", "-e", f"ledger={ledger.as_uri()}",
                        "-e", f"snapshot_dir={snapshots}", "-e", f"report_dir={report}",
                        "-e", f"spark_master={spark.MASTER_URL}", "-e", json.dumps({"spark_conf": conf}))
    result = json.loads((report / "result.json").read_text()) if (report / "result.json").exists() else None
    return proc, result


def test_validator_on_a_spark_cluster_finds_nothing_lost_then_exactly_the_deleted_records(
        spark_cluster, run_playbook, bootstrap_servers, tmp_path):
    topic, work = f"canary-{uuid.uuid4().hex[:8]}", spark.SHARED / uuid.uuid4().hex[:8]
    ledger = work / "ledger"  # on the folder the workers see at the same path
    ensure_topic(kafka_config(), topic)  # the kit's admin: the canary's own principal writes and reads only
    canary = subprocess.run([sys.executable, "-m", "canary", "--client-settings", str(cluster_settings.path("canary")),
                             "--topic", topic, "--count", "3000", "--rate", "1500", "--ledger", str(ledger)],
                            cwd=config.REPO, capture_output=True, text=True, timeout=300)
    assert canary.returncode == 0, canary.stderr[-2000:]
    entries = read_acked(ledger)
    snapshots = tmp_path / "snapshots"
    assert run_playbook("snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}").returncode == 0
    before = max(snapshots.glob("*/*/cluster.json")).parent

    clean, result = _validate(run_playbook, before, ledger, snapshots, tmp_path / "clean", tmp_path / "events-clean")
    assert clean.returncode == 0, clean.stdout[-3000:]
    assert (result["verdict"], result["lost_records_total"]) == ("ok", 0)
    assert result["topics"][topic] == {"acknowledged": 3000, "lost": 0}
    workers = {w.fqdn for w in spark.WORKERS} | {w.address for w in spark.WORKERS}
    ran_on = _task_hosts(tmp_path / "events-clean")
    assert ran_on and ran_on <= workers, f"tasks ran on {ran_on}, not only on the workers {workers}"
    assert len(ran_on) == len(spark.WORKERS), f"tasks ran on {ran_on}: not on every worker"

    # The same job through spark-submit (spark/README.md): its --master and --jars hold.
    submitted = _submit("--before", before, "--after", result["after"], "--ledger", ledger.as_uri(),
                        "--client-settings", cluster_settings.path("validator"), "--report-dir", tmp_path / "submitted")
    assert submitted.returncode == 0, submitted.output[-3000:]
    assert json.loads((tmp_path / "submitted" / "result.json").read_text())["topics"][topic] == {
        "acknowledged": 3000, "lost": 0}

    admin = AdminClient(kafka_config(bootstrap_servers))
    gone = TopicPartition(topic, 0, DELETED_BELOW)
    admin.delete_records([gone])[gone].result(30)
    expected = sorted(e["offset"] for e in entries if e["partition"] == 0 and e["offset"] < DELETED_BELOW)
    lossy, result = _validate(run_playbook, before, ledger, snapshots, tmp_path / "lossy", tmp_path / "events-lossy")
    assert lossy.returncode != 0 and result["exit_status"] == 1
    assert [(r["partition"], r["offset"], r["reason"]) for r in result["lost_records"]] == [
        (0, o, "below_log_start") for o in expected]
    assert _task_hosts(tmp_path / "events-lossy") <= workers
    admin.delete_topics([topic])[topic].result(30)


def test_under_spark_submit_a_local_ledger_path_is_refused_and_a_crash_is_no_loss(spark_cluster, tmp_path):
    """The cluster is named by spark-submit's --master only. A ledger path of this machine: refused with exit 2
    before the job starts (it used to start, crash on the executors and exit 1, the status of a loss). A ledger
    URI of this machine's /tmp, which the driver sees and the workers do not: the job crashes on the executors,
    exit 3. Neither writes a report."""
    snapshot = tmp_path / "snapshot"  # read on the driver: a path of this machine is right for it
    snapshot.mkdir()
    (snapshot / "cluster.json").write_text(json.dumps({"cluster_id": "c1", "taken_at": "2026-11-21T13:05:01Z",
                                                       "controller_id": 1, "brokers": []}))
    (snapshot / "partitions.jsonl").write_text(json.dumps(
        {"topic": "t", "partition": 0, "log_start_offset": 0, "high_watermark": 1, "leader": 1,
         "replicas": [1, 2, 3], "isr": [1, 2, 3]}) + "\n")
    (snapshot / "group_offsets.jsonl").write_text("")
    ledger = tmp_path / "ledger.jsonl"  # not below spark.SHARED: no worker has it
    ledger.write_text(json.dumps({"topic": "t", "partition": 0, "offset": 0, "key": "k", "sha256": "ab" * 32}) + "\n")
    common = ("--before", snapshot, "--after", snapshot, "--client-settings", cluster_settings.path("validator"))

    refused = _submit(*common, "--ledger", ledger, "--report-dir", tmp_path / "refused")
    assert refused.returncode == 2, refused.output[-3000:]
    assert (f"--ledger {ledger} is a path on this machine, but the executors of the master {spark.MASTER_URL} run "
            "on other hosts") in refused.output
    assert not (tmp_path / "refused").exists()

    crashed = _submit(*common, "--ledger", ledger.as_uri(), "--report-dir", tmp_path / "crashed")
    assert crashed.returncode == 3, crashed.output[-3000:]
    assert "validate_recovery: crashed (exit 3), no verdict" in crashed.output
    assert not (tmp_path / "crashed").exists()
