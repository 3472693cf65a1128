"""Drill: every fault the lab can make raises the alert that names its remedy, within a measured time, and nothing
the fault does not explain; the remedy runs and the alert resolves. The kit's planned work notifies nobody.

On a fresh lab deployed by site.yml (the lab's metadata mode and release: KAFKAOPS_LAB_METADATA_MODE,
KAFKAOPS_LAB_KAFKA_VERSION), under an acks=all canary, each scenario of SCENARIOS that fits the mode, in order:
- planned work (a rolling restart, a rebuild): the playbook, then QUIET_AFTER_PLANNED_S of waiting; no notification
  at all may come (its silences end monitoring_silence_grace after the work);
- a fault: the receiver (lab/receiver.py) must get the expected alert for the expected host; the seconds from the
  fault to that notification are recorded. Every other alert that notifies meanwhile must be one the scenario
  explains. Then the remedy: the command of the alert's `playbook` annotation as written (with the lab's inventory and
  spare), or where that is cluster_summary.yml (look first) what the alert's runbook section says; the alert must then
  resolve (a resolved notification). Before the next scenario the cluster is healthy again (every partition with its
  full ISR).

Fails (exit 1) on: an expected alert that did not notify within NOTIFY_TIMEOUT_S, an unexplained alert, an alert that
did not resolve after its remedy, a notification during planned work. Prints a row per scenario and writes them to
.cache/drills/alerts-<mode>.json. With --rounds N each scenario runs N times in a row, its remedy each time (where the
remedy cannot run twice, the scenario's `again` undoes the fault before the last round: the host whose power was cut
is started), and the figures have each fault's medians.

Run: make test-alerts   (3.9.2 ZooKeeper, then 4.4.0 KRaft, each on a fresh lab)
     make bench-alerts-zookeeper, make bench-alerts-kraft   (--rounds 3)
     python tests/drills/alerts.py --deployed --only password   (some scenarios again, on the lab as it is)
"""

import argparse
import dataclasses
import os
import pathlib
import statistics
import sys
import threading
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO))

import drill  # noqa: E402
from confluent_kafka import KafkaException  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

from canary import Canary, ensure_topic  # noqa: E402
from lab import cluster_settings, config, faults, machines, receiver  # noqa: E402
from lab.monitoring import QUIET_AFTER_PLANNED_S  # noqa: E402
from tests.chaos.lab_cluster import LabCluster  # noqa: E402

MODE = os.environ.get("KAFKAOPS_LAB_METADATA_MODE") or "zookeeper"
WORK = REPO / ".cache" / "drills" / f"alerts-{MODE}"
NOTIFY_TIMEOUT_S = 240   # an expected alert's notification (ISRs shrink after 30 s, then 30 s of `for`); more fails
RESOLVE_TIMEOUT_S = 420  # KafkaNodeCrashed ends 5 minutes after the restart
RATE = 100               # canary records per second
LOOK_FIRST = "playbooks/cluster_summary.yml"
CONTROLLER_METADATA = "/var/lib/kafka-controller/metadata"  # the kafka_controller role's kafka_controller_metadata_dir


def host(name):
    return config.host(name)


def data_filesystem_bytes(lab_host):
    return int(machines.run_on(lab_host, f"df -B1 --output=size {config.DATA_DISK_MOUNT} | tail -1"))


def playbook(*args):
    drill.run(["ansible-playbook", *args], WORK / "logs")


def wrong_password_client():
    """A client that keeps logging in on the CLIENT listener with a wrong password, until stopped (and then gone: an
    idle client would go on reconnecting)."""
    # it reconnects every 100-200 ms (librdkafka would back off to 10 s): a burst, not one failure now and then
    conf = cluster_settings.kafka_config(principal="canary") | {"sasl.password": "wrong-" + uuid.uuid4().hex,
                                                                 "reconnect.backoff.ms": 100,
                                                                 "reconnect.backoff.max.ms": 200}
    stop = threading.Event()

    def run():
        admin = AdminClient(conf)  # destroyed with the thread
        while not stop.is_set():
            try:
                admin.list_topics(timeout=1)
            except KafkaException:  # refused, as it must be: try again
                pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return lambda: (stop.set(), thread.join())


