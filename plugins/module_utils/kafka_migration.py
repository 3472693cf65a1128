"""The ZooKeeper to KRaft migration's decisions (Kafka 3.9, KIP-866), on what the cluster shows, never on a local
record alone: how far the migration got, what must hold before it starts, and what a rollback must undo.
Background and sources: docs/design/kraft-migration-research.md.

The migration's steps, in order (playbooks/migrate_to_kraft.yml runs the ones not done):
  controllers        the KRaft controllers run in migration mode (ZooKeeper settings and the migration flag)
  brokers_migration  every broker runs ZooKeeper mode with the migration flag and the quorum's settings
  metadata           the controllers copied ZooKeeper's metadata: ZkMigrationState MIGRATION (dual writes)
  brokers_kraft      every broker runs KRaft mode (process.roles=broker)
  finalize           the controllers run without ZooKeeper: no way back
Each host's part is done when its config file says so and it runs that file (no restart pending).
"""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft
from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal

STEPS = ("controllers", "brokers_migration", "metadata", "brokers_kraft", "finalize")

# kafka.controller:type=KafkaController,name=ZkMigrationState (Kafka 3.9 docs, KRaft monitoring)
ZK_MIGRATION_STATE = {0: "NONE", 1: "MIGRATION", 2: "PRE_MIGRATION", 3: "POST_MIGRATION", 4: "ZK"}

# What a host's config file runs (configured_mode below)
ZOOKEEPER, MIGRATING, KRAFT, MIGRATION = "zookeeper", "migrating", "kraft", "migration"


# The server.properties keys the precheck reads (precheck_refusals' brokers[host]["props"])
PRECHECK_KEYS = ("broker.id", "broker.id.generation.enable", "reserved.broker.max.id", "inter.broker.protocol.version")


def configured_mode(props):
    """What a broker's or controller's config file runs: 'kraft' (process.roles, no ZooKeeper), 'migration' (a
    controller with the migration flag), 'migrating' (a ZooKeeper-mode broker with the flag), 'zookeeper', or None
    (no file)."""
    flag = props.get("zookeeper.metadata.migration.enable", "").strip().lower() == "true"
    if "process.roles" in props:
        return MIGRATION if flag or "zookeeper.connect" in props else KRAFT
    if "zookeeper.connect" in props:
        return MIGRATING if flag else ZOOKEEPER
    return None


def _hosts(nodes, mode, settled=True):
    """The hosts whose config runs mode (and, with settled, that run it: no restart pending)."""
    return sorted(h for h, n in nodes.items() if n["mode"] == mode and (not settled or not n["restart_pending"]))


