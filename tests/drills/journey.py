"""The journey: a ZooKeeper-era cluster the kit did not deploy, taken to Kafka 4.4 on a dynamic KRaft quorum, each step
under acks=all load and proven lossless (issue 32; docs/runbooks/zookeeper-to-kafka-4.md is this, for a person).

On a fresh lab: `python -m lab legacy-deploy --version 3.6.2` (ZooKeeper mode, PLAINTEXT, Kafka's own layout and
units). Then, as the runbook says, each step's commands with the inventory the adoption wrote read after the lab's
(-i INVENTORY -i LAYER; the journey commits to the layer what each run says to commit, as a person would):

  adopt             adopt_cluster.yml writes the layer; site.yml takes the cluster over
  upgrade-rolls     upgrade_kafka.yml -e kafka_version=3.9.2 (--check first: nothing changes): the ensemble, then the
                    brokers with inter.broker.protocol.version pinned at 3.6
  rollback          rollback_upgrade.yml: every node back on 3.6.2
  upgrade-again     the rolls again; then site.yml without the pin must be refused (upgrade-protocol-raised),
                    changing nothing; the pin committed
  upgrade-finalize  -e finalize=true: the protocol raised by a second roll; rollback_upgrade.yml then refused
  secure            secure_cluster.yml (the layer's open-until-secured.yml deleted), then, the clients moved to
                    SASL_SSL, -e remove_plaintext=true
  migrate           migrate_to_kraft.yml, then -e finalize=true (kafka_metadata_mode: kraft committed)
  upgrade-4.4       upgrade_kafka.yml -e kafka_version=4.4.0: controllers, then brokers
  finalize-4.4      -e finalize=true: the features at 4.4's levels; rollback_upgrade.yml then refused
  convert-quorum    convert_quorum_to_dynamic.yml -e confirm_irreversible=true; site.yml then changes nothing

The shorter path, JOURNEY_START=2.8.2: a 2.8.2 cluster the same way to 3.9.2 in ZooKeeper mode, its steps adopt to
upgrade-finalize (the pin at 2.8; the brokers' keystore holds their key encrypted while they run 2.8.2, which wants
ssl.key.password, and keystore.pem once they run 3.9.2), under 2.8.2's own clients. Its figures: journey-2.8.2.json.

In the adopt step, site.yml --check --diff first: it must pass and leave the legacy units running as they were.
Throughout each step: the kit's canary (acks=all, its ledger) and the starting release's own VerifiableProducer
(acks=-1, its acknowledgements in the same ledger) and VerifiableConsumer (a group that commits), all on PLAINTEXT
until the secure step's removal, then on SASL_SSL with the cluster's security. After each step the Spark validator
(validate_recovery.yml) over everything acknowledged so far, against the snapshot taken before the takeover
(committed offsets included); and whether the journey can still go back (the rollback playbooks' --check).

Fails (exit 1) on: a failed playbook, a check or refused run that changed a host, a node not on the release a step
leaves it on, a lost record, a failed send (the canary's or the VerifiableProducer's, in any step), a rerun of site.yml
that changes something. Figures and the table: .cache/drills/journey.json. A failed journey resumes from its first
step not done: `python tests/drills/journey.py --resume` (the lab and .cache/drills/journey/ as the failure left
them; the same JOURNEY_START).

Run: make journey   (both paths; takes the lab down and up; about three hours)
"""

import argparse
import json
import os
import re
import sys
import time
import uuid

import drill
from confluent_kafka import ConsumerGroupTopicPartitions
from confluent_kafka.admin import AdminClient

from canary import Canary, client_config, ensure_topic
from canary.verifiable import VerifiableConsumer, VerifiableProducer
from lab import ansible, cluster_settings, config, legacy

