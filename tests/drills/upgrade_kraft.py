"""Drill: upgrade_kafka.yml and rollback_upgrade.yml on a KRaft cluster from 3.9.2 to 4.4.0, under an acks=all canary.

On a fresh KRaft lab of 3.9.2 (a static quorum, as a migrated cluster's): a canary topic and a before snapshot; then
--check (the plan, nothing changed); the rolls to 4.4.0 (controllers, then brokers; every node then runs 4.4.0,
metadata.version still 3.9-IV0, the quorum still static); rollback_upgrade.yml (every node back on 3.9.2, the record
removed); the rolls again, killed with SIGKILL once the first broker is restarted; a rerun without -e kafka_version
(the inventory's 3.9.2) refused as a mixed cluster not mid-upgrade to its target, changing and restarting nothing;
the rerun to 4.4.0 (it restarts no node already on 4.4.0 and finishes the rest); then -e finalize=true
(metadata.version 4.4-IV2 and the other features at 4.4's levels, kraft.version still 0: the quorum stays static);
rollback_upgrade.yml then refused, changing nothing; site.yml with the inventory the run said to commit
(kafka_version 4.4.0, kafka_controller_quorum static) changes nothing. The Spark validator (validate_recovery.yml)
checks the canary's ledger. The lab's receiver must get no notification from the first roll until
QUIET_AFTER_PLANNED_S after the last playbook: every roll, the rollback and the killed run are planned work.

Fails (exit 1) on: a failed playbook, a check or refused run that changes a host, a node not on the release a step
should leave it on, the other target not refused or restarting a node, a rerun that restarts a node already
upgraded, a feature not at its level, kraft.version raised, a failed send, a lost record, site.yml changing
something, a notification. Figures: .cache/drills/upgrade-kraft.json.

Run: make test-upgrade (takes the lab down and up with KAFKAOPS_LAB_KAFKA_VERSION=3.9.2 and
KAFKAOPS_LAB_METADATA_MODE=kraft)
"""

import os
import time

import drill

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft, kafka_tools
from lab import cluster_settings, config, receiver
from lab.monitoring import QUIET_AFTER_PLANNED_S

WORK = drill.REPO / ".cache" / "drills" / "upgrade-kraft"
RATE = 200  # canary records per second
TARGET = "4.4.0"
UPGRADE = ["ansible-playbook", "playbooks/upgrade_kafka.yml", "-e", f"kafka_version={TARGET}"]
ROLLBACK = ["ansible-playbook", "playbooks/rollback_upgrade.yml"]
# the rolls killed here: every controller and the first broker restarted on the target, the broker's gate waiting
KILLED_AT = "Gate: wait until it is registered and back in the ISR of every partition it hosts"
FEATURES_44 = {"metadata.version": 33, "eligible.leader.replicas.version": 1, "group.version": 1,
               "share.version": 2, "streams.version": 1, "transaction.version": 2}


def features():
    """The finalized feature levels, metadata.version as its level (4.4.0's tools)."""
    home = str(config.kafka_libs(TARGET).parent)
    return kafka_tools.read_feature_levels(home, cluster_settings.kafka_config(), 60)


def quorum_kraft_version():
    home = str(config.kafka_libs().parent)
    rows = kafka_tools.read_quorum(home, cluster_settings.kafka_config(), 30)["replication"]
    return kafka_kraft.quorum_kraft_version(rows)