def progress(controllers, brokers, zk_state):
    """How far the migration got.

    controllers, brokers: {inventory host: {"mode": configured_mode(...), "restart_pending": bool}}, and for a
    controller "running": whether its service runs;
    zk_state: the quorum's ZkMigrationState (an int of ZK_MIGRATION_STATE), None when not read (no controller).
    Returns {"done": [steps done, in order], "next": the first step not done (None: all done),
    "started": whether any host of the next step has changed, "refusals": [refusal(...): a state no step leads to]}.
    """
    modes = {h: n["mode"] for h, n in brokers.items()}
    ctrl_modes = {h: n["mode"] for h, n in controllers.items()}
    refusals = []
    unknown = sorted(h for h, m in modes.items() if m not in (ZOOKEEPER, MIGRATING, KRAFT))
    if unknown:
        refusals.append(refusal("migration-inconsistent-state",
                                f"brokers {', '.join(unknown)} have no ZooKeeper or KRaft config."))
    if controllers and any(m == ZOOKEEPER for m in modes.values()) and any(m == KRAFT for m in modes.values()):
        refusals.append(refusal("migration-inconsistent-state", (
            "brokers " + ", ".join(_hosts(brokers, ZOOKEEPER, False)) + " run ZooKeeper mode without the migration "
            "flag while " + ", ".join(_hosts(brokers, KRAFT, False)) + " run KRaft mode.")))
    finalized = _hosts(controllers, KRAFT, False)
    if finalized and any(m != KRAFT for m in modes.values()):
        refusals.append(refusal("migration-finalized-early", (
            f"controllers {', '.join(finalized)} run without ZooKeeper while brokers "
            f"{', '.join(h for h, m in sorted(modes.items()) if m != KRAFT)} do not run KRaft mode: the migration was "
            "finalized before every broker moved (KAFKA-20960); no step repairs it.")))
    # A finalized controller has JMX off (kafka_controller role) and no state to read: it was finalized only after
    # the metadata had moved.
    metadata_moved = zk_state in (1, 3) or (bool(controllers) and all(m == KRAFT for m in ctrl_modes.values()))
    kraft_brokers = _hosts(brokers, KRAFT, False)
    if kraft_brokers and not metadata_moved:
        refusals.append(refusal("migration-inconsistent-state", (
            f"brokers {', '.join(kraft_brokers)} run KRaft mode but the metadata migration is not complete "
            f"(ZkMigrationState {ZK_MIGRATION_STATE.get(zk_state, zk_state)}).")))
    if not controllers and any(m in (MIGRATING, KRAFT) for m in modes.values()):
        refusals.append(refusal("migration-inconsistent-state", (
            "brokers run with the migration's settings but the inventory has no KRaft controllers.")))

    checks = {
        "controllers": bool(controllers) and all(n["mode"] in (MIGRATION, KRAFT) and n["running"]
                                                 and not n["restart_pending"] for n in controllers.values()),
        "brokers_migration": bool(brokers) and all(
            (m == MIGRATING and not brokers[h]["restart_pending"]) or m == KRAFT for h, m in modes.items()),
        "metadata": metadata_moved,
        "brokers_kraft": bool(brokers) and len(_hosts(brokers, KRAFT)) == len(brokers),
        "finalize": bool(controllers) and len(_hosts(controllers, KRAFT)) == len(controllers),
    }
    started = {
        "controllers": any(m is not None for m in ctrl_modes.values()),
        "brokers_migration": any(m in (MIGRATING, KRAFT) for m in modes.values()),
        "metadata": metadata_moved,
        "brokers_kraft": any(m == KRAFT for m in modes.values()),
        "finalize": bool(finalized),
    }
    done = []
    for step in STEPS:
        if not checks[step]:
            break
        done.append(step)
    following = STEPS[len(done)] if len(done) < len(STEPS) else None
    later = [s for s in STEPS[len(done) + 1:] if started[s] and s != "metadata"]
    if following and later:
        refusals.append(refusal("migration-inconsistent-state",
                                f"step {later[0]} has begun before step {following} is done."))
    return {"done": done, "next": following, "started": bool(following and started[following]),
            "refusals": refusals}


def rollback_plan(controllers, brokers, migration_znode=None):
    """What rollback_kraft_migration.yml does, in order, as Kafka 3.9's docs prescribe for how far the migration
    got ("Reverting to ZooKeeper mode During the Migration"), from the hosts' facts alone (progress()'s inputs, and
    a controller's "metadata_state": kafka_kraft.metadata_state), so that a rerun after a rollback that stopped half
    way goes on; or a refusal once finalize has begun. migration_znode: /migration's data, or None.
    Returns {"actions": [...], "refusals": [...]}. Each action is idempotent and checks its own znode:
      brokers_to_migrating   roll KRaft brokers back to ZooKeeper mode, keeping the migration flag
      controller_epoch       raise /controller_epoch above /migration's kraft_controller_epoch (KAFKA-20488)
      stop_controllers       stop and disable the controllers
      delete_controller      delete /controller if a KRaft controller holds it (quickly after the stop)
      delete_migration       save, then delete /migration
      wipe_controllers       empty the controllers' metadata dirs (with /migration's deletion: Strimzi #11262)
      brokers_to_zookeeper   roll the brokers without the flag and the quorum's settings
    """
    finalized = _hosts(controllers, KRAFT, False)
    if finalized:
        return {"actions": [], "refusals": [refusal("rollback-after-finalize", (
            f"the migration is finalized (controllers {', '.join(finalized)} run without ZooKeeper): Kafka 3.9 "
            "cannot go back to ZooKeeper mode from here, and ZooKeeper no longer has the cluster's metadata."))]}
    modes = {n["mode"] for n in brokers.values()}
    left = migration_znode is not None or any(
        n["running"] or n.get("metadata_state", kafka_kraft.NOT_FORMATTED) != kafka_kraft.NOT_FORMATTED
        for n in controllers.values())
    actions = ["brokers_to_migrating"] if KRAFT in modes else []
    if left or modes & {MIGRATING, KRAFT}:
        actions += ["controller_epoch", "stop_controllers", "delete_controller", "delete_migration",
                    "wipe_controllers"]
    if modes & {MIGRATING, KRAFT}:
        actions.append("brokers_to_zookeeper")
    return {"actions": actions, "refusals": []}