BRIDGE, TARGET = "3.9.2", "4.4.0"
# The paths: the release legacy-deploy starts from -> the steps taken (STEPS' names, in their order)
PATHS = {"3.6.2": None, "2.8.2": ("adopt", "upgrade-rolls", "rollback", "upgrade-again", "upgrade-finalize")}
# The path this run takes (JOURNEY_START, 3.6.2 by default): its start, its figures' name and its work dir
START = os.environ.get("JOURNEY_START", "3.6.2")
assert START in PATHS, f"JOURNEY_START={START}: the journey starts from one of {', '.join(PATHS)}"
NAME = "journey" if START == "3.6.2" else f"journey-{START}"
WORK = drill.REPO / ".cache" / "drills" / NAME
LAYER, STATE = WORK / "layer", WORK / "journey.json"
PIN = ".".join(START.split(".")[:2])  # the protocol the brokers keep while they run 3.9.2 before the finalize
RATE = 100  # canary records per second


def layered(**extra):
    """The operator's environment with the adoption's layer read after the lab's inventory."""
    return ansible.environment(ANSIBLE_INVENTORY=f"{config.INVENTORY},{LAYER}", **extra)


def playbook(name, *args, env=None):
    return drill.run(["ansible-playbook", f"playbooks/{name}", *args], WORK / "logs", env=env or layered())


def refused(name, rule, *args):
    """A run that must be refused with rule, changing no host: (refused, changed hosts)."""
    return drill.refused(["ansible-playbook", f"playbooks/{name}", *args], WORK / "logs" / f"refused-{rule}.log",
                         [f"[{rule}]"], env=layered())


def commit(**values):
    """What a run says to commit, written to the layer's cluster file as a person would (None: the line removed)."""
    path = LAYER / "group_vars" / "all" / "adopted-cluster.yml"
    text = path.read_text()
    for key, value in values.items():
        text = re.sub(rf"^{key}: .*\n", "", text, flags=re.M)
        text += "" if value is None else f"{key}: {json.dumps(value)}\n"
    path.write_text(text)


def undo(name):
    """Whether the named rollback playbook's --check plans a way back (it refuses once it cannot): 'yes' or the
    refusal's rule."""
    proc = ansible.run(["ansible-playbook", f"playbooks/{name}", "--check"], env=layered())
    if proc.returncode == 0:
        return f"yes ({name})"
    rules = re.findall(r"Refusing[^\[]*\[([a-z0-9-]+)\]", proc.stdout + proc.stderr)
    return f"no: {rules[0] if rules else 'the check failed (exit ' + str(proc.returncode) + ')'}"


def brokers_release():
    return sorted(set(drill.releases(("kafka_broker",)).values()))


# Each step: (name, the clients' security, the function that runs it, returning its own checks' figures)

def adopt():
    units = legacy.hosts_state(START)
    check, _ = playbook("site.yml", "--check", "--diff")
    kept = legacy.hosts_state(START) == units
    playbook("site.yml")
    # the check plans a change on every host it takes over, and changes none
    return {"check_would_change": sorted(set(drill.changed_hosts(check.stdout)) & set(units)),
            "check_kept_legacy_units": kept, "releases": brokers_release(),
            "site_rerun_changed": drill.changed_hosts(playbook("site.yml")[0].stdout)}


def upgrade_rolls():
    check, _ = playbook("upgrade_kafka.yml", "-e", f"kafka_version={BRIDGE}", "--check")
    playbook("upgrade_kafka.yml", "-e", f"kafka_version={BRIDGE}")
    return {"check_changed": drill.changed_hosts(check.stdout), "releases": brokers_release(),
            "undo": undo("rollback_upgrade.yml")}


def rollback():
    if brokers_release() != [START]:  # a resumed journey whose rollback was done
        playbook("rollback_upgrade.yml")
    return {"releases": brokers_release()}


def upgrade_again():
    playbook("upgrade_kafka.yml", "-e", f"kafka_version={BRIDGE}")
    ok, changed = refused("site.yml", "upgrade-protocol-raised", "-e", f"kafka_version={BRIDGE}")
    commit(kafka_version=BRIDGE, kafka_inter_broker_protocol_version=PIN)
    site, _ = playbook("site.yml")
    return {"releases": brokers_release(), "unpinned_site_refused": ok, "unpinned_site_changed": changed,
            "site_pinned_changed": drill.changed_hosts(site.stdout), "undo": undo("rollback_upgrade.yml")}


