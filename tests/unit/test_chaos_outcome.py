"""A chaos scenario's summary.json verdict and timing (tests/chaos/outcome.py) and the run record
(tests/chaos/run_record.py) that report.py reads."""

import json
import re

import outcome
import run_record
from probes import FaultNotConfirmed
from scenarios import SCENARIOS

SCENARIO = SCENARIOS[0]
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def read(workdir):
    return json.loads((workdir / "summary.json").read_text())


def test_begin_empties_the_workdir_and_says_the_scenario_is_running(tmp_path):
    workdir = tmp_path / SCENARIO.key
    workdir.mkdir()
    (workdir / "ledger.jsonl").write_text("{}\n")
    outcome.begin(workdir, SCENARIO)
    assert sorted(p.name for p in workdir.iterdir()) == ["summary.json"]
    summary = read(workdir)
    assert (summary["outcome"], summary["number"]) == ("running", "1")
    assert STAMP.fullmatch(summary["started_at"])


def test_finish_records_a_failure_with_its_reason_and_the_figures(tmp_path):
    workdir = tmp_path / SCENARIO.key
    start = outcome.begin(workdir, SCENARIO)
    outcome.finish(workdir, start, {"lost": 3, "acked": 10}, failure="3 acknowledged records lost ({})")
    summary = read(workdir)
    assert (summary["outcome"], summary["failure"]) == ("FAILED", "3 acknowledged records lost ({})")
    assert summary["lost"] == 3
    assert STAMP.fullmatch(summary["ended_at"]) and summary["duration_s"] >= 0 and "monotonic" not in summary


def test_finish_without_a_failure_is_passed(tmp_path):
    workdir = tmp_path / SCENARIO.key
    outcome.finish(workdir, outcome.begin(workdir, SCENARIO), {"lost": 0})
    assert (read(workdir)["outcome"], read(workdir)["failure"]) == ("passed", None)


def test_describe_names_the_kind_of_failure_except_for_plain_assertions():
    assert outcome.describe(AssertionError("the canary got no acknowledgement")) == \
        "the canary got no acknowledgement"
    assert outcome.describe(FaultNotConfirmed("kafka2: 4096 bytes still free")) == \
        "FaultNotConfirmed: kafka2: 4096 bytes still free"
    assert outcome.describe(TimeoutError()) == "TimeoutError: (no message)"


def test_changed_paths_from_git_status():
    assert run_record.changed_paths(" M Makefile\nR  old.py -> tests/chaos/new.py\n") == \
        ["Makefile", "tests/chaos/new.py"]
    assert run_record.changed_paths("") == []


def test_the_run_record_has_the_commit_and_measured_times(tmp_path):
    started = run_record.start(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{40}", started["commit"]) and STAMP.fullmatch(started["started_at"])
    assert started["dirty"] == bool(started["changed"])
    ended = run_record.end("1", tmp_path)
    assert ended["pytest_status"] == 1 and STAMP.fullmatch(ended["ended_at"])
    assert json.loads((tmp_path / "run.json").read_text()) == ended
