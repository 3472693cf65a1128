"""spark/validate_recovery.py on bad input: exit status 2 and a message naming the problem. Run as an
operator runs it (a subprocess), without a cluster."""

import json
import os
import subprocess
import sys

from lab.config import REPO

sys.path.insert(0, str(REPO / "spark"))
import validate_recovery  # noqa: E402

SCRIPT = REPO / "spark" / "validate_recovery.py"
PARTITION = {"topic": "t", "partition": 0, "log_start_offset": 0, "high_watermark": 3, "leader": 1,
             "replicas": [1, 2, 3], "isr": [1, 2, 3]}
LEDGER_LINE = {"topic": "t", "partition": 0, "offset": 1, "key": "k", "sha256": "ab" * 32}


def _snapshot(folder, cluster_id="c1"):
    folder.mkdir(parents=True)
    cluster = {"cluster_id": cluster_id, "taken_at": "2026-11-21T13:05:01Z", "controller_id": 1,
               "brokers": []}
    (folder / "cluster.json").write_text(json.dumps(cluster))
    (folder / "partitions.jsonl").write_text(json.dumps(PARTITION) + "\n")
    (folder / "group_offsets.jsonl").write_text("")
    return folder


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def test_a_folder_that_is_no_snapshot(tmp_path):
    after = _snapshot(tmp_path / "after")
    proc = _run("--before", tmp_path / "nothing", "--after", after, "--report-dir", tmp_path / "r")
    assert proc.returncode == 2
    assert "nothing is not a snapshot: cluster.json, partitions.jsonl, group_offsets.jsonl missing" \
        in proc.stderr
    assert not (tmp_path / "r").exists()


def test_snapshots_of_two_clusters(tmp_path):
    proc = _run("--before", _snapshot(tmp_path / "b", "one"), "--after", _snapshot(tmp_path / "a", "two"),
                "--report-dir", tmp_path / "r")
    assert proc.returncode == 2
    assert "the snapshots are of two clusters: one (before" in proc.stderr


def _run_with_ledger(tmp_path, lines):
    ledger = tmp_path / "ledger.jsonl"
    text = [line if isinstance(line, str) else json.dumps(line) for line in lines]
    ledger.write_text("\n".join(text) + "\n")
    return _run("--before", _snapshot(tmp_path / "b"), "--after", _snapshot(tmp_path / "a"),
                "--ledger", ledger, "--bootstrap-servers", "127.0.0.1:1", "--report-dir", tmp_path / "r",
                "--master", "local[1]")


def test_a_ledger_with_malformed_lines(tmp_path):
    # line 2 is no JSON, line 4 has no partition; the blank line 5 is skipped
    proc = _run_with_ledger(tmp_path, [LEDGER_LINE, "not json", LEDGER_LINE, {"topic": "t", "offset": 4}, ""])
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "has 2 malformed line(s), the first at line 2" in proc.stderr


def test_an_unreachable_cluster(tmp_path):
    proc = _run_with_ledger(tmp_path, [LEDGER_LINE])
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "cannot reach the cluster at 127.0.0.1:1" in proc.stderr


def test_offset_ranges_read_back_only_what_the_ledger_covers_within_the_log():
    offset_ranges = validate_recovery.offset_ranges
    partitions = [{"topic": "t", "partition": p, "first": first, "last": last, "without_offset": without}
                  for p, first, last, without in [(0, 10, 19, 0),   # within the log
                                                  (1, 0, 99, 0),    # the log starts at 50 now, ends at 80
                                                  (2, 0, 9, 0),     # everything deleted
                                                  (3, 5, 6, 1),     # a line without an offset: all of the log
                                                  (4, 0, 9, 0)]]    # the partition is gone
    earliest = {("t", 0): 0, ("t", 1): 50, ("t", 2): 10, ("t", 3): 2}
    latest = {("t", 0): 100, ("t", 1): 80, ("t", 2): 10, ("t", 3): 40}
    assert offset_ranges(partitions, earliest, latest) == {("t", 0): (10, 20), ("t", 1): (50, 80),
                                                           ("t", 3): (2, 40)}


def test_a_local_ledger_path_with_a_cluster_master_is_refused(tmp_path):
    (tmp_path / "ledger").mkdir()
    proc = _run("--before", _snapshot(tmp_path / "b"), "--after", _snapshot(tmp_path / "a"),
                "--ledger", tmp_path / "ledger", "--bootstrap-servers", "127.0.0.1:1", "--report-dir", tmp_path / "r",
                "--master", "spark://nowhere:7077")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert f"--ledger {tmp_path / 'ledger'} is a path on this machine, but the executors of the master " \
           "spark://nowhere:7077 run on other hosts" in proc.stderr
    assert not (tmp_path / "r").exists()