def upgrade_finalize():
    playbook("upgrade_kafka.yml", "-e", f"kafka_version={BRIDGE}", "-e", "finalize=true")
    commit(kafka_inter_broker_protocol_version=None)
    ok, changed = refused("rollback_upgrade.yml", "rollback-upgrade-irreversible")
    site, _ = playbook("site.yml")  # the layer with the pin gone describes the cluster
    return {"rollback_refused": ok, "rollback_refused_changed": changed, "undo": undo("rollback_upgrade.yml"),
            "site_changed": drill.changed_hosts(site.stdout)}


def secure():
    (LAYER / "group_vars" / "all" / "open-until-secured.yml").unlink(missing_ok=True)
    playbook("secure_cluster.yml")
    return {}


def secure_remove_plaintext():
    playbook("secure_cluster.yml", "-e", "remove_plaintext=true")
    site, _ = playbook("site.yml")
    return {"site_changed": drill.changed_hosts(site.stdout)}


def migrate():
    playbook("migrate_to_kraft.yml")
    return {"undo": undo("rollback_kraft_migration.yml")}


def migrate_finalize():
    if 'kafka_metadata_mode: "kraft"' not in (LAYER / "group_vars" / "all" / "adopted-cluster.yml").read_text():
        playbook("migrate_to_kraft.yml", "-e", "finalize=true")  # else a resumed journey's finalize was done
    commit(kafka_metadata_mode="kraft")
    return {"undo": undo("rollback_kraft_migration.yml")}


def upgrade_44():
    playbook("upgrade_kafka.yml", "-e", f"kafka_version={TARGET}")
    commit(kafka_version=TARGET, kafka_controller_quorum="static")
    return {"releases": sorted(set(drill.releases().values())), "undo": undo("rollback_upgrade.yml")}


def finalize_44():
    playbook("upgrade_kafka.yml", "-e", f"kafka_version={TARGET}", "-e", "finalize=true")
    ok, changed = refused("rollback_upgrade.yml", "rollback-upgrade-irreversible")
    return {"rollback_refused": ok, "rollback_refused_changed": changed, "undo": undo("rollback_upgrade.yml")}


def convert_quorum():
    playbook("convert_quorum_to_dynamic.yml", "-e", "confirm_irreversible=true")
    commit(kafka_controller_quorum=None)
    site, _ = playbook("site.yml")
    return {"site_changed": drill.changed_hosts(site.stdout), "undo": "no: kraft.version 1 (Kafka has no way back)"}


STEPS = [("adopt", "open", adopt), ("upgrade-rolls", "open", upgrade_rolls), ("rollback", "open", rollback),
         ("upgrade-again", "open", upgrade_again), ("upgrade-finalize", "open", upgrade_finalize),
         ("secure", "open", secure), ("secure-remove-plaintext", "secured", secure_remove_plaintext),
         ("migrate", "secured", migrate), ("migrate-finalize", "secured", migrate_finalize),
         ("upgrade-4.4", "secured", upgrade_44), ("finalize-4.4", "secured", finalize_44),
         ("convert-quorum", "secured", convert_quorum)]
# What each step's checks must find
EXPECTED = {
    "adopt": {"check_would_change": sorted(h.name for h in config.load_hosts()
                                           if {"kafka_broker", "zookeeper"} & set(h.groups)),
              "check_kept_legacy_units": True, "releases": [START],
              "site_rerun_changed": []},
    "upgrade-rolls": {"check_changed": [], "releases": [BRIDGE], "undo": "yes (rollback_upgrade.yml)"},
    "rollback": {"releases": [START]},
    "upgrade-again": {"releases": [BRIDGE], "unpinned_site_refused": True, "unpinned_site_changed": [],
                      "site_pinned_changed": [], "undo": "yes (rollback_upgrade.yml)"},
    "upgrade-finalize": {"rollback_refused": True, "rollback_refused_changed": [], "site_changed": [],
                         "undo": "no: rollback-upgrade-irreversible"},
    "secure-remove-plaintext": {"site_changed": []},
    "migrate": {"undo": "yes (rollback_kraft_migration.yml)"},
    "migrate-finalize": {"undo": "no: rollback-after-finalize"},
    "upgrade-4.4": {"releases": [TARGET], "undo": "yes (rollback_upgrade.yml)"},
    "finalize-4.4": {"rollback_refused": True, "rollback_refused_changed": [],
                     "undo": "no: rollback-upgrade-irreversible"},
    "convert-quorum": {"site_changed": []},
}


