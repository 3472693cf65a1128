"""docs/reliability.md as tests/chaos/report.py renders it from hand-written run records and summaries: only
what the run computed, a failed row FAILED with its reason, disagreements named, missing rows not run."""

import json

import report
from scenarios import SCENARIOS

SETTINGS = {"brokers": 3, "zookeeper_nodes": 3, "partitions": 6, "replication_factor": 3,
            "min.insync.replicas": "2", "unclean.leader.election.enable": "false",
            "zookeeper.session.timeout.ms": "18000", "replica.lag.time.max.ms": "30000",
            "inter.broker.protocol.version": "3.9-IV0"}
RUN = {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": False, "changed": [],
       "started_at": "2026-12-01T10:00:00Z", "ended_at": "2026-12-01T10:41:03Z", "pytest_status": 1}


def summary(key, **changes):
    """A passed acks=all row, as outcome.finish writes it after harness.run."""
    scenario = next(s for s in SCENARIOS if s.key == key)
    row = {"scenario": key, "number": scenario.number, "title": scenario.title, "acks": scenario.acks,
           "started_at": "2026-12-01T10:05:00Z", "ended_at": "2026-12-01T10:07:05Z", "duration_s": 125.0,
           "outcome": "passed", "failure": None, "topic": f"chaos-{key}-abcdef", "settings": SETTINGS,
           "sent": 14000, "acked": 14000, "failed": 0, "unreported": 0, "acked_before_snapshot": 1200,
           "lost": 0, "lost_by_reason": {}, "not_read_back": 0, "duplicates": 0, "verdict": "ok",
           "failed_checks": [], "validator_exit": 0, "unavailable_s": 15.9, "failure_errors": [],
           "run_s": 70.1, "fault_at_s": 20.0, "fault_s": 30.1, "recovered_s": 2.1,
           "notes": {"cut": "kafka3 from zk1, zk2, zk3", "confirmed": ["kafka3 cannot connect to zk1"]},
           "report": "report.md"}
    row.update(changes)
    return row


def write(results, run=RUN, **summaries):
    results.mkdir(parents=True, exist_ok=True)
    if run is not None:
        (results / "run.json").write_text(json.dumps(run))
    for key, row in summaries.items():
        (results / key).mkdir()
        (results / key / "summary.json").write_text(json.dumps(row))
    return report.render(results)


def table_row(text, number):
    return next(line for line in text.splitlines() if line.startswith(f"| {number} |"))


def test_a_row_whose_assertions_failed_says_failed_and_why_and_not_nothing_lost(tmp_path):
    text = write(tmp_path, **{"leader-cut-from-zk": summary(
        "leader-cut-from-zk", outcome="FAILED", failure="3 duplicate records despite the idempotent producer",
        duplicates=3)})
    row = table_row(text, "4")
    assert row.endswith("| FAILED: 3 duplicate records despite the idempotent producer |")
    assert "nothing lost" not in row.lower()
    assert "- Scenarios: 0 passed, 1 FAILED (4), 15 not run (" in text
    assert "FAILED: 3 duplicate records despite the idempotent producer." in text  # the details


def test_a_row_that_failed_before_the_validator_has_no_figures_and_its_reason(tmp_path):
    failed = {"scenario": "slow-leader", "number": "7", "title": "t", "acks": "all",
              "started_at": "2026-12-01T10:05:00Z", "ended_at": "2026-12-01T10:06:00Z", "duration_s": 60.0,
              "outcome": "FAILED",
              "failure": "FaultNotConfirmed: kafka2: no tbf qdisc on eth0: qdisc noqueue"}
    text = write(tmp_path, **{"slow-leader": failed})
    assert table_row(text, "7") == (
        "| 7 | slow link on the leader (tc tbf 1 mbit/s) | all |  |  |  |  |  |  | 1 min 0 s | "
        "FAILED: FaultNotConfirmed: kafka2: no tbf qdisc on eth0: qdisc noqueue |")
    assert "- Without figures (stopped before the validator): 7." in text


def test_disagreement_between_validator_and_read_back_is_counted_and_named(tmp_path):
    text = write(tmp_path, **{
        "leader-cut-from-zk": summary("leader-cut-from-zk"),
        "leader-cut-from-zk-acks1": summary("leader-cut-from-zk-acks1", acks="1", lost=919, not_read_back=900,
                                            verdict="loss_or_regression", failed_checks=["lost_records"],
                                            validator_exit=2, outcome="FAILED",
                                            failure="the Spark validator counts 919 lost, a plain consumer's "
                                                    "read-back 900")})
    assert ("- The Spark validator and a plain consumer's read-back count the same loss in 1 of 2 rows with "
            "figures; they disagree in 4c (validator 919, read-back 900).") in text
    assert "| 919 | 900 |" in table_row(text, "4c")