def short_lived_certificate(name, days=3):
    """The host's certificate issued again for `days` (its file removed on the controller: the pki role issues a
    missing one) and served after site.yml's roll, as a missed renewal would leave it."""
    (config.PKI / "hosts" / name / "cert.pem").unlink()
    overlay = WORK / f"short-{name}.yml"
    overlay.write_text(f"all:\n  hosts:\n    {name}: {{kafka_pki_host_validity_days: {days}, "
                       f"kafka_pki_renew_before_days: 1}}\n")
    playbook("playbooks/site.yml", "-i", "inventories/lab", "-i", str(overlay))


def cut_from_the_other_brokers(name):
    """Drop the traffic between the broker and every other broker (spares too); returns what connects it again."""
    faults.cut(host(name), [h for h in config.load_hosts() if {"kafka_broker", "kafka_spare"} & set(h.groups)])
    return lambda: faults.connect(host(name))


def a_broker_not_the_controller():
    """The lab host of a registered broker that is not the active controller (ZooKeeper mode)."""
    cluster = LabCluster()
    controller = cluster.controller().name
    registered = [config.host(b.host).name for b in cluster.admin().list_topics(timeout=10).brokers.values()]
    return next(name for name in sorted(registered) if name != controller)


def run_playbook_annotation(annotations, spare="kafka4"):
    """The alert's `playbook` annotation as written, with the lab's inventory (and spare host)."""
    command = annotations["playbook"].split("  #")[0].replace("INVENTORY", "inventories/lab").replace("SPARE", spare)
    assert LOOK_FIRST not in command, f"{command}: a read-only look, not a remedy; the scenario names the runbook's"
    drill.run(command.split(), WORK / "logs")


@dataclasses.dataclass
class Scenario:
    name: str
    modes: tuple            # the metadata modes it runs in
    alert: str | None       # the alert that must notify; None: planned work, nothing may notify
    host: str | None        # ...for this host (its `host` label), None for a cluster-wide alert
    fault: object           # callable: makes the fault (or runs the planned work), returns what undoes a client fault
    remedy: object = None   # callable(undo, annotations): the runbook's remedy
    explained: tuple = ()   # other alerts the fault may raise
    notify_timeout: int = NOTIFY_TIMEOUT_S
    again: object = None    # with --rounds: what undoes the fault before the last round, where the remedy cannot be
    #                         run twice (None: the remedy)


