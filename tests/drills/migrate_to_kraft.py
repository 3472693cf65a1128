"""Drill and benchmark: migrate_to_kraft.yml takes the secured ZooKeeper cluster to KRaft under an acks=all canary,
step by step, and nothing is lost at any step.

On a fresh lab with the ZooKeeper cluster deployed (site.yml): a canary topic; a consumer group that commits offsets;
a SCRAM user that kafka_access.yml lets write and read one topic and nothing else; a before snapshot; a rolling
restart of the brokers (rolling_restart.yml, for the ZooKeeper-mode roll ratio). Then each step of the migration
runs alone (-e migration_until=<step>, the last with -e finalize=true) while a canary writes, and after each:
  - the same command again changes nothing;
  - the Spark validator (validate_recovery.yml) finds every acknowledged record and committed offset;
  - the figures of the step: wall time, the canary's acknowledged and failed sends, its unavailable seconds.
After finalize: rollback_kraft_migration.yml (and its --check) is refused, changing nothing; the user can do exactly
what it could before; ZooKeeper is stopped and the canary keeps writing;
site.yml in KRaft mode changes nothing (the migrated cluster is the one the roles deploy); a rolling restart in
KRaft mode gives the KRaft roll ratio; the validator runs a last time.

Fails (exit 1) on: a failed playbook, a rerun that changed something, a lost record or committed offset, a failed
send outside the rolls (every failed send is counted per step), access that changed. Prints the figures and writes
them to .cache/drills/migrate-to-kraft.json.

Run: make bench-migration   (takes the lab down and up: about 30 minutes)
"""

import json
import pathlib
import sys
import tempfile
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "integration"))

import drill  # noqa: E402
from confluent_kafka import Consumer, KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType  # noqa: E402

from bench.rolling_restart import roll_figures  # noqa: E402
from canary import Canary, ensure_topic  # noqa: E402
from lab import ansible, cluster_settings, config  # noqa: E402
from lab.command_lines import CommandLineWatch  # noqa: E402

WORK = REPO / ".cache" / "drills" / "migrate-to-kraft"
RATE = 200  # canary records per second
STEPS = [("controllers", ["-e", "migration_until=controllers"]),
         ("brokers_migration", ["-e", "migration_until=brokers_migration"]),
         ("metadata", ["-e", "migration_until=metadata"]),
         ("brokers_kraft", ["-e", "migration_until=brokers_kraft"]),
         ("finalize", ["-e", "finalize=true"])]
ROLLS_BROKERS = ("brokers_migration", "brokers_kraft")
KRAFT = ansible.environment(KAFKAOPS_LAB_METADATA_MODE="kraft")


def run(command, env=None):
    return drill.run(command, WORK / "logs", REPO, env)


def playbook(*args, env=None):
    return run(["ansible-playbook", *args], env)


def rollback_refused():
    """rollback_kraft_migration.yml after finalize: refused with the reason, changing nothing (ZooKeeper no longer
    has the cluster's metadata). Its check mode must show the same refusal."""
    problems, runs = [], {}
    for name, args in (("check", ["--check"]), ("run", [])):
        ok, changed = drill.refused(["ansible-playbook", "playbooks/rollback_kraft_migration.yml", *args],
                                    WORK / "logs" / f"rollback-after-finalize-{name}.log",
                                    ["Refusing to roll back the migration: [rollback-after-finalize] the migration "
                                     "is finalized", "Nothing changed."])
        runs[name] = {"refused": ok, "changed": changed}
        problems += [] if ok else [f"{name}: not refused"]
        problems += [f"{name}: changed {changed}"] if changed else []
    print(f"rollback after finalize: {json.dumps(runs)}", flush=True)
    return runs | {"problems": problems}