def raised_controller_epoch(zk_epoch, migration_znode):
    """The /controller_epoch to write before a ZooKeeper controller takes over again, or None to leave it. The
    partitions' znodes carry the KRaft controller's epoch (/migration's kraft_controller_epoch); a ZooKeeper
    controller elected with an epoch not above it could change no partition, and they go offline (KAFKA-20488).
    A new ZooKeeper controller takes /controller_epoch + 1."""
    kraft = (migration_znode or {}).get("kraft_controller_epoch", -1)
    return kraft + 1 if kraft >= 0 and (zk_epoch is None or kraft > zk_epoch) else None


def precheck_refusals(facts):
    """Why the migration must not start, one refusal each, naming what to fix; [] when it may. Nothing is
    changed before these are read. facts:
      brokers: {host: {"broker_id": int, "props": {its server.properties' PRECHECK_KEYS}}};
      registered_ids: broker ids ZooKeeper holds (/brokers/ids) and the log dirs' meta.properties name;
      under_replicated, offline: partition names (as kafka_cluster_info returns them);
      unclean: where unclean.leader.election.enable is true;
      zookeeper: the ensemble as zookeeper_ensemble_info reads it ({"nodes", "serving", "has_leader"});
      controllers: {host: node id or None}; controller_metadata: {host: {"state", "cluster_id"} or None};
      cluster_id: the ZooKeeper cluster's id;
      migration_znode: /migration's data (a dict), or None when absent or empty.
    """
    refusals = []
    reserved = min(int(b["props"].get("reserved.broker.max.id", 1000)) for b in facts["brokers"].values())
    generated = sorted({i for i in facts["registered_ids"] if i > reserved})
    if generated or any(b["props"].get("broker.id.generation.enable", "").lower() == "true"
                        and "broker.id" not in b["props"] for b in facts["brokers"].values()):
        refusals.append(refusal("migration-generated-broker-ids", (
            f"broker ids above reserved.broker.max.id ({reserved}) were generated "
            f"({generated or 'broker.id unset'}): a migrating broker needs an explicit broker.id of at most "
            "reserved.broker.max.id (KAFKA-17042); replace those brokers with ids from the inventory.")))
    ibp = {h: b["props"].get("inter.broker.protocol.version") for h, b in sorted(facts["brokers"].items())}
    wrong = {h: v for h, v in ibp.items() if v is not None and not v.startswith("3.9")}
    if wrong:
        refusals.append(refusal("migration-needs-3-9-protocol", (
            f"inter.broker.protocol.version is not 3.9 on {wrong}: the migration needs every broker on 3.9 "
            "(roll them with 3.9 first).")))
    for name, what in (("under_replicated", "under-replicated"), ("offline", "offline")):
        if facts[name]:
            more = len(facts[name]) - 10
            shown = ", ".join(facts[name][:10]) + (f" and {more} more" if more > 0 else "")
            refusals.append(refusal("migration-under-replicated",
                                    f"{len(facts[name])} partition(s) are {what}: {shown}."))
    if facts["unclean"]:
        refusals.append(refusal("migration-unclean-election", (
            f"unclean leader election is on: {', '.join(facts['unclean'])}. Turn it off first: the migration's "
            "broker rolls could otherwise elect a replica that lacks acknowledged records.")))
    zk = facts["zookeeper"]
    down = sorted(set(zk["nodes"]) - set(zk["serving"]))
    if down or not zk["has_leader"]:
        refusals.append(refusal("migration-zookeeper-unhealthy", "ZooKeeper is unhealthy: " + "; ".join(
            ([f"{', '.join(down)} not serving"] if down else []) + ([] if zk["has_leader"] else ["no single leader"]))
            + "."))
    # /migration says the metadata was copied: controllers that start on an empty metadata dir next to it copy
    # nothing and write their empty metadata back to ZooKeeper, erasing it (KAFKA-17146, Strimzi #11262)
    empty = sorted(h for h, meta in facts["controller_metadata"].items()
                   if meta is None or meta["state"] == kafka_kraft.NOT_FORMATTED)
    if facts["migration_znode"] and empty:
        refusals.append(refusal("migration-stale-znode", (
            f"/migration holds {facts['migration_znode']}, left by an earlier migration that was not rolled back "
            f"completely, and the metadata dirs of controllers {', '.join(empty)} are empty: controllers started on "
            "them would skip copying ZooKeeper's metadata and write their empty metadata back to ZooKeeper, erasing "
            "it (KAFKA-17146); run rollback_kraft_migration.yml (it saves /migration, then deletes it).")))
    if not facts["controllers"]:
        refusals.append(refusal("migration-no-controllers",
                                "the inventory has no KRaft controllers (group kafka_controller_group)."))
    refusals += kafka_kraft.node_id_refusals(facts["controllers"],
                                             {h: b["broker_id"] for h, b in facts["brokers"].items()})
    for host, meta in sorted(facts["controller_metadata"].items()):
        if meta and meta["state"] != kafka_kraft.NOT_FORMATTED and meta["cluster_id"] != facts["cluster_id"]:
            refusals.append(refusal("migration-other-cluster-metadata", (
                f"the metadata dir of controller {host} holds cluster {meta['cluster_id']}, not this cluster "
                f"({facts['cluster_id']}): empty it if that cluster is gone.")))
    return refusals