def test_agreement_in_every_row_is_stated_only_as_counted(tmp_path):
    text = write(tmp_path, **{"bounce-leader": summary("bounce-leader"),
                              "slow-leader": summary("slow-leader")})
    assert "count the same loss in 2 of 2 rows with figures." in text
    assert "agrees in every row" not in text


def test_a_missing_scenario_shows_not_run(tmp_path):
    text = write(tmp_path, **{"bounce-leader": summary("bounce-leader")})
    assert table_row(text, "2") == (
        "| 2 | hard kill of the leader, then of the controller | all |  |  |  |  |  |  |  | not run |")
    assert table_row(text, "1").endswith("| 2 min 5 s | passed: nothing lost |")
    assert ("- Scenarios: 1 passed, 0 FAILED (none), 15 not run (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, "
            "4c, 5c, 13c), of 16.") in text


def test_a_summary_from_before_or_after_the_run_counts_as_not_run(tmp_path):
    text = write(tmp_path, **{"bounce-leader": summary("bounce-leader", started_at="2026-11-30T09:00:00Z"),
                              "slow-leader": summary("slow-leader", started_at="2026-12-01T11:00:00Z")})
    assert table_row(text, "1").endswith("| not run |") and table_row(text, "7").endswith("| not run |")


def test_a_scenario_without_a_verdict_says_the_run_stopped_in_it(tmp_path):
    started = {"scenario": "pause-leader", "number": "3", "title": "t", "acks": "all",
               "started_at": "2026-12-01T10:05:00Z", "outcome": "running"}
    text = write(tmp_path, **{"pause-leader": started})
    assert table_row(text, "3").endswith("| NO VERDICT: the run stopped during this scenario |")
    assert "1 without a verdict (3)" in text


def test_the_run_record_gives_commit_times_and_wall_time(tmp_path):
    text = write(tmp_path, run=dict(RUN, dirty=True, changed=["tests/chaos/harness.py"]))
    assert ("- Commit `0123456789abcdef0123456789abcdef01234567` (with uncommitted changes to 1 tracked "
            "file(s): tests/chaos/harness.py).") in text
    assert "- Started 2026-12-01T10:00:00Z, ended 2026-12-01T10:41:03Z: 41 min 3 s in all" in text
    assert "- pytest exited 1." in text


def test_without_a_run_record_the_report_says_it_is_not_one_run(tmp_path):
    text = write(tmp_path, run=None, **{"bounce-leader": summary("bounce-leader")})
    assert "No run record (.cache/chaos/run.json): these results are not from one `make chaos` run." in text


def test_totals_and_controls_are_computed_from_the_rows(tmp_path):
    text = write(tmp_path, **{
        "bounce-leader": summary("bounce-leader", acked=10000),
        "slow-leader": summary("slow-leader", acked=5000),
        "leader-cut-from-all-acks1": summary("leader-cut-from-all-acks1", acks="1", lost=1993,
                                             not_read_back=1993, verdict="loss_or_regression",
                                             failed_checks=["lost_records"], validator_exit=2)})
    assert "- acks=all: 2 scenario(s) with figures, 15,000 acknowledged records, 0 lost." in text
    assert "- Negative controls (acks=1) with figures: 5c lost 1,993, the validator failed on them." in text
    assert table_row(text, "5c").endswith(
        "| passed: 1,993 acknowledged records lost, the validator failed on them |")


def test_settings_are_the_ones_read_from_the_cluster_and_differences_are_shown(tmp_path):
    text = write(tmp_path, **{"bounce-leader": summary("bounce-leader"),
                              "slow-leader": summary("slow-leader")})
    assert ("the same in every row that recorded them: 3 brokers, 3 ZooKeeper nodes; the canary topic: 6 "
            "partitions, replication factor 3, min.insync.replicas 2, unclean.leader.election.enable false, "
            "zookeeper.session.timeout.ms 18000, replica.lag.time.max.ms 30000, "
            "inter.broker.protocol.version 3.9-IV0.") in text
    other = dict(SETTINGS, **{"min.insync.replicas": "1"})
    text = write(tmp_path / "second", **{"bounce-leader": summary("bounce-leader"),
                                         "slow-leader": summary("slow-leader", settings=other)})
    assert "- rows 1: 3 brokers" in text and "- rows 7: 3 brokers" in text and "min.insync.replicas 1" in text


def test_the_procedure_figures_come_from_the_harness_constants(tmp_path, monkeypatch):
    monkeypatch.setattr(report, "RATE", 123)
    text = write(tmp_path)
    assert "writes 123 records/s" in text
    assert "with a delivery timeout of 120 s (20 s in scenario 6)" in text
    assert "about 20 s after the canary started (30 s in scenario 11)" in text


def test_durations_read_as_minutes_and_hours():
    assert [report.duration(s) for s in (0, 59.6, 75, 3720)] == \
        ["0 s", "1 min 0 s", "1 min 15 s", "1 h 2 min"]