def commit_offsets(conf, topic, group):
    """A consumer group that reads the topic's first records and commits: its offsets must survive."""
    consumer = Consumer(conf | {"group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False})
    try:
        consumer.subscribe([topic])
        read = 0
        deadline = time.monotonic() + 60
        while read < 500 and time.monotonic() < deadline:
            msg = consumer.poll(1)
            if msg is not None and msg.error() is None:
                read += 1
        consumer.commit(asynchronous=False)
        return read
    finally:
        consumer.close()


def access(user, password, topic):
    """{action: None if allowed, else the error's name} of the user on topic: produce and consume (granted),
    describe configs and delete (not granted)."""
    conf = cluster_settings.user_config(user, password)
    outcomes, reports = {}, []
    producer = Producer(conf | {"acks": "all", "message.timeout.ms": 15000})
    producer.produce(topic, b"v", on_delivery=lambda err, msg: reports.append(err))
    producer.flush(20)
    outcomes["produce"] = reports[0].name() if reports and reports[0] else (None if reports else "no report")
    consumer = Consumer(conf | {"group.id": f"{topic}-group", "auto.offset.reset": "earliest"})
    try:
        consumer.subscribe([topic])
        msg = next((m for m in (consumer.poll(1) for _ in range(20)) if m is not None), None)
        outcomes["consume"] = None if msg is not None and msg.error() is None else str(msg and msg.error())
    finally:
        consumer.close()
    admin = AdminClient(conf)
    resource = ConfigResource(ResourceType.TOPIC, topic)
    for action, call in (("describe_configs", lambda: admin.describe_configs([resource])[resource].result(15)),
                         ("delete", lambda: admin.delete_topics([topic], operation_timeout=15)[topic].result(30))):
        try:
            call()
            outcomes[action] = None
        except KafkaException as exc:
            outcomes[action] = exc.args[0].name()
    return outcomes


def grant(user, password, topic):
    grants = [{"principal": f"User:{user}", "resource_type": "topic", "resource_name": topic, "operation": op}
              for op in ("write", "read")]
    grants.append({"principal": f"User:{user}", "resource_type": "group", "resource_name": f"{topic}-group",
                   "operation": "read"})
    values = WORK / "grant.json"  # a file, not the command line: the drill watches command lines for passwords
    values.touch(mode=0o600)
    values.write_text(json.dumps({"kafka_scram_users": [{"name": user, "password": password}], "kafka_acls": grants}))
    try:
        playbook("playbooks/kafka_access.yml", "-e", f"@{values}")
    finally:
        values.unlink()  # it holds the user's password


def rolling_restart(env=None):
    """rolling_restart.yml with its report: (roll time, floor, ratio)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp) / "roll.json"
        playbook("playbooks/rolling_restart.yml", "-e", f"rolling_restart_report={report}", env=env)
        return roll_figures(json.loads(report.read_text()))


def main():
    started = time.monotonic()
    drill.fresh_lab(WORK)
    # No password on any command line, on any host or here, from the first deploy to the end of the migration
    watch = CommandLineWatch(config.load_hosts(), lambda: config.secrets() | {"the drill's user": password})
    password = uuid.uuid4().hex
    watch.__enter__()
    _, deploy_s = playbook("playbooks/site.yml")
    conf = cluster_settings.kafka_config()
    figures = {"deploy_s": round(deploy_s), "steps": []}

    topic, group = f"drill-kraft-{uuid.uuid4().hex[:6]}", "drill-kraft-committed"
    ensure_topic(conf, topic, partitions=6, replication_factor=3)
    user = f"drill-app-{uuid.uuid4().hex[:6]}"
    user_topic = f"{user}-topic"
    admin = AdminClient(conf)  # kept: the future needs the client alive
    admin.create_topics([NewTopic(user_topic, 3, 3)])[user_topic].result(30)
    grant(user, password, user_topic)
    access_before = access(user, password, user_topic)

    ledger, snapshots = WORK / "ledger", WORK / "snapshots"
    canaries, sent = [], 0
    canary = Canary(conf, topic, ledger, rate=RATE).start()
    time.sleep(10)
    figures["committed_before"] = commit_offsets(conf, topic, group)
    playbook("playbooks/snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}")
    before = max(snapshots.glob("*/*/cluster.json")).parent
    figures["zookeeper_roll"] = dict(zip(("roll_s", "floor_s", "ratio"), rolling_restart(), strict=True))
    print(f"ZooKeeper-mode roll: {json.dumps(figures['zookeeper_roll'])}", flush=True)
    problems = []

    for step, args in STEPS:
        step_start = time.time()
        proc, seconds = playbook("playbooks/migrate_to_kraft.yml", *args)
        step_end = time.time()
        rerun, _ = playbook("playbooks/migrate_to_kraft.yml", *args)
        assert canary.stop() == 0, f"{step}: records never reported"
        canaries.append(canary.summary())
        sent += canary.sent
        result = {"step": step, "wall_s": round(seconds), "rerun_changed": drill.changed_hosts(rerun.stdout)}
        result |= drill.window(ledger, step_start, step_end)
        losses, step_problems = drill.validate(before, ledger, snapshots, WORK / "reports" / step, canaries)
        result["lost"], result["verdict"] = losses["lost"], losses["verdict"]
        # acks=all with idempotence retries through a leader move: a failed send counts as a problem in a step
        # that rolls no broker, and is counted (and reported) in one that does
        problems += [f"{step}: {p}" for p in step_problems if "failed sends" not in p]
        problems += [f"{step}: {result['failed']} failed sends"] if result["failed"] and step not in ROLLS_BROKERS \
            else []
        problems += [f"{step}: the rerun changed {result['rerun_changed']}"] if result["rerun_changed"] else []
        figures["steps"].append(result)
        print(f"{step}: {json.dumps(result)}", flush=True)
        canary = Canary(conf, topic, ledger, rate=RATE, first_seq=sent).start()

    figures["access_before"], figures["access_after"] = access_before, access(user, password, user_topic)
    if figures["access_after"] != access_before:
        problems.append(f"access changed: {access_before} before, {figures['access_after']} after")

    figures["rollback_after_finalize"] = rollback_refused()
    problems += [f"rollback after finalize: {p}" for p in figures["rollback_after_finalize"]["problems"]]

    # The migrated cluster needs no ZooKeeper: stop it, keep writing, then the checks of a KRaft deploy
    zk_start = time.time()
    for host in ("zk1", "zk2", "zk3"):
        drill.on_host(host, "systemctl stop zookeeper.service")
    time.sleep(30)
    figures["zookeeper_stopped"] = drill.window(ledger, zk_start, time.time())
    problems += ["failed sends with ZooKeeper stopped"] if figures["zookeeper_stopped"]["failed"] else []
    site, _ = playbook("playbooks/site.yml", env=KRAFT)
    figures["site_kraft_changed"] = drill.changed_hosts(site.stdout)
    problems += [f"site.yml in KRaft mode changed {figures['site_kraft_changed']}"] if figures["site_kraft_changed"] \
        else []
    figures["kraft_roll"] = dict(zip(("roll_s", "floor_s", "ratio"), rolling_restart(env=KRAFT), strict=True))
    assert canary.stop() == 0, "last canary: records never reported"
    canaries.append(canary.summary())
    losses, last_problems = drill.validate(before, ledger, snapshots, WORK / "reports" / "kraft", canaries, env=KRAFT)
    figures["final"] = losses
    problems += [f"after finalize, ZooKeeper stopped: {p}" for p in last_problems if "failed sends" not in p]
    figures["failed_in_broker_rolls"] = sum(s["failed"] for s in figures["steps"] if s["step"] in ROLLS_BROKERS)
    figures["migration_s"] = sum(s["wall_s"] for s in figures["steps"])
    watch.__exit__(None, None, None)
    figures["command_lines"] = {"samples": watch.samples, "leaks": watch.leaks}
    problems += [f"a password on a command line: {leak}" for leak in watch.leaks]
    problems += [] if watch.samples else ["the command line watch took no sample"]
    figures["drill_s"] = round(time.monotonic() - started)
    drill.finish("migrate-to-kraft", figures, problems,
                 "every step lost nothing, every rerun and site.yml in KRaft mode changed nothing, access unchanged")


if __name__ == "__main__":
    main()