def steps_to_run(plan, until="brokers_kraft", finalize=False):
    """The steps a run of migrate_to_kraft.yml takes, in order: from plan's next step (progress()) up to until,
    included; finalize only when asked for with finalize (-e finalize=true: it cannot be undone). [] when plan
    refuses or all is done."""
    if until not in STEPS[:-1]:
        raise ValueError(f"until must be one of {', '.join(STEPS[:-1])} (finalize needs finalize=true), not {until!r}")
    if plan["refusals"] or plan["next"] is None:
        return []
    last = STEPS.index("finalize") if finalize else STEPS.index(until)
    return list(STEPS[STEPS.index(plan["next"]):last + 1])


# The steps, of the migration and of its rollback, that configure and roll hosts (steps/configure_and_roll.yml) and
# which hosts: the brokers, with the Ansible controller (localhost) that rolls them, or the KRaft controllers (they
# roll themselves). The other steps read or write znodes and touch no host's configuration.
_STEP_HOSTS = {"controllers": "controllers", "brokers_migration": "brokers", "brokers_kraft": "brokers",
               "finalize": "controllers", "brokers_to_migrating": "brokers", "brokers_to_zookeeper": "brokers"}


def step_groups(steps, brokers, controllers):
    """{"migration_step_<step>": hosts} for each step of this run (steps) that configures hosts: the inventory group
    its plays run on (a step not in this run has no group, so its plays match no host)."""
    hosts = {"brokers": list(brokers) + ["localhost"], "controllers": list(controllers)}
    return {f"migration_step_{step}": hosts[_STEP_HOSTS[step]] for step in steps if step in _STEP_HOSTS}


def finalize_refusals(brokers, broker_ids, rows, max_lag):
    """Why the migration must not be finalized now, one refusal each; [] when it may. Finalize takes ZooKeeper
    away for good, so every broker must run KRaft mode (no ZooKeeper settings, no restart pending) and be
    registered with the controllers, fetching their metadata log within max_lag records (an observer of the
    quorum).
    brokers: progress()'s; broker_ids: {host: broker id}; rows: kafka_kraft.parse_quorum_replication's."""
    refusals = []
    zk = sorted(h for h, n in brokers.items() if n["mode"] != KRAFT or n["restart_pending"])
    if zk:
        refusals.append(refusal("finalize-brokers-in-kraft", f"brokers {', '.join(zk)} do not run KRaft mode yet."))
    observers = kafka_kraft.observers(rows)
    missing = sorted(f"{h} ({i})" for h, i in broker_ids.items() if i not in observers)
    if missing:
        refusals.append(refusal("finalize-brokers-in-kraft", (
            f"brokers {', '.join(missing)} are not registered with the KRaft controllers (no observer of the "
            "metadata quorum).")))
    behind = sorted(f"{h} ({observers[i]['lag']} records)" for h, i in broker_ids.items()
                    if i in observers and observers[i]["lag"] > max_lag)
    if behind:
        refusals.append(refusal("finalize-brokers-in-kraft",
                                f"brokers {', '.join(behind)} are behind the controllers' metadata log."))
    return refusals


# ZkMigrationState moves only forward, in this order (a later state is never reported before it is committed)
_STATE_ORDER = (None, 4, 0, 2, 1, 3)


def quorum_zk_state(states):
    """The most advanced ZkMigrationState the controllers report (None: none answered). A controller reports the
    state of its metadata image, which holds committed records only: one that lags reports an earlier state."""
    known = [s for s in states if s in _STATE_ORDER]
    return max(known, key=_STATE_ORDER.index, default=None)


def parse_zk_migration_state(text):
    """The value of kafka.controller:type=KafkaController,name=ZkMigrationState in the output of Kafka's JmxTool
    (org.apache.kafka.tools.JmxTool ... --attributes Value --reporting-interval -1): its last line is
    'time,value' under a header line naming the attribute; None when no value is there."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for header, values in zip(lines, lines[1:], strict=False):
        if "ZkMigrationState" in header:
            value = values.split(",")[-1].strip()
            return int(value) if value.lstrip("-").isdigit() else None
    return None
