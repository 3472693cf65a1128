"""The rolling version upgrade's decisions (playbooks/upgrade_kafka.yml, rollback_upgrade.yml), on what the cluster
shows: each node's configured release and whether it runs it, the brokers' inter.broker.protocol.version (ZooKeeper
mode), the finalized features and the registrations (KRaft). The upgrade record ({"from", "to"}, written before the
first host changes) only says where a rollback goes back to. Facts: docs/design/upgrade-research.md; design:
docs/design/upgrades.md.

The steps, in order; a step is done when every host of it runs the target as configured (a rerun resumes):
  zookeeper    (ZooKeeper mode) the ensemble onto the target's distribution: 3.9 wants ZooKeeper 3.8.3 or later
               before the brokers move
  controllers  (KRaft) the controllers onto the target, one at a time through the quorum gate, the leader last
  brokers      the brokers onto the target; ZooKeeper mode keeps inter.broker.protocol.version at the line it ran
  ibp          (ZooKeeper mode, -e finalize=true) a second roll raises inter.broker.protocol.version: no way back
  features     (KRaft, -e finalize=true) each feature the target finalizes, at its level, by explicit --feature
               values; metadata.version crossing a level that changes metadata has no way back
Until the irreversible step, rollback_plan takes the cluster back to the record's release.
"""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_versions
from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal


def release_key(version):
    """A release as a sortable tuple ('3.10.1' after '3.9.2')."""
    return tuple(int(part) for part in version.split("."))


def _pending(nodes, role, target):
    """The hosts of role that do not run target as configured, in inventory order."""
    return [h for h, n in nodes.items() if n["role"] == role and (n["release"] != target or not n["settled"])]


def effective_ibp(node):
    """The inter.broker.protocol.version a broker runs, short form ('3.6'): as configured (a full '3.6-IV2' too), else
    its release's."""
    if node["ibp"]:
        return node["ibp"].split("-")[0]
    return kafka_versions.facts(node["release"])["ibp"] if node["release"] else None


def _ibp_key(ibp):
    return tuple(int(part) for part in ibp.split(".")[:2]) if ibp else ()


def _metadata_irreversible(current, target):
    """Whether raising metadata.version from level current to level target crosses a level that changes metadata
    (Kafka refuses the downgrade past it, even --unsafe)."""
    return any(current < level <= target for level in kafka_versions.METADATA_CHANGES)


def upgrade_plan(cluster, target, record=None, finalize=False):
    """What upgrade_kafka.yml does next to take the cluster to release `target`.

    cluster: {"mode": "zookeeper" | "kraft",
              "nodes": {host: {"role": "zookeeper" | "controller" | "broker", "release": the release its config
                        runs (None: unknown), "settled": it runs its config (no restart pending), "running": bool,
                        "ibp": a broker's inter.broker.protocol.version as configured (None: its release's)}},
              "under_replicated": [partition names], "features": {feature: finalized level} (KRaft),
              "registrations": {node id: {"host": inventory host or None, "supported": {feature: highest}}} (KRaft)}
    record: the upgrade record ({"from", "to"}) or None.
    Returns {"refusals": [...], "record": the record to keep, "steps": [{"step", "hosts", "irreversible", ...}] not
    done yet, in order, "stop_before": the irreversible step left for -e finalize=true, or None}.
    """
    mode, nodes = cluster["mode"], cluster["nodes"]
    refusals = list(kafka_versions.version_refusals(target, mode, [], {}))
    if refusals:
        return {"refusals": refusals, "record": record, "steps": [], "stop_before": None}
    releases = sorted({n["release"] for n in nodes.values() if n["release"]}, key=release_key)
    down = [h for h, n in nodes.items() if not n["running"]]
    if down:
        refusals.append(refusal("upgrade-node-down", (
            f"{', '.join(down)} {'does' if len(down) == 1 else 'do'} not run: an upgrade rolls a cluster whose every "
            "node runs. Start it, or replace it (replace_broker.yml, replace_controller.yml), then rerun.")))
    source = record["from"] if record and record.get("to") == target else None
    strays = [r for r in releases if r not in (source, target)]
    if source and strays:
        refusals.append(refusal("upgrade-mixed-releases", (
            f"the upgrade from {source} to {target} is recorded and the cluster also runs {', '.join(strays)}: "
            "bring those nodes to one of the two (site.yml), then rerun.")))
    elif not source and len(releases) > 1 and record:
        refusals.append(refusal("upgrade-mixed-releases", (
            f"an upgrade from {record['from']} to {record['to']} is not finished (the cluster runs "
            f"{', '.join(releases)}) and kafka_version is {target}: finish it (-e kafka_version={record['to']}) or "
            "roll it back (playbooks/rollback_upgrade.yml) first.")))
    elif not source and len(strays) > 1:
        refusals.append(refusal("upgrade-mixed-releases", (
            f"the cluster runs {', '.join(releases)} and no upgrade to {target} is recorded: bring every node to "
            "one release first (site.yml with the release most of them run).")))
    source = source or (strays[0] if strays else target)
    if release_key(target) < release_key(source):
        refusals.append(refusal("upgrade-downgrade", (
            f"the cluster runs {source} and kafka_version is {target}, an older release: an upgrade only goes "
            "forward; playbooks/rollback_upgrade.yml goes back while the upgrade can still be undone.")))
    if cluster.get("under_replicated"):
        names = cluster["under_replicated"]
        refusals.append(refusal("upgrade-under-replicated", (
            f"{len(names)} partition(s) are under-replicated ({', '.join(names[:5])}{' ...' if len(names) > 5 else ''})"
            ": an upgrade starts from a healthy cluster. Find why (cluster_summary.yml), then rerun.")))
    if refusals:
        return {"refusals": refusals, "record": record, "steps": [], "stop_before": None}
    steps = (_zookeeper_steps if mode == "zookeeper" else _kraft_steps)(cluster, source, target)
    refusals = [r for step in steps for r in step.pop("refusals", [])]
    stop_before = next((s["step"] for s in steps if s["irreversible"]), None) if not finalize else None
    if stop_before:
        steps = steps[:[s["step"] for s in steps].index(stop_before)]
    return {"refusals": refusals, "record": {"from": source, "to": target}, "steps": steps, "stop_before": stop_before}


