"""The chaos scenarios on the lab (scenarios.py): nothing acknowledged with acks=all is lost under any
fault, and with acks=1 (negative controls) the validator reports exactly the loss a plain read-back finds.

`make test` runs scenarios.QUICK; `make chaos` runs all (CHAOS_SCENARIOS=all) and writes
docs/reliability.md from the summaries left in .cache/chaos/ (report.py).
CHAOS_SCENARIOS may also name scenarios: CHAOS_SCENARIOS=slow-leader,leader-disk-full.
"""

import os

import harness
import pytest
from lab_cluster import LabCluster
from scenarios import QUICK, SCENARIOS

from lab import cli, config

RESULTS = config.REPO / ".cache" / "chaos"


def _selected():
    wanted = os.environ.get("CHAOS_SCENARIOS", "quick")
    if wanted == "all":
        return SCENARIOS
    keys = QUICK if wanted == "quick" else wanted.split(",")
    unknown = set(keys) - {s.key for s in SCENARIOS}
    if unknown:
        raise ValueError(f"CHAOS_SCENARIOS names no scenario {sorted(unknown)}; "
                         f"known: {', '.join(s.key for s in SCENARIOS)}")
    return [s for s in SCENARIOS if s.key in keys]


@pytest.mark.parametrize("scenario", _selected(), ids=lambda s: s.key)
def test_scenario(scenario):
    cluster = LabCluster()
    try:
        summary = harness.run(scenario, cluster, RESULTS / scenario.key)
    except BaseException:
        cli.heal(config.load_hosts())  # leave the lab whole for the next scenario
        raise
    assert summary["acked"] > 0 and summary["unreported"] == 0
    # The Spark validator and a plain consumer reading the topic back agree on what is gone.
    assert summary["lost"] == summary["not_read_back"], summary
    if scenario.negative_control:
        if summary["lost"]:
            assert summary["validator_exit"] != 0 and "lost_records" in summary["failed_checks"], summary
    else:
        assert summary["lost"] == 0 and summary["verdict"] == "ok" and summary["validator_exit"] == 0, summary
        assert summary["duplicates"] == 0, summary
    if scenario.key == "two-followers-cut":
        assert summary["notes"]["not_enough_replicas_after_s"] is not None, "writes were never refused"