def test_a_local_ledger_path_submitted_to_a_cluster_master_is_refused(tmp_path):
    """spark-submit's --master reaches the job as a setting of the JVM spark-submit started, not as an argument:
    the job must read it there and refuse, as with its own --master (before, it started on the cluster and
    crashed with exit 1, the status of a loss). No master listens at the address: a refusal never connects."""
    (tmp_path / "ledger").mkdir()
    # The checkout's spark-submit finds pyspark through PYSPARK_PYTHON (spark/README.md), with no activated venv.
    proc = subprocess.run([str(REPO / ".venv" / "bin" / "spark-submit"), "--master", "spark://127.0.0.1:9",
                           str(SCRIPT), "--before", str(_snapshot(tmp_path / "b")), "--after",
                           str(_snapshot(tmp_path / "a")), "--ledger", str(tmp_path / "ledger"),
                           "--bootstrap-servers", "127.0.0.1:1", "--report-dir", str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    output = proc.stdout + proc.stderr  # spark-submit passes the job's stderr on through its stdout
    assert proc.returncode == 2, output[-3000:]
    assert f"--ledger {tmp_path / 'ledger'} is a path on this machine, but the executors of the master " \
           "spark://127.0.0.1:9 run on other hosts" in output
    assert not (tmp_path / "r").exists()


def test_the_master_that_is_checked_is_the_one_the_session_gets():
    effective_master = validate_recovery.effective_master
    assert effective_master(None, []) == "local[*]"
    assert effective_master("spark://m:7077", []) == "spark://m:7077"
    # under spark-submit its master holds, whatever --master says
    assert effective_master(None, [], submitted_to="yarn") == "yarn"
    assert effective_master("local[2]", [], submitted_to="k8s://api:443") == "k8s://api:443"
    assert effective_master(None, [], submitted_to="local[*]") == "local[*]"
    # a --conf spark.master=... overrides both, the last one given
    conf = ["spark.driver.memory=1g", "spark.master=local[1]", "spark.master=spark://m:7077"]
    assert effective_master("local[2]", conf) == "spark://m:7077"
    assert effective_master(None, conf, submitted_to="local[*]") == "spark://m:7077"


def test_a_crash_exits_3_not_the_status_of_a_loss(tmp_path):
    """Spark cannot start (a driver memory it cannot parse): exit 3 and the traceback, never 1 (records lost)."""
    snapshot = _snapshot(tmp_path / "b")
    proc = _run("--before", snapshot, "--after", snapshot, "--report-dir", tmp_path / "r", "--master", "local[1]",
                "--conf", "spark.driver.memory=lots")
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert "Traceback (most recent call last)" in proc.stderr
    assert "validate_recovery: crashed (exit 3), no verdict" in proc.stderr
    assert not (tmp_path / "r").exists()


def test_ledger_locations_executors_can_read():
    ledger_location_problem = validate_recovery.ledger_location_problem
    assert ledger_location_problem("local[*]", "/var/tmp/ledger") is None
    assert ledger_location_problem("spark://m:7077", "file:///shared/ledger") is None
    assert ledger_location_problem("yarn", "hdfs://nn/ledger") is None
    assert ledger_location_problem("spark://m:7077", None) is None
    assert ledger_location_problem("local-cluster[2,1,1024]", "/var/tmp/ledger") is None  # executors on this machine
    for master in ("spark://m:7077", "yarn", "k8s://api:443"):
        assert "is a path on this machine" in ledger_location_problem(master, "/var/tmp/ledger")


def test_what_was_not_checked_is_said():
    everything = {"ledger_given": True, "ledger_topics": ["t"], "before_topics": {"t"}, "has_timeline": True,
                  "failed_recorded": True, "duplicates_checked": True}
    assert validate_recovery.not_checked(**everything) == []
    assert validate_recovery.not_checked(**everything | {"ledger_given": False}) == [
        "acknowledged records and the timeline: no ledger was given (--ledger)"]
    reasons = validate_recovery.not_checked(**everything | {"ledger_topics": ["t", "new", "a"], "has_timeline": False,
                                                           "failed_recorded": False, "duplicates_checked": False})
    assert [r.split(":")[0] for r in reasons] == ["high watermarks of a, new", "the timeline", "failed sends",
                                                  "duplicate records"]


def test_marks_that_are_not_marks(tmp_path):
    marks = tmp_path / "marks.jsonl"
    marks.write_text('{"at": 1, "label": "fault"}\n{"label": "no time"}\n')
    after = _snapshot(tmp_path / "after")
    proc = _run("--before", after, "--after", after, "--report-dir", tmp_path / "r", "--marks", marks)
    assert proc.returncode == 2
    assert f"--marks {marks}: {marks} line 2 is not a mark (KeyError('at'))" in proc.stderr


def test_shuffles_grow_with_the_ledger_past_a_few_partitions_per_core():
    rows = validate_recovery.ROWS_PER_SHUFFLE_PARTITION
    assert validate_recovery.shuffle_partitions(0, cores=2) == 8
    assert validate_recovery.shuffle_partitions(8 * rows, cores=2) == 8
    assert validate_recovery.shuffle_partitions(8 * rows + 1, cores=2) == 9
    assert validate_recovery.shuffle_partitions(100_000_000, cores=2) == 100_000_000 // rows