def _zookeeper_steps(cluster, source, target):
    nodes = cluster["nodes"]
    pinned = kafka_versions.facts(source)["ibp"]
    steps = []
    for step, role in (("zookeeper", "zookeeper"), ("brokers", "broker")):
        hosts = _pending(nodes, role, target)
        if hosts:
            steps.append({"step": step, "hosts": hosts, "irreversible": False, "ibp": pinned})
    raised = kafka_versions.facts(target)["ibp"]
    unraised = [h for h, n in nodes.items() if n["role"] == "broker" and effective_ibp(n) != raised]
    if unraised:
        steps.append({"step": "ibp", "hosts": [h for h, n in nodes.items() if n["role"] == "broker"],
                      "irreversible": True, "ibp": raised})
    return steps


def _kraft_steps(cluster, source, target):
    nodes = cluster["nodes"]
    steps = [{"step": step, "hosts": hosts, "irreversible": False}
             for step, role in (("controllers", "controller"), ("brokers", "broker"))
             for hosts in [_pending(nodes, role, target)] if hosts]
    finalized = cluster.get("features", {})
    levels = {f: level for f, level in kafka_versions.facts(target)["features"].items()
              if finalized.get(f, 0) < level}
    if levels:
        current = finalized.get("metadata.version", 0)
        step = {"step": "features", "hosts": [], "features": levels,
                "irreversible": _metadata_irreversible(current, levels.get("metadata.version", current))}
        if not steps:  # the gate reads the registrations once every node runs the target
            step["refusals"] = registration_refusals(cluster.get("registrations", {}), levels)
        steps.append(step)
    return steps


def registration_refusals(registrations, levels):
    """Why the features cannot be raised to levels yet: a registration that is no node of the inventory (a stopped
    controller's stale registration blocks the bump, KAFKA-20295), or a node that does not support a level."""
    refusals = []
    stale = sorted(node_id for node_id, r in registrations.items() if r["host"] is None)
    if stale:
        refusals.append(refusal("upgrade-stale-registration", (
            f"node id(s) {', '.join(map(str, stale))} are registered with the cluster but are no host of the "
            "inventory: Kafka refuses a feature level they do not support (KAFKA-20295). Find where they run, "
            "start them with the target release or unregister them, then rerun.")))
    short = sorted(f"{r['host']} supports {f} up to {r['supported'].get(f, 0)}"
                   for r in registrations.values() if r["host"]
                   for f, level in levels.items() if r["supported"].get(f, 0) < level)
    if short:
        refusals.append(refusal("upgrade-feature-unsupported", (
            f"{'; '.join(short)}, below the level to set: that node does not run the target release as it should "
            "(a restart pending?). Rerun without -e finalize=true to finish the roll, then finalize.")))
    return refusals


def rollback_plan(cluster, record):
    """What rollback_upgrade.yml does to take the cluster back to the record's release: the rolls in reverse
    (brokers, then controllers or the ensemble), refused once the irreversible step has been taken."""
    if not record:
        return {"refusals": [refusal("rollback-upgrade-nothing-recorded", (
            "no upgrade is recorded for this cluster: there is nothing to roll back (an upgrade records where it "
            "started before its first host changes)."))], "steps": []}
    source, target, nodes = record["from"], record["to"], cluster["nodes"]
    taken = _irreversible_taken(cluster, source)
    if taken:
        return {"refusals": [refusal("rollback-upgrade-irreversible", (
            f"the upgrade from {source} to {target} took its step that cannot be undone: {taken}. Kafka {source} "
            "cannot run this cluster any more; fix forward instead."))], "steps": []}
    order = (("brokers", "broker"), ("controllers", "controller"), ("zookeeper", "zookeeper"))
    steps = [{"step": step, "hosts": hosts, "irreversible": False, "ibp": kafka_versions.facts(source)["ibp"]}
             for step, role in order for hosts in [_pending(nodes, role, source)] if hosts]
    return {"refusals": [], "steps": steps}


def _irreversible_taken(cluster, source):
    """The irreversible step the cluster shows taken since release source, in words, or None."""
    facts = kafka_versions.facts(source)
    if cluster["mode"] == "zookeeper":
        raised = [h for h, n in cluster["nodes"].items() if n["role"] == "broker"
                  and _ibp_key(effective_ibp(n)) > _ibp_key(facts["ibp"])]
        return f"inter.broker.protocol.version raised on {', '.join(raised)}" if raised else None
    level = cluster.get("features", {}).get("metadata.version", 0)
    if _metadata_irreversible(facts["metadata_version"][0], level):
        return f"metadata.version is at level {level}, past a change of metadata since {facts['metadata_version'][1]}"
    return None
