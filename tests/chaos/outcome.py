"""A scenario's summary.json: what report.py reads. begin() writes it when the scenario starts (so a run that
stops half-way shows which scenario it stopped in), finish() when the test has its verdict: the harness's
figures, the scenario's own start, end and duration, and "passed" or "FAILED" with the failure's message.
"""

import datetime
import json
import shutil
import time

PASSED, FAILED, RUNNING = "passed", "FAILED", "running"


def now():
    """The wall-clock time, UTC, as report.py prints it: 2026-11-21T10:04:05Z."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def describe(exc):
    """Why a scenario failed: the exception's message, after its type unless it is a plain assertion
    (FaultNotConfirmed, LabError, TimeoutError, ... say what kind of failure it was)."""
    message = str(exc).strip() or "(no message)"
    return message if type(exc) is AssertionError else f"{type(exc).__name__}: {message}"


def _write(workdir, summary):
    (workdir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


def begin(workdir, scenario):
    """Empty the scenario's workdir and record its start; returns the start for finish()."""
    shutil.rmtree(workdir, ignore_errors=True)  # the canary appends: start from an empty ledger
    workdir.mkdir(parents=True)
    start = {"scenario": scenario.key, "number": scenario.number, "title": scenario.title,
             "acks": scenario.acks, "started_at": now(), "outcome": RUNNING}
    _write(workdir, start)
    return dict(start, monotonic=time.monotonic())


def finish(workdir, start, figures, failure=None):
    """Write the summary: the start, the harness's figures (empty when it failed before it had any), the
    end, the duration and the verdict (failure: None when every assertion held, else why)."""
    summary = {key: value for key, value in start.items() if key != "monotonic"}
    summary.update(figures)
    summary.update(ended_at=now(), duration_s=round(time.monotonic() - start["monotonic"], 1),
                   outcome=FAILED if failure else PASSED, failure=failure)
    _write(workdir, summary)
    return summary
