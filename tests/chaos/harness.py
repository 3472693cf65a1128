"""One chaos run: a fresh canary topic, a snapshot, the canary writing, the scenario's fault about a third
of the way in and healed, the cluster healthy again, then the Spark validator (validate_recovery.yml) on
the canary's ledger, cross-checked by reading the topic back with a plain consumer.

Returns the figures docs/reliability.md shows: acknowledged, lost, duplicates, failed sends, seconds of
unavailability (canary.availability).
"""

import json
import shutil
import time
import uuid

from lab_cluster import run_playbook

from canary import Canary, ensure_topic
from canary.availability import unavailable_seconds
from lab.traffic import delete_topic

RATE = 200            # canary records per second


def _read_jsonl(path):
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run(scenario, cluster, workdir):
    shutil.rmtree(workdir, ignore_errors=True)  # the canary appends: start from an empty ledger
    workdir.mkdir(parents=True)
    topic = f"chaos-{scenario.key}-{uuid.uuid4().hex[:6]}"
    ledger, failed = workdir / "ledger.jsonl", workdir / "failed.jsonl"
    print(f"\n=== scenario {scenario.number}: {scenario.title} (acks={scenario.acks}, topic {topic})",
          flush=True)
    cluster.wait_healthy()
    ensure_topic(cluster.bootstrap, topic, partitions=6, replication_factor=3)
    snapshots = workdir / "snapshots"
    assert run_playbook("snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}").returncode == 0
    before = max(snapshots.glob("*/*/cluster.json")).parent

    canary = Canary(cluster.bootstrap, topic, ledger, failed, rate=RATE, acks=scenario.acks,
                    delivery_timeout_s=scenario.delivery_timeout_s).start()
    started = time.monotonic()
    time.sleep(scenario.lead_s)
    fault_at = time.monotonic() - started
    print(f"  fault at {fault_at:.0f}s into the run", flush=True)
    notes = scenario.fault(cluster, topic)
    fault_s = time.monotonic() - started - fault_at
    # The canary goes on for at least as long as it ran before the fault, so the run is about three
    # times the lead when the fault takes one lead.
    time.sleep(max(scenario.lead_s, 3 * scenario.lead_s - (time.monotonic() - started)))
    unreported = canary.stop()
    run_s = time.monotonic() - started
    recovered_s = cluster.wait_healthy()

    report_dir = workdir / "report"
    validated = run_playbook("validate_recovery.yml", "-e", f"before_snapshot={before}",
                             "-e", f"ledger={ledger}", "-e", f"snapshot_dir={snapshots}",
                             "-e", f"report_dir={report_dir}")
    result = json.loads((report_dir / "result.json").read_text())
    entries, failures = _read_jsonl(ledger), _read_jsonl(failed)
    readable = cluster.read_back(topic)
    not_read_back = sum(1 for e in entries if readable.get((e["partition"], e["offset"])) != e["sha256"])
    delete_topic(cluster.bootstrap, topic)
    summary = {
        "scenario": scenario.key, "number": scenario.number, "title": scenario.title, "acks": scenario.acks,
        "sent": canary.sent, "acked": canary.acked, "failed": canary.failed, "unreported": unreported,
        "lost": result["lost_records_total"], "lost_by_reason": result["reasons"].get("lost_records", {}),
        "not_read_back": not_read_back, "duplicates": result["duplicate_records_total"],
        "verdict": result["verdict"], "failed_checks": result["failed_checks"],
        "validator_exit": validated.returncode, "unavailable_s": unavailable_seconds(entries, failures),
        "failure_errors": sorted({f["error"] for f in failures}),
        "run_s": round(run_s, 1), "fault_at_s": round(fault_at, 1), "fault_s": round(fault_s, 1),
        "recovered_s": round(recovered_s, 1), "notes": notes, "report": str(report_dir / "report.md"),
    }
    (workdir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    figures = ("acked", "lost", "duplicates", "failed", "unavailable_s")
    print(f"  {json.dumps({k: summary[k] for k in figures})}", flush=True)
    return summary
