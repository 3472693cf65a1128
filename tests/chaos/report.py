"""Write docs/reliability.md from the scenario summaries a chaos run left in .cache/chaos/<scenario>/.

  PYTHONPATH=. python tests/chaos/report.py [RESULTS_DIR] > docs/reliability.md   (make chaos does this)
"""

import datetime
import json
import pathlib
import sys

from harness import RATE
from scenarios import SCENARIOS

REPO = pathlib.Path(__file__).resolve().parents[2]


def _row(scenario, summary):
    if summary is None:
        return f"| {scenario.number} | {scenario.title} | {scenario.acks} | not run | | | | | |"
    lost = summary["lost"]
    if scenario.negative_control:
        lost = f"{lost} (expected > 0)" if lost else "0 (none this run; loss possible)"
    verdict = "NOTHING LOST" if summary["verdict"] == "ok" else \
        f"LOSS OR REGRESSION ({', '.join(summary['failed_checks'])})"
    return (f"| {scenario.number} | {scenario.title} | {summary['acks']} | {summary['acked']:,} | {lost} | "
            f"{summary['duplicates']} | {summary['failed']:,} | {summary['unavailable_s']} | {verdict} |")


def _details(scenario, summary):
    notes = "; ".join(f"{k}: {v}" for k, v in summary["notes"].items())
    errors = "; ".join(summary["failure_errors"]) or "none"
    share = summary["fault_at_s"] / summary["run_s"] if summary["run_s"] else 0
    return (f"- **{scenario.number}** `{scenario.key}`: {notes}. Canary ran {summary['run_s']} s, fault "
            f"at {summary['fault_at_s']} s ({share:.0%} in), fault and heal took {summary['fault_s']} s, "
            f"cluster healthy {summary['recovered_s']} s after the canary stopped. Sent {summary['sent']:,}; "
            f"lost by reason {json.dumps(summary['lost_by_reason'])}; not read back by a plain consumer "
            f"{summary['not_read_back']}; failed sends' errors: {errors}.")


def render(results_dir):
    summaries = {}
    for scenario in SCENARIOS:
        path = results_dir / scenario.key / "summary.json"
        summaries[scenario.key] = json.loads(path.read_text()) if path.exists() else None
    today = datetime.date.today().isoformat()
    lines = [
        "# Reliability: acknowledged messages under injected faults",
        "",
        f"Measured on the lab by `make chaos` on {today} (tests/chaos/; how to rerun one scenario: "
        "docs/runbooks/reproduce-a-fault.md). Cluster: 3 brokers (Kafka 3.9, ZooKeeper mode) and 3 ZooKeeper "
        "nodes as site.yml deploys them: RF 3, min.insync.replicas 2, unclean leader election off, "
        "zookeeper.session.timeout.ms 18000.",
        "",
        f"Each scenario: a fresh 6-partition canary topic; the canary (python -m canary) writes {RATE} "
        "records/s, acks=all with idempotence (acks=1 in the controls), a delivery timeout of 120 s (20 s "
        "in scenario 6, so refused writes show as failed sends); the fault about a third of the "
        "way in, then healed; the canary stops, the cluster is healthy again, and the Spark validator "
        "(playbooks/validate_recovery.yml) checks every acknowledged record against the topic read back.",
        "",
        "- **acked**: records the cluster acknowledged (the canary's ledger).",
        "- **lost**: acknowledged records not readable afterwards with the value written (Spark validator; "
        "a plain consumer's read-back agrees in every row, see the details).",
        "- **dups**: keys readable at more than one offset (a retried write stored twice; not loss).",
        "- **failed**: sends the client gave up on (not acknowledged: the writer knows, nothing is lost).",
        "- **unavail. s**: seconds during which some write waited more than 1 s for its acknowledgement or "
        "failed (length of the union of those writes' send-to-answer spans).",
        "- Scenarios 2c, 4c and 5c are negative controls with acks=1, where loss is expected: they show "
        "the validator catches loss when there is some.",
        "",
        "| # | scenario | acks | acked | lost | dups | failed | unavail. s | validator |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [_row(s, summaries[s.key]) for s in SCENARIOS]
    lines += ["", "## Details", ""]
    lines += [_details(s, summaries[s.key]) for s in SCENARIOS if summaries[s.key]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / ".cache" / "chaos"))
