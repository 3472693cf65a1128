"""The end of `make demo`, on a freshly deployed lab: the canary writing, a snapshot, kafka2's power cut, the alert
that pages on-call (KafkaBrokerDown, naming replace_broker.yml), kafka4 taking over broker id 2 with
replace_broker.yml, the alert resolved, and the Spark validator's verdict on every acknowledged record.

Run: make demo (it boots a fresh lab and deploys it first). Everything it writes is under
.cache/demo/<UTC time>/: the canary's ledger, the snapshots and the validator's report.
"""

import datetime
import json
import pathlib
import sys
import time

from confluent_kafka.admin import AdminClient

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


from canary import Canary, ensure_topic  # noqa: E402
from canary.marks import PLAYBOOK_MARKS, add_mark  # noqa: E402
from lab import ansible, cluster_settings, config, machines, receiver  # noqa: E402
from lab.cluster_settings import kafka_config  # noqa: E402
from lab.traffic import fill  # noqa: E402

DATA_TOPIC = "demo-orders"      # data already there, for the replacement to copy
CANARY_TOPIC = "canary"
CANARY_RATE = 200
ALERT = "KafkaBrokerDown"       # the alert kafka2's power cut raises (roles/monitoring/files/rules/)
ALERT_TIMEOUT_S = 180           # its `for`, a scrape, an evaluation and Alertmanager's group_wait: well under this
THROTTLE = 20 * 1024 * 1024


def step(text):
    print(f"\n=== {text}", flush=True)


def playbook(name, *args, marks=None):
    """Run a playbook, its output shown as it comes; with marks, its span and phases go to that file for the
    validator's timeline."""
    command = ansible.command(f"playbooks/{name}", *args)
    step(" ".join(command))
    env = ansible.environment(**({PLAYBOOK_MARKS: str(marks)} if marks else {}))
    return ansible.run(command, env=env, capture=False).returncode


def wait_until_deregistered(broker_id):
    """Until the cluster's metadata no longer lists the broker as live: its ZooKeeper session expired, or (KRaft)
    the controller fenced it for missed heartbeats."""
    admin = AdminClient(kafka_config())
    started = time.monotonic()
    while broker_id in admin.list_topics(timeout=15).brokers:
        print(f"  broker {broker_id} still registered: its session has not expired yet "
              f"({time.monotonic() - started:.0f}s)", flush=True)
        time.sleep(3)
    print(f"  broker {broker_id} left the live brokers after {time.monotonic() - started:.0f}s", flush=True)


def main():
    settings = cluster_settings.load()
    bootstrap = settings["bootstrap_servers"]
    run_dir = REPO / ".cache" / "demo" / datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    run_dir.mkdir(parents=True)
    snapshots, ledger, report = run_dir / "snapshots", run_dir / "ledger", run_dir / "report"
    marks = run_dir / "marks.jsonl"  # the fault and replace_broker.yml's phases, on the report's timeline

    step(f"topic {DATA_TOPIC} (12 partitions, RF 3) with 256 MiB of data")
    ensure_topic(kafka_config(), DATA_TOPIC, partitions=12)
    fill(bootstrap, DATA_TOPIC, 256 * 1024 * 1024)
    # The canary's topic exists before the snapshot, so that the validator compares its high watermarks too.
    step(f"topic {CANARY_TOPIC} for the canary")
    ensure_topic(kafka_config(), CANARY_TOPIC)

    if playbook("snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}") != 0:
        sys.exit("snapshot_offsets.yml failed: see its output above")
    before = max(snapshots.glob("*/*/cluster.json")).parent

    step(f"the canary writes {CANARY_RATE} records/s to {CANARY_TOPIC} (acks=all, idempotent); "
         f"ledger {ledger}")
    canary = Canary(kafka_config(principal="canary"), CANARY_TOPIC, ledger, rate=CANARY_RATE).start()
    time.sleep(10)

    step("kafka2 loses power (no clean shutdown)")
    add_mark(marks, "kafka2 loses power")
    cut = time.time()
    machines.power_off(config.host("kafka2"))
    wait_until_deregistered(2)
    # On-call is paged (the lab's receiver gets Alertmanager's notification) and runs the playbook the alert names.
    fired = receiver.wait_for(ALERT, "kafka2", "firing", cut, ALERT_TIMEOUT_S)
    if fired:
        add_mark(marks, f"{ALERT} kafka2 fired", at=fired["received_at"])
        print(f"  alert {ALERT} (kafka2) notified {fired['received_at'] - cut:.0f}s after the power cut; "
              f"it says: {fired['annotations'].get('playbook')}", flush=True)
    else:
        print(f"  alert {ALERT} (kafka2) did not notify within {ALERT_TIMEOUT_S}s", flush=True)

    replaced = playbook("replace_broker.yml", "-e", "failed_host=kafka2", "-e", "replacement_host=kafka4",
                        "-e", f"replication_throttle_bytes_per_sec={THROTTLE}", marks=marks)
    replaced_at = time.time()
    time.sleep(10)  # the canary goes on writing to the repaired cluster
    unreported = canary.stop()
    print(f"  canary: {json.dumps(dict(canary.summary(), unreported=unreported))}", flush=True)
    if replaced != 0:
        sys.exit("replace_broker.yml failed: see its output above")

    # kafka4 is scraped in kafka2's place once the replacement is done: the alert resolves after the run's silence
    resolved = receiver.wait_for(ALERT, "kafka2", "resolved", cut, ALERT_TIMEOUT_S) if fired else None
    if resolved:
        add_mark(marks, f"{ALERT} kafka2 resolved", at=resolved["received_at"])

    validated = playbook("validate_recovery.yml", "-e", f"before_snapshot={before}", "-e", f"ledger={ledger}",
                         "-e", f"snapshot_dir={snapshots}", "-e", f"report_dir={report}", "-e", "check_duplicates=true",
                         "-e", f"timeline_marks={marks}")
    result = json.loads((report / "result.json").read_text())
    playbook("cluster_summary.yml")

    verdict = "NOTHING LOST" if validated == 0 else "LOSS OR REGRESSION FOUND"
    step(f"VERDICT: {verdict}")
    print(f"  acknowledged by the cluster while kafka2 failed and kafka4 took over: {canary.acked}; "
          f"lost: {result['lost_records_total']}; failed sends: {canary.failed}; "
          f"duplicates: {result['duplicate_records_total']}; failed checks: "
          f"{', '.join(result['failed_checks']) or 'none'}")
    print(f"  not checked: {'; '.join(result['not_checked']) or 'nothing: every check of the report ran'}")
    timeline = result["timeline"]
    print(f"  timeline: {timeline['unavailable_window_count']} window(s) without any acknowledgement, "
          f"{timeline['unavailable_s']} s in all (chart.png)")
    print(f"  alert {ALERT} (kafka2): " + (
        f"fired {fired['received_at'] - cut:.0f}s after the power cut, " if fired else "never notified, ")
        + (f"resolved {resolved['received_at'] - replaced_at:.0f}s after replace_broker.yml ended" if resolved
           else "not resolved") + " (both on the report's timeline)")
    print(f"  report: {report / 'report.md'} (result.json, chart.png next to it)")
    print("  The lab now runs broker 2 on kafka4 and kafka2 is off (the inventory still says kafka2: "
          "make lab-down resets the lab).")
    return validated


if __name__ == "__main__":
    sys.exit(main())