def client_settings(security):
    """(librdkafka settings, Java client properties, bootstrap servers) of the clients on one security setting: the
    legacy PLAINTEXT listener while the cluster is open, else the cluster's own security."""
    if security == "open":
        servers = ",".join(f"{h.fqdn}:{legacy.LISTENER_PORT}" for h in config.load_hosts()
                           if "kafka_broker" in h.groups)
        return client_config(bootstrap_servers=servers), {}, servers
    conf = cluster_settings.kafka_config()
    return conf, cluster_settings.load()["kafka_java"], conf["bootstrap.servers"]


class Clients:
    """The canary and the starting release's VerifiableProducer and VerifiableConsumer, on one security setting."""

    def __init__(self, state, security):
        conf, java, servers = client_settings(security)
        home, step = config.kafka_libs(START).parent, len(state["steps"])
        self.canary = Canary(conf, state["topic"], WORK / "ledger", rate=RATE, first_seq=state["sent"])
        # the tool sends with retries=0 unless told: an application's producer retries through a leader's move
        self.producer = VerifiableProducer(home, java | {"retries": "2147483647"}, state["verifiable_topic"],
                                           WORK / "ledger", name=f"verifiable-{step}", bootstrap_servers=servers)
        self.consumer = VerifiableConsumer(home, java, state["verifiable_topic"], "journey-verifiable",
                                           bootstrap_servers=servers,
                                           log_path=WORK / "logs" / f"verifiable-consumer-{step}.log")
        self.conf, self.state = conf, state

    def start(self):
        self.canary.start()
        self.producer.start()
        self.consumer.start()
        return self

    def stop(self):
        assert self.canary.stop() == 0, "canary: records never reported"
        self.state["sent"] += self.canary.sent
        return {"canary": self.canary.summary(), "producer": self.producer.stop(), "consumer": self.consumer.stop()}


def begin():
    """A fresh lab, the legacy cluster, the layer, the topics and the snapshot taken before the takeover."""
    drill.fresh_lab(WORK)
    _, seconds = drill.run([sys.executable, "-m", "lab", "legacy-deploy", "--version", START], WORK / "logs")
    # the lab's inventory alone: the layer is what this run writes
    playbook("adopt_cluster.yml", "-e", f"adopt_inventory_dir={LAYER}",
             env=ansible.environment(KAFKAOPS_LAB_KAFKA_VERSION=START))
    suffix = uuid.uuid4().hex[:6]
    state = {"topic": f"journey-{suffix}", "verifiable_topic": f"journey-verifiable-{suffix}", "sent": 0,
             "steps": [], "legacy_deploy_s": round(seconds), "layer": layer_files()}
    clients = Clients(state, "open")
    for topic in (state["topic"], state["verifiable_topic"]):
        ensure_topic(clients.conf, topic, partitions=6, replication_factor=3)
    clients.start()
    try:
        time.sleep(20)  # data in every partition and the consumer group's first commits before the snapshot
        playbook("snapshot_offsets.yml", "-e", f"snapshot_dir={WORK / 'snapshots'}")
    finally:
        summary = clients.stop()
    state["before"] = str(max((WORK / "snapshots").glob("*/*/cluster.json")).parent)
    state["steps"].append({"step": "snapshot", "clients": summary})
    return state


def layer_files():
    """The layer adoption wrote, as it wrote it (the closing note quotes it)."""
    return {str(p.relative_to(LAYER)): p.read_text() for p in sorted(LAYER.rglob("*.yml"))}