BOTH = ("zookeeper", "kraft")
SCENARIOS = [
    Scenario("planned: a rolling restart", BOTH, None, None,
             lambda: playbook("playbooks/rolling_restart.yml")),
    Scenario("planned: a rebuild", BOTH, None, None,
             lambda: playbook("playbooks/rebuild_broker.yml", "-e", "broker_host=kafka1")),
    Scenario("a client retrying a wrong password", BOTH, "KafkaAuthenticationFailures", None,
             wrong_password_client,
             lambda undo, annotations: undo()),
    # Under 5 % free, not full: the broker keeps writing (a full one is the chaos suite's, and KafkaLogDirOffline's)
    Scenario("a broker's data filesystem nearly full", BOTH, "KafkaDataFilesystemCritical", "kafka1",
             lambda: faults.fill(host("kafka1"), leave=data_filesystem_bytes(host("kafka1")) // 50),
             lambda undo, annotations: faults.unfill(host("kafka1"))),
    Scenario("a ZooKeeper member down", ("zookeeper",), "ZooKeeperMemberDown", "zk3",
             lambda: faults.stop(host("zk3"), "zookeeper"),
             lambda undo, annotations: run_playbook_annotation(annotations)),
    # Its disk lost: what replace_controller.yml (the alert's playbook) repairs; a unit merely stopped is the next one
    Scenario("a controller down, its metadata disk lost", ("kraft",), "KafkaControllerDown", "ctrl3",
             lambda: machines.run_on(host("ctrl3"), f"systemctl stop kafka-controller && rm -rf {CONTROLLER_METADATA}"
                                                    f" && install -d -o kafka -g kafka -m 0750 {CONTROLLER_METADATA}"),
             lambda undo, annotations: run_playbook_annotation(annotations)),
    # The runbook: bring a majority back (the hosts are fine: start their units)
    Scenario("two controllers of three down", ("kraft",), "KRaftQuorumNoLeader", None,
             lambda: [faults.stop(host(name), "kafka-controller") for name in ("ctrl2", "ctrl3")],
             lambda undo, annotations: [faults.start(host(name), "kafka-controller") for name in ("ctrl2", "ctrl3")],
             explained=("KafkaControllerDown", "KafkaNoActiveController")),
    # systemd starts it again after 10 s; the runbook: nothing to repair once it is back in every ISR
    Scenario("a broker killed (SIGKILL)", BOTH, "KafkaNodeCrashed", "kafka3",
             lambda: faults.kill(host("kafka3"), "kafka"),
             lambda undo, annotations: LabCluster().wait_healthy(),
             explained=("KafkaBrokerDown",)),
    # KRaft: its followers stop fetching, and after replica.lag.time.max.ms it leads its partitions alone (the
    # controllers take the shrunk ISR), under min ISR. The runbook: the network (here: connect it again)
    Scenario("a broker cut from the other brokers", ("kraft",), "KafkaUnderMinIsrPartition", "kafka3",
             lambda: cut_from_the_other_brokers("kafka3"),
             lambda undo, annotations: undo()),
    # ZooKeeper mode, a broker that is not the controller: it cannot reach the controller to shrink its ISRs, so only
    # the others' under-replicated partitions show it, after their 5 minutes
    Scenario("a broker cut from the other brokers", ("zookeeper",), "KafkaUnderReplicatedPartition", None,
             lambda: cut_from_the_other_brokers(a_broker_not_the_controller()),
             lambda undo, annotations: undo(), notify_timeout=480),
    Scenario("a certificate that ends in 3 days", BOTH, "TLSCertificateExpiresSoon", "kafka1",
             lambda: short_lived_certificate("kafka1"),
             lambda undo, annotations: run_playbook_annotation(annotations)),
    # The only log dir unreadable: the broker stops at once (all its log dirs failed), and every start by systemd stops
    # again (none can be read), too soon for its metrics to say so. The runbook for a broken data dir on a sound disk:
    # rebuild it
    Scenario("a log dir made unreadable", BOTH, "KafkaNodeCrashLooping", "kafka2",
             lambda: machines.run_on(host("kafka2"), "chmod 000 /var/lib/kafka/data"),
             lambda undo, annotations: playbook("playbooks/rebuild_broker.yml", "-e", "broker_host=kafka2"),
             explained=("KafkaNodeCrashed", "KafkaBrokerDown", "KafkaLogDirOffline")),
    # Last: kafka4 takes broker 2's place for good
    Scenario("a broker's host loses power", BOTH, "KafkaBrokerDown", "kafka2",
             lambda: machines.power_off(host("kafka2")),
             lambda undo, annotations: run_playbook_annotation(annotations),
             explained=("NodeExporterDown", "KafkaUnderReplicatedPartition"),
             again=lambda undo, annotations: (machines.start(host("kafka2")), machines.wait_ready([host("kafka2")]))),
]


def planned(scenario):
    """Planned work: the row with its notifications (there must be none)."""
    started = time.time()
    scenario.fault()
    time.sleep(QUIET_AFTER_PLANNED_S)
    notified = receiver.names(receiver.alerts_since(started))
    return {"scenario": scenario.name, "notifications": notified, "took_s": round(time.time() - started)}, \
        [f"{scenario.name}: notified {notified}"] if notified else []


def fault(scenario, remedy):
    """A fault undone by remedy (the scenario's, or its `again`): the row (seconds to notify, to resolve after the
    remedy, unexplained alerts) and its problems."""
    started = time.time()
    undo = scenario.fault()
    made = time.time()
    firing = receiver.wait_for(scenario.alert, scenario.host, "firing", started, scenario.notify_timeout)
    row = {"scenario": scenario.name, "alert": scenario.alert, "host": scenario.host,
           "notified_after_s": round(firing["received_at"] - made, 1) if firing else None}
    problems = [] if firing else [f"{scenario.name}: {scenario.alert} did not notify in {scenario.notify_timeout} s"]
    remedy(undo, firing["annotations"] if firing else {})
    remedied = time.time()
    resolved = receiver.wait_for(scenario.alert, scenario.host, "resolved", started, RESOLVE_TIMEOUT_S) \
        if firing else None
    row["resolved_after_remedy_s"] = round(resolved["received_at"] - remedied, 1) if resolved else None
    if firing and not resolved:
        problems.append(f"{scenario.name}: {scenario.alert} did not resolve after the remedy")
    explained = (scenario.alert, *scenario.explained)
    unexplained = receiver.names(a for a in receiver.alerts_since(started)
                                 if a["status"] == "firing" and a["alertname"] not in explained)
    row["unexplained"] = unexplained
    if unexplained:
        problems.append(f"{scenario.name}: unexplained alerts {unexplained}")
    return row, problems


def medians(rows):
    """Per fault scenario: the median seconds to notify and to resolve over its rounds (those that did), and how many
    notified."""
    by_name = {}
    for row in rows:
        if "alert" in row:
            by_name.setdefault(row["scenario"], []).append(row)
    return {name: {"rounds": len(runs), "notified": sum(r["notified_after_s"] is not None for r in runs),
                   **{key: statistics.median(found) if (found := [r[key] for r in runs if r[key] is not None]) else None
                      for key in ("notified_after_s", "resolved_after_remedy_s")}}
            for name, runs in by_name.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deployed", action="store_true",
                        help="on the lab as it is (deployed and healthy), not a fresh one: to run some scenarios again")
    parser.add_argument("--only", nargs="+", default=[], metavar="WORD",
                        help="only the scenarios whose name has one of these words")
    parser.add_argument("--rounds", type=int, default=1, metavar="N",
                        help="each scenario N times in a row, for the medians (make bench-alerts: 3)")
    args = parser.parse_args()
    chosen = [s for s in SCENARIOS if MODE in s.modes and (not args.only or any(w in s.name for w in args.only))]
    if not chosen:
        sys.exit(f"no scenario of mode {MODE} matches {args.only}")
    if args.deployed:
        WORK.mkdir(parents=True, exist_ok=True)
    else:
        drill.fresh_lab(WORK)
        playbook("playbooks/site.yml")
    topic = "canary-alerts"
    ensure_topic(cluster_settings.kafka_config(), topic)
    canary = Canary(cluster_settings.kafka_config(principal="canary"), topic, WORK / "ledger", rate=RATE)
    canary.start()
    rows, problems = [], []
    try:
        for scenario in chosen:
            for number in range(1, args.rounds + 1):
                print(f"--- {scenario.name} ({number}/{args.rounds})", flush=True)
                if scenario.alert is None:
                    row, found = planned(scenario)
                else:
                    last = number == args.rounds
                    row, found = fault(scenario, scenario.remedy if last or not scenario.again else scenario.again)
                    LabCluster().wait_healthy()
                rows.append({**row, "round": number})
                problems += found
                print(rows[-1], flush=True)
    finally:
        unreported = canary.stop()
    if unreported:
        problems.append(f"the canary has {unreported} records never reported")
    drill.finish(f"alerts-{MODE}", {"mode": MODE, "canary": canary.summary(), "scenarios": rows,
                                    "medians": medians(rows)}, problems,
                 "every alert notified and resolved, planned work notified nobody")


if __name__ == "__main__":
    main()
