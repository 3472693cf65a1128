"""Drill: rollback_kraft_migration.yml takes the cluster back to ZooKeeper mode from every step of the migration
before finalize, under an acks=all canary, and the rolled-back cluster migrates again.

On a fresh lab with the ZooKeeper cluster deployed (site.yml): a canary topic, a consumer group that commits offsets,
a before snapshot, and the brokers' server.properties. Then, for each step before finalize (controllers,
brokers_migration, metadata, brokers_kraft): migrate_to_kraft.yml up to that step, then rollback_kraft_migration.yml,
then the same rollback again, which must change nothing; and the cluster must be the ZooKeeper cluster it was:
the brokers' server.properties as before, the controllers stopped, disabled and empty, no /migration, site.yml
changing nothing, and the Spark validator finding every acknowledged record and committed offset. Last, a whole
migration of the rolled-back cluster (finalize included) must succeed, and the validator run once more.

Fails (exit 1) on any of those. Prints the figures (per step: the migration's and the rollback's wall time, the
canary's failed sends and unavailable seconds) and writes them to .cache/drills/rollback-kraft-migration.json.

Run: make test-migration   (takes the lab down and up: about 45 minutes)
"""

import json
import pathlib
import sys
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO))

import drill  # noqa: E402
from migrate_to_kraft import KRAFT, commit_offsets, window  # noqa: E402

from canary import Canary, ensure_topic  # noqa: E402
from lab import cluster_settings  # noqa: E402
from lab.cluster_settings import kazoo_client  # noqa: E402

WORK = REPO / ".cache" / "drills" / "rollback-kraft-migration"
RATE = 200
STEPS = ("controllers", "brokers_migration", "metadata", "brokers_kraft")
BROKERS, CONTROLLERS = ("kafka1", "kafka2", "kafka3"), ("ctrl1", "ctrl2", "ctrl3")


def playbook(*args):
    return drill.run(["ansible-playbook", *args], WORK / "logs")


def broker_configs():
    return {h: drill.on_host(h, "sha256sum /etc/kafka/server.properties").split()[0] for h in BROKERS}


def zookeeper_cluster_problems(configs_before):
    """What differs from the ZooKeeper cluster that was there before the migration."""
    problems = []
    if broker_configs() != configs_before:
        problems.append("a broker's server.properties differs from the one before the migration")
    for host in CONTROLLERS:
        state = drill.on_host(host, "systemctl is-active kafka-controller; systemctl is-enabled kafka-controller; "
                             "ls -A /var/lib/kafka-controller/metadata 2>/dev/null | wc -l; true").split()
        if state[:2] != ["inactive", "disabled"] or state[-1] != "0":
            problems.append(f"controller {host} is not stopped, disabled and empty: {state}")
    zk = kazoo_client(timeout=10)
    zk.start(timeout=30)
    try:
        if zk.exists("/migration"):
            problems.append(f"/migration is left: {zk.get('/migration')[0]}")
    finally:
        zk.stop()
        zk.close()
    site, _ = playbook("playbooks/site.yml")
    changed = drill.changed_hosts(site.stdout)
    problems += [f"site.yml changed {changed}"] if changed else []
    return problems


def site_kraft_refused():
    """site.yml with kafka_metadata_mode: kraft before finalize would render the controllers without ZooKeeper, that
    is finalize them: it must be refused, changing nothing."""
    ok, changed = drill.refused(["ansible-playbook", "playbooks/site.yml"],
                                WORK / "logs" / "site-kraft-before-finalize.log",
                                ["[mode-change-by-migration-only] it runs with the settings of a migration to KRaft"],
                                env=KRAFT)
    if not ok:
        return ["site.yml in KRaft mode before finalize was not refused"]
    return [f"the refused site.yml changed {changed}"] if changed else []


def main():
    started = time.monotonic()
    drill.fresh_lab(WORK)
    playbook("playbooks/site.yml")
    conf = cluster_settings.kafka_config()
    topic = f"drill-rollback-{uuid.uuid4().hex[:6]}"
    ensure_topic(conf, topic, partitions=6, replication_factor=3)
    ledger, snapshots = WORK / "ledger", WORK / "snapshots"
    canaries, sent, problems, figures = [], 0, [], {"rollbacks": []}
    canary = Canary(conf, topic, ledger, rate=RATE).start()
    time.sleep(10)
    figures["committed_before"] = commit_offsets(conf, topic, "drill-rollback-committed")
    playbook("playbooks/snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}")
    before = max(snapshots.glob("*/*/cluster.json")).parent
    configs_before = broker_configs()

    for step in STEPS:
        start = time.time()
        _, migrate_s = playbook("playbooks/migrate_to_kraft.yml", "-e", f"migration_until={step}")
        if step == "brokers_kraft":
            problems += site_kraft_refused()
        rollback_start = time.time()
        _, rollback_s = playbook("playbooks/rollback_kraft_migration.yml")
        end = time.time()
        rerun, _ = playbook("playbooks/rollback_kraft_migration.yml")
        assert canary.stop() == 0, f"{step}: records never reported"
        canaries.append(canary.summary())
        sent += canary.sent
        result = {"from_step": step, "migrate_s": round(migrate_s), "rollback_s": round(rollback_s),
                  "rollback_rerun_changed": drill.changed_hosts(rerun.stdout),
                  "migration_window": window(ledger, start, rollback_start), "rollback_window": window(ledger,
                                                                                                      rollback_start,
                                                                                                      end)}
        losses, step_problems = drill.validate(before, ledger, snapshots, WORK / "reports" / step, canaries)
        result["lost"], result["verdict"] = losses["lost"], losses["verdict"]
        step_problems = [p for p in step_problems if "failed sends" not in p]  # counted in the windows
        step_problems += zookeeper_cluster_problems(configs_before)
        step_problems += [f"the rollback's rerun changed {result['rollback_rerun_changed']}"] \
            if result["rollback_rerun_changed"] else []
        result["problems"] = step_problems  # printed with the step: a later crash must not hide them
        problems += [f"rollback from {step}: {p}" for p in step_problems]
        figures["rollbacks"].append(result)
        print(f"rollback from {step}: {json.dumps(result)}", flush=True)
        canary = Canary(conf, topic, ledger, rate=RATE, first_seq=sent).start()

    # The rolled-back cluster migrates again, to the end
    start = time.time()
    _, seconds = playbook("playbooks/migrate_to_kraft.yml")
    _, finalize_s = playbook("playbooks/migrate_to_kraft.yml", "-e", "finalize=true")
    end = time.time()
    assert canary.stop() == 0, "last canary: records never reported"  # first: a live ledger's segments move
    figures["second_migration"] = {"wall_s": round(seconds + finalize_s)} | window(ledger, start, end)
    canaries.append(canary.summary())
    losses, last_problems = drill.validate(before, ledger, snapshots, WORK / "reports" / "second-migration",
                                           canaries)
    figures["final"] = losses
    problems += [f"second migration: {p}" for p in last_problems if "failed sends" not in p]
    figures["failed_sends"] = sum(c["failed"] for c in canaries)
    figures["drill_s"] = round(time.monotonic() - started)
    drill.finish("rollback-kraft-migration", figures, problems,
                 "every rollback lost nothing and left the ZooKeeper cluster it found; the second migration worked")


if __name__ == "__main__":
    main()
