"""The chaos scenarios on the lab (scenarios.py): each fault confirmed by a probe; nothing acknowledged with
acks=all is lost under any fault; the acks=1 negative controls lose acknowledged records every time and the
validator reports exactly the loss a plain read-back finds (expectations.py).

`make chaos` runs them all and writes docs/reliability.md from the summaries left in .cache/chaos/ (report.py),
each with its verdict. CHAOS_SCENARIOS may name some: CHAOS_SCENARIOS=slow-leader,leader-disk-full.
"""

import os

import expectations
import harness
import outcome
import pytest
from lab_cluster import LabCluster
from scenarios import SCENARIOS

from lab import cli, config

RESULTS = config.REPO / ".cache" / "chaos"


def _selected():
    wanted = os.environ.get("CHAOS_SCENARIOS", "all")
    if wanted == "all":
        return SCENARIOS
    keys = wanted.split(",")
    unknown = set(keys) - {s.key for s in SCENARIOS}
    if unknown:
        raise ValueError(f"CHAOS_SCENARIOS names no scenario {sorted(unknown)}; "
                         f"known: {', '.join(s.key for s in SCENARIOS)}")
    return [s for s in SCENARIOS if s.key in keys]


@pytest.mark.parametrize("scenario", _selected(), ids=lambda s: s.key)
def test_scenario(scenario):
    workdir = RESULTS / scenario.key
    start = outcome.begin(workdir, scenario)
    figures, failure = {}, None
    try:
        figures = harness.run(scenario, LabCluster(), workdir)
        unmet = expectations.failures(scenario, figures)
        if unmet:
            raise AssertionError("; ".join(unmet))  # its message is the row's reason in the report
    except BaseException as exc:
        failure = outcome.describe(exc)
        cli.heal(config.load_hosts())  # leave the lab whole for the next scenario
        raise
    finally:
        # The verdict goes into summary.json whatever happened: report.py shows the row FAILED and why.
        outcome.finish(workdir, start, figures, failure)