def main():
    assert config.KAFKA_VERSION == "3.9.2" and os.environ.get("KAFKAOPS_LAB_METADATA_MODE") == "kraft", \
        "set KAFKAOPS_LAB_KAFKA_VERSION=3.9.2 KAFKAOPS_LAB_METADATA_MODE=kraft (make test-upgrade does)"
    started = time.monotonic()
    drill.fresh_lab(WORK)
    logs = WORK / "logs"
    _, deploy_s = drill.run(["ansible-playbook", "playbooks/site.yml"], logs)
    figures = {"from": config.KAFKA_VERSION, "to": TARGET, "deploy_s": round(deploy_s),
               "releases_before": drill.releases()}

    canary, ledger, snapshots, before = drill.canary_with_snapshot(WORK, "drill-upgrade", RATE)
    try:
        check, _ = drill.run([*UPGRADE, "--check"], logs)
        figures["check_changed"] = drill.changed_hosts(check.stdout)
        figures["releases_after_check"] = drill.releases()

        rolls_started = time.time()
        _, seconds = drill.run(UPGRADE, logs)
        figures["rolls_s"] = round(seconds)
        figures["releases_after_rolls"] = drill.releases()
        figures["metadata_version_after_rolls"] = features()["metadata.version"]

        _, seconds = drill.run(ROLLBACK, logs)
        figures["rollback_s"] = round(seconds)
        figures["releases_after_rollback"] = drill.releases()

        # the rolls again, the run killed (SIGKILL) once the first broker is restarted: the rerun goes on from there
        drill.killed_at(UPGRADE, logs / "upgrade-killed.log", KILLED_AT)
        on_target = [h for h, release in drill.releases().items() if release == TARGET]
        figures["on_target_after_kill"] = {group: sum(group in h.groups and h.name in on_target
                                                      for h in config.load_hosts())
                                           for group in ("kafka_controller", "kafka_broker")}
        pids = drill.kafka_pids()
        # the rerun without -e kafka_version (the inventory's 3.9.2) mid-upgrade: refused, nothing changed or restarted
        refused, changed = drill.refused(UPGRADE[:2], logs / "upgrade-other-target-refused.log",
                                         ["[upgrade-mixed-releases]"])
        figures["other_target_refused_mid_upgrade"], figures["other_target_refused_changed"] = refused, changed
        figures["other_target_restarted"] = sorted(h for h, pid in drill.kafka_pids().items() if pid != pids[h])
        drill.run(UPGRADE, logs)
        after = drill.kafka_pids()
        figures["rerun_restarted_nodes_on_target"] = sorted(h for h in on_target if after[h] != pids[h])
        figures["releases_after_rerun"] = drill.releases()
        _, seconds = drill.run([*UPGRADE, "-e", "finalize=true"], logs)
        figures["finalize_s"] = round(seconds)
        levels = features()
        figures["features_after_finalize"] = {name: levels.get(name, 0) for name in FEATURES_44}
        figures["kraft_version_after_finalize"] = quorum_kraft_version()

        refused, changed = drill.refused(ROLLBACK, logs / "rollback-refused.log", ["[rollback-upgrade-irreversible]"])
        figures["rollback_refused_after_finalize"], figures["rollback_refused_changed"] = refused, changed
        site, _ = drill.run(["ansible-playbook", "playbooks/site.yml", "-e", f"kafka_version={TARGET}",
                             "-e", "kafka_controller_quorum=static"], logs)  # the inventory the run said to commit
        figures["site_after_changed"] = drill.changed_hosts(site.stdout)
        time.sleep(QUIET_AFTER_PLANNED_S)
        figures["notifications"] = receiver.names(receiver.alerts_since(rolls_started))
    finally:
        assert canary.stop() == 0, "canary: records never reported"
    problems = drill.validate_canary(canary, figures, before, ledger, snapshots, WORK / "report", started)
    nodes = sorted(figures["releases_before"])
    expected = {"releases_before": dict.fromkeys(nodes, "3.9.2"), "check_changed": [],
                "releases_after_check": dict.fromkeys(nodes, "3.9.2"),
                "releases_after_rolls": dict.fromkeys(nodes, TARGET), "metadata_version_after_rolls": 21,
                "releases_after_rollback": dict.fromkeys(nodes, "3.9.2"),
                "on_target_after_kill": {"kafka_controller": 3, "kafka_broker": 1},
                "other_target_refused_mid_upgrade": True, "other_target_refused_changed": [],
                "other_target_restarted": [], "rerun_restarted_nodes_on_target": [],
                "releases_after_rerun": dict.fromkeys(nodes, TARGET),
                "features_after_finalize": FEATURES_44,
                "kraft_version_after_finalize": 0, "rollback_refused_after_finalize": True,
                "rollback_refused_changed": [], "site_after_changed": [], "notifications": []}
    problems += drill.mismatches(figures, expected)
    drill.finish("upgrade-kraft", figures, problems,
                 "rolled to 4.4.0 and back, finalized with explicit features (the quorum still static), the rollback "
                 "then refused, nothing lost, site.yml unchanged, nobody notified")


if __name__ == "__main__":
    main()
