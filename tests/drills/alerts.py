"""Drill: every fault the lab can make raises the alert that names its remedy, within a measured time, and nothing
the fault does not explain; then the remedy runs and the alert resolves.

On a fresh lab deployed by site.yml (the lab's metadata mode and release: KAFKAOPS_LAB_METADATA_MODE,
KAFKAOPS_LAB_KAFKA_VERSION), under an acks=all canary, for each scenario of SCENARIOS that fits the mode: the fault,
then the receiver (lab/receiver.py) must get the expected alert for the expected host; the seconds from the fault to
that notification are recorded. Every other alert that notifies meanwhile must be one the scenario explains. Then the
remedy (what the alert's runbook section says; for a playbook, the command of the alert's `playbook` annotation, with
the lab's inventory) and the alert must resolve (a resolved notification).

Fails (exit 1) on: an expected alert that did not notify within NOTIFY_TIMEOUT_S, an unexplained alert, an alert that
did not resolve after its remedy. Prints a row per scenario and writes them to .cache/drills/alerts-<mode>.json.

Run: make test-alerts   (3.9.2 ZooKeeper, then 4.4.0 KRaft, each on a fresh lab)
"""

import dataclasses
import os
import pathlib
import sys
import threading
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO))

import drill  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

from canary import Canary, ensure_topic  # noqa: E402
from lab import cluster_settings, config, faults, machines, receiver  # noqa: E402

MODE = os.environ.get("KAFKAOPS_LAB_METADATA_MODE") or "zookeeper"
WORK = REPO / ".cache" / "drills" / f"alerts-{MODE}"
NOTIFY_TIMEOUT_S = 180   # the rules' `for` is at most 2 minutes for what a scenario expects; more is a failure
RESOLVE_TIMEOUT_S = 300
RATE = 100               # canary records per second


def host(name):
    return config.host(name)


def data_filesystem_bytes(lab_host):
    return int(machines.run_on(lab_host, f"df -B1 --output=size {config.DATA_DISK_MOUNT} | tail -1"))


def wrong_password_client():
    """A client that keeps logging in on the CLIENT listener with a wrong password, until stopped."""
    # it reconnects every 100-200 ms (librdkafka would back off to 10 s): a burst, not one failure now and then
    conf = cluster_settings.kafka_config(principal="canary") | {"sasl.password": "wrong-" + uuid.uuid4().hex,
                                                                 "reconnect.backoff.ms": 100,
                                                                 "reconnect.backoff.max.ms": 200}
    admin = AdminClient(conf)
    stop = {"stop": False}

    def run():
        while not stop["stop"]:
            admin.list_topics(timeout=1)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return lambda: stop.update(stop=True)


@dataclasses.dataclass
class Scenario:
    name: str
    modes: tuple            # the metadata modes it runs in
    alert: str              # the alert that must notify
    host: str | None        # ...for this host (its `host` label), None for a cluster-wide alert
    fault: object           # callable: makes the fault, returns what undoes a client fault (or None)
    remedy: object          # callable(undo, annotations): the runbook's remedy
    explained: tuple = ()   # other alerts the fault may raise


def run_playbook_annotation(annotations, spare="kafka4"):
    """The alert's `playbook` annotation as written, with the lab's inventory (and spare host)."""
    command = annotations["playbook"].split("  #")[0].replace("INVENTORY", "inventories/lab").replace("SPARE", spare)
    drill.run(command.split(), WORK / "logs")


SCENARIOS = [
    Scenario("a ZooKeeper member down", ("zookeeper",), "ZooKeeperMemberDown", "zk3",
             lambda: machines.run_on(host("zk3"), "systemctl stop zookeeper"),
             lambda undo, annotations: run_playbook_annotation(annotations)),
    # Under 5 % free, not full: the broker keeps writing (a full one is the chaos suite's, and KafkaLogDirOffline's)
    Scenario("a broker's data filesystem nearly full", ("zookeeper", "kraft"), "KafkaDataFilesystemCritical", "kafka1",
             lambda: faults.fill(host("kafka1"), leave=data_filesystem_bytes(host("kafka1")) // 50),
             lambda undo, annotations: faults.unfill(host("kafka1"))),
    Scenario("a client retrying a wrong password", ("zookeeper", "kraft"), "KafkaAuthenticationFailures", None,
             wrong_password_client,
             lambda undo, annotations: undo()),
]


def main():
    drill.fresh_lab(WORK)
    drill.run(["ansible-playbook", "playbooks/site.yml"], WORK / "logs")
    topic = "canary-alerts"
    ensure_topic(cluster_settings.kafka_config(), topic)
    canary = Canary(cluster_settings.kafka_config(principal="canary"), topic, WORK / "ledger", rate=RATE)
    canary.start()
    rows, problems = [], []
    try:
        for scenario in (s for s in SCENARIOS if MODE in s.modes):
            print(f"--- {scenario.name}", flush=True)
            started = time.time()
            undo = scenario.fault()
            firing = receiver.wait_for(scenario.alert, scenario.host, "firing", started, NOTIFY_TIMEOUT_S)
            row = {"scenario": scenario.name, "alert": scenario.alert, "host": scenario.host,
                   "notified_after_s": round(firing["received_at"] - started, 1) if firing else None}
            if not firing:
                problems.append(f"{scenario.name}: {scenario.alert} did not notify in {NOTIFY_TIMEOUT_S} s")
            scenario.remedy(undo, firing["annotations"] if firing else {})
            remedied = time.time()
            resolved = receiver.wait_for(scenario.alert, scenario.host, "resolved", started, RESOLVE_TIMEOUT_S)
            row["resolved_after_remedy_s"] = round(resolved["received_at"] - remedied, 1) if resolved else None
            if firing and not resolved:
                problems.append(f"{scenario.name}: {scenario.alert} did not resolve after the remedy")
            unexplained = sorted({a["alertname"] for a in receiver.alerts_since(started) if a["status"] == "firing"
                                  and a["alertname"] not in (scenario.alert, *scenario.explained)})
            row["unexplained"] = unexplained
            if unexplained:
                problems.append(f"{scenario.name}: unexplained alerts {unexplained}")
            rows.append(row)
            print(row, flush=True)
    finally:
        unreported = canary.stop()
    if unreported:
        problems.append(f"the canary has {unreported} records never reported")
    drill.finish(f"alerts-{MODE}", {"mode": MODE, "scenarios": rows}, problems, "every alert notified and resolved")


if __name__ == "__main__":
    main()