def run_step(state, name, security, function):
    print(f"== {name} ({security} clients)", flush=True)
    clients = Clients(state, security).start()
    started_at, started = time.time(), time.monotonic()
    try:
        checks = function()
    finally:
        ended_at, wall = time.time(), time.monotonic() - started
        summary = clients.stop()
    result = {"step": name, "wall_s": round(wall), "clients": summary, "checks": checks}
    result |= drill.window(WORK / "ledger", started_at, ended_at)
    losses, problems = drill.validate(state["before"], WORK / "ledger", WORK / "snapshots", WORK / "reports" / name,
                                      [s["clients"]["canary"] for s in state["steps"] if "clients" in s]
                                      + [summary["canary"]], env=layered())
    result |= {"lost": losses["lost"], "verdict": losses["verdict"], "acked_so_far": losses["acked"]}
    problems = [p for p in problems if "failed sends" not in p]  # counted per step, below
    # the gates hold through every step, rolls included: a failed send of either producer is a problem
    problems += [f"{result['failed']} failed sends"] if result["failed"] else []
    problems += [f"VerifiableProducer: {summary['producer']['failed']} failed sends"] \
        if summary["producer"]["failed"] else []
    problems += drill.mismatches(checks, EXPECTED.get(name, {}))
    result["problems"] = problems
    print(f"{name}: {json.dumps(result)}", flush=True)
    return result


def committed_offsets(state, security):
    """The VerifiableConsumer group's offsets the cluster holds at the end, against what the tool last committed:
    {"cluster": {partition: offset}, "last_committed": {partition: offset}} (partitions as strings)."""
    admin = AdminClient(client_settings(security)[0])
    group = ConsumerGroupTopicPartitions("journey-verifiable")
    held = admin.list_consumer_group_offsets([group])["journey-verifiable"].result(30)
    last = next(s["clients"]["consumer"]["last_committed"] for s in reversed(state["steps"]) if "clients" in s)
    return {"cluster": {str(tp.partition): tp.offset for tp in held.topic_partitions
                        if tp.topic == state["verifiable_topic"] and tp.offset >= 0},
            "last_committed": {str(p): o for p, o in last.items()}}


def table(state):
    """The journey's table: per step, wall time, the canary's longest outage and unavailable seconds in all,
    acknowledged, lost, failed, undo."""
    lines = ["| step | wall s | longest outage s | unavailable s in all | acknowledged (canary + VerifiableProducer) | "
             "lost | failed sends | can be undone after it |", "|---|---|---|---|---|---|---|---|"]
    for s in state["steps"]:
        if s["step"] == "snapshot":
            continue
        producer = s["clients"]["producer"]
        lines.append(f"| {s['step']} | {s['wall_s']} | {s['longest_unavailable_s']} | {s['unavailable_s']} | "
                     f"{s['acked']} + {producer['acked']} | "
                     f"{s['lost']} | {s['failed']} + {producer['failed']} | {s['checks'].get('undo', '')} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resume", action="store_true", help="go on from the first step not done")
    args = parser.parse_args()
    started = time.monotonic()
    state = json.loads(STATE.read_text()) if args.resume else begin()
    STATE.write_text(json.dumps(state, indent=2))
    done = {s["step"] for s in state["steps"] if not s.get("problems")}
    steps = [step for step in STEPS if PATHS[START] is None or step[0] in PATHS[START]]
    for name, security, function in steps:
        if name in done:
            continue
        state["steps"] = [s for s in state["steps"] if s["step"] != name]
        state["steps"].append(run_step(state, name, security, function))
        STATE.write_text(json.dumps(state, indent=2))
        if state["steps"][-1]["problems"]:
            break
    problems = [f"{s['step']}: {p}" for s in state["steps"] for p in s.get("problems", [])]
    if not problems and {s["step"] for s in state["steps"]} >= {name for name, _, _ in steps}:
        state["committed_offsets"] = committed_offsets(state, steps[-1][1])
        kept = state["committed_offsets"]["cluster"] == state["committed_offsets"]["last_committed"]
        problems += [] if kept else [f"the group's committed offsets: {state['committed_offsets']}"]
    state["table"] = table(state)
    state["journey_s"] = state.get("journey_s", 0) + round(time.monotonic() - started)
    STATE.write_text(json.dumps(state, indent=2))
    print(state["table"])
    figures = {k: v for k, v in state.items() if k != "layer"}
    drill.finish(NAME, figures, problems, "every step lost nothing; the refusals changed nothing")


if __name__ == "__main__":
    main()
