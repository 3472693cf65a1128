"""One chaos run: a fresh canary topic, the canary writing, a snapshot once every partition holds acknowledged
records, the scenario's fault about a third of the way in (confirmed by its probe) and healed, the cluster
healthy again, then the Spark validator (validate_recovery.yml) on the canary's ledger, cross-checked by
reading the topic back with a plain consumer.

Returns the figures docs/reliability.md shows: acknowledged, lost, duplicates, failed sends, seconds of
unavailability (canary.availability), and the settings read from the cluster. The verdict is the test's
(test_chaos.py, expectations.py); outcome.py writes both to the scenario's summary.json.
"""

import json
import os
import time
import uuid

from lab_cluster import run_playbook

from canary import Canary, ensure_topic
from canary.availability import unavailable_seconds
from canary.ledger import read_acked, read_failed
from canary.marks import PLAYBOOK_MARKS, add_mark
from lab.cluster_settings import kafka_config
from lab.traffic import delete_topic

RATE = 200              # canary records per second
PARTITIONS = 6          # of each scenario's canary topic
REPLICATION_FACTOR = 3
DATA_TIMEOUT_S = 60     # how long the canary may take to get an acknowledgement in every partition


def _wait_for_data(canary):
    """Wait until the canary has acknowledged records in every partition: the before snapshot must see the
    topic holding data, or the validator's high-watermark check never meets the canary's partitions."""
    deadline = time.monotonic() + DATA_TIMEOUT_S
    while True:
        with_data = {partition for partition, _ in canary.recent_acks()}
        if len(with_data) == PARTITIONS:
            return
        if time.monotonic() > deadline:
            missing = sorted(set(range(PARTITIONS)) - with_data)
            raise AssertionError(f"the canary had no acknowledged record in partitions {missing} after "
                                 f"{DATA_TIMEOUT_S}s: no before snapshot with data")
        time.sleep(0.5)


def _validate(before, ledger, snapshots, report_dir, marks):
    validated = run_playbook("validate_recovery.yml", "-e", f"before_snapshot={before}",
                             "-e", f"ledger={ledger}", "-e", f"snapshot_dir={snapshots}",
                             "-e", f"report_dir={report_dir}", "-e", "check_duplicates=true",
                             *(["-e", f"timeline_marks={marks}"] if marks.exists() else []))
    result_file = report_dir / "result.json"
    if not result_file.exists():
        raise AssertionError(f"validate_recovery.yml exited {validated.returncode} without a result "
                             f"({result_file}): {validated.stderr.strip()[-500:]}")
    return validated.returncode, json.loads(result_file.read_text())


def count_not_read_back(entries, readable):
    """Ledger entries whose record is not in readable ({(partition, offset): (key, sha256)}). An entry
    acknowledged without an offset (an idempotent retry of a duplicate) counts as read back when a record
    of its partition has its key and digest: the validator's rule too."""
    keyed = {(partition, key, sha) for (partition, _), (key, sha) in readable.items()}

    def read_back(e):
        if e["offset"] is None:
            return (e["partition"], e["key"], e["sha256"]) in keyed
        return readable.get((e["partition"], e["offset"]), (None, None))[1] == e["sha256"]

    return sum(1 for e in entries if not read_back(e))


def run(scenario, cluster, workdir):
    """Run the scenario in workdir (empty: the canary appends to its ledger); returns its figures."""
    topic = f"canary-chaos-{scenario.key}-{uuid.uuid4().hex[:6]}"  # the canary principal's prefix
    ledger = workdir / "ledger"
    print(f"\n=== scenario {scenario.number}: {scenario.title} (acks={scenario.acks}, topic {topic})",
          flush=True)
    cluster.wait_healthy()
    ensure_topic(kafka_config(cluster.bootstrap), topic, partitions=PARTITIONS,
                 replication_factor=REPLICATION_FACTOR)

    marks = workdir / "marks.jsonl"  # the fault's span, and each playbook's with its phases (timeline_marks)
    # the topic made by the kit's admin; the canary writes as its own principal, which may do nothing else
    canary = Canary(kafka_config(principal="canary"), topic, ledger, rate=RATE, acks=scenario.acks,
                    delivery_timeout_s=scenario.delivery_timeout_s).start()
    started = time.monotonic()
    try:
        os.environ[PLAYBOOK_MARKS] = str(marks)  # removed in finally: no later scenario writes to this file
        _wait_for_data(canary)
        settings = cluster.settings(topic)  # every broker knows the topic once each partition holds data
        acked_before_snapshot = canary.acked
        snapshots = workdir / "snapshots"
        assert run_playbook("snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}").returncode == 0, \
            "snapshot_offsets.yml failed (before snapshot)"
        before = max(snapshots.glob("*/*/cluster.json")).parent
        time.sleep(max(0, scenario.lead_s - (time.monotonic() - started)))
        fault_at = time.monotonic() - started
        print(f"  fault at {fault_at:.0f}s into the run", flush=True)
        fault_started = time.time()
        notes = scenario.fault(cluster, topic, canary)
        add_mark(marks, f"fault: {scenario.title}", at=fault_started, until=time.time())
        fault_s = time.monotonic() - started - fault_at
        # The canary goes on for at least as long as it ran before the fault, so the run is about three
        # times the lead when the fault takes one lead.
        time.sleep(max(scenario.lead_s, 3 * scenario.lead_s - (time.monotonic() - started)))
    except BaseException:
        canary.stop(flush_timeout=5)  # no writer left behind while the lab is healed
        raise
    finally:
        del os.environ[PLAYBOOK_MARKS]
    unreported = canary.stop()
    run_s = time.monotonic() - started
    recovered_s = cluster.wait_healthy()

    report_dir = workdir / "report"
    validator_exit, result = _validate(before, ledger, snapshots, report_dir, marks)
    entries, failures = read_acked(ledger), read_failed(ledger)
    readable = cluster.read_back(topic)
    not_read_back = count_not_read_back(entries, readable)
    delete_topic(cluster.bootstrap, topic)
    summary = {
        "acks": scenario.acks, "topic": topic, "settings": settings,
        "sent": canary.sent, "acked": canary.acked, "failed": canary.failed, "unreported": unreported,
        "acked_before_snapshot": acked_before_snapshot,
        "lost": result["lost_records_total"], "lost_by_reason": result["reasons"].get("lost_records", {}),
        "not_read_back": not_read_back, "duplicates": result["duplicate_records_total"],
        "verdict": result["verdict"], "failed_checks": result["failed_checks"],
        "validator_exit": validator_exit, "unavailable_s": unavailable_seconds(entries, failures),
        "failure_errors": sorted({f["error"] for f in failures}),
        "run_s": round(run_s, 1), "fault_at_s": round(fault_at, 1), "fault_s": round(fault_s, 1),
        "recovered_s": round(recovered_s, 1), "notes": notes, "report": str(report_dir / "report.md"),
    }
    figures = ("acked", "lost", "not_read_back", "duplicates", "failed", "unavailable_s")
    print(f"  {json.dumps({k: summary[k] for k in figures})}", flush=True)
    return summary
