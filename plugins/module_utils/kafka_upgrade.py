"""The rolling version upgrade's decisions (playbooks/upgrade_kafka.yml, rollback_upgrade.yml), on what the cluster
shows: the release each node runs and whether a restart waits for it, the brokers' inter.broker.protocol.version
(ZooKeeper mode), the finalized features and whether Kafka's controller accepts the target's levels (KRaft). The
upgrade record ({"from", "to"}, written before the first host changes) only says where a rollback goes back to.
Facts: docs/design/upgrade-research.md; design: docs/design/upgrades.md.

The steps, in order; a step is done when every host of it runs the target as configured (a rerun resumes):
  zookeeper    (ZooKeeper mode) the ensemble onto the target's distribution: 3.9 wants ZooKeeper 3.8.3 or later
               before the brokers move
  controllers  (KRaft) the controllers onto the target, one at a time through the quorum gate, the leader last
  brokers      the brokers onto the target; ZooKeeper mode keeps inter.broker.protocol.version at the line it ran
  ibp          (ZooKeeper mode, -e finalize=true) a second roll raises inter.broker.protocol.version: no way back
  features     (KRaft, -e finalize=true) each feature the target finalizes, at its level, by explicit --feature
               values; metadata.version crossing a level that changes metadata has no way back
The rolls come first; a finalize step runs in a run of its own, once every node runs the target (steps_this_run).
Until the irreversible step, rollback_plan takes the cluster back to the record's release.
"""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_versions
from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal

ROLLS = ("zookeeper", "controllers", "brokers")  # the steps that roll hosts onto a release; the others finalize
ROLES = {"zookeeper": "zookeeper", "kafka_controller": "controller", "kafka_broker": "broker"}  # group kind -> role


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
              "nodes": {host: {"role": "zookeeper" | "controller" | "broker", "release": the release its process
                        runs (None: unknown), "settled": it runs its config (no restart pending), "running": bool,
                        "ibp": a broker's inter.broker.protocol.version as configured (None: its release's)}},
              "under_replicated": [partition names], "features": {feature: finalized level} (KRaft),
              "feature_check": what Kafka's controller answered a dry run of the features step (kafka-features
              upgrade --dry-run), when it refused; None when it accepted or was not asked (feature_check_levels)}
    record: the upgrade record ({"from", "to"}) or None.
    Returns {"refusals": [...], "record": the record to keep, "steps": [{"step", "hosts", "irreversible", ...}] not
    done yet, in order, "stop_before": the finalize step left for -e finalize=true, or None}.
    """
    mode, nodes = cluster["mode"], cluster["nodes"]
    refusals = list(kafka_versions.version_refusals(target, mode, [], {}))
    if refusals:
        return {"refusals": refusals, "record": record, "steps": [], "stop_before": None}
    releases = sorted({n["release"] for n in nodes.values() if n["release"]}, key=release_key)
    # a node an interrupted roll stopped waits for its restart (not settled): the rerun's configure step starts it
    down = [h for h, n in nodes.items() if not n["running"] and n["settled"]]
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
    stop_before = next((s["step"] for s in steps if s["step"] not in ROLLS), None) if not finalize else None
    if stop_before:
        steps = steps[:[s["step"] for s in steps].index(stop_before)]
    return {"refusals": refusals, "record": {"from": source, "to": target}, "steps": steps, "stop_before": stop_before}


def _running_ibp(nodes, source):
    """The protocol the brokers run, which the rolls keep: the lowest any broker runs (one pinned below its release's
    stays pinned there), else the source release's."""
    running = [effective_ibp(n) for n in nodes.values() if n["role"] == "broker" and n["running"]]
    return min((i for i in running if i), key=_ibp_key, default=kafka_versions.facts(source)["ibp"])


def _zookeeper_steps(cluster, source, target):
    nodes = cluster["nodes"]
    pinned = _running_ibp(nodes, source)
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
        if not steps and cluster.get("feature_check"):  # asked once every node runs the target
            step["refusals"] = [refusal("upgrade-feature-unsupported", (
                f"Kafka's controller refused the levels {levels} in a dry run: {cluster['feature_check']} A node that "
                "does not run the target as it should (a restart pending?), or the registration of a controller that "
                "no longer runs (KAFKA-20295: kafka-cluster list-endpoints --bootstrap-controller lists them), "
                "supports less. Nothing was raised."))]
        steps.append(step)
    return steps


def feature_check_levels(plan):
    """The levels of the features step when it is the next step (every node runs the target): the levels Kafka's
    controller must accept in a dry run before the step is planned without a refusal; None otherwise."""
    first = plan["steps"][0] if plan["steps"] else {}
    return first.get("features") if first.get("step") == "features" and not plan["refusals"] else None


def steps_this_run(plan):
    """The steps a run takes: the rolls; once every node runs the target, the finalize step alone (its gate reads
    the cluster as the rolls left it, so it waits for a run of its own)."""
    rolls = [s for s in plan["steps"] if s["step"] in ROLLS]
    return rolls or plan["steps"][:1]


def step_groups(steps):
    """The inventory group of the step a run takes that configures and rolls hosts: upgrade_step_roll (the hosts of
    the rolls) or upgrade_step_ibp (the brokers), each with localhost, where the gates of the brokers' roll run. The
    features step rolls nothing: no group."""
    rolls = [h for s in steps if s["step"] in ROLLS for h in s["hosts"]]
    ibp = [h for s in steps if s["step"] == "ibp" for h in s["hosts"]]
    return {name: hosts + ["localhost"] for name, hosts in (("upgrade_step_roll", rolls), ("upgrade_step_ibp", ibp))
            if hosts}


def commit_lines(release, this_run, mode, quorum=None):
    """What the inventory must say once this run (of an upgrade or its rollback to release) is done, for the next
    deploy to keep the cluster as the run left it: the release; in ZooKeeper mode a protocol pinned below the
    release's own (until the finalize run), none after the ibp step; on KRaft the kind of a quorum the release would
    not deploy (a static one: 4.x deploys dynamic ones)."""
    if not this_run:
        return []
    lines = [f"kafka_version: {release}"]
    pinned = [s["ibp"] for s in this_run if s["step"] in ROLLS and s.get("ibp")]
    if mode == "zookeeper" and pinned and pinned[0] != kafka_versions.facts(release)["ibp"]:
        lines.append(f'kafka_inter_broker_protocol_version: "{pinned[0]}" (the protocol the brokers keep until the '
                     "finalize run; a deploy without it would raise it, which cannot be undone)")
    elif mode == "zookeeper":
        lines.append(f"kafka_inter_broker_protocol_version: none (the brokers run {release}'s own protocol)")
    if mode == "kraft" and quorum and quorum != kafka_versions.new_quorum(release):
        lines.append(f"kafka_controller_quorum: {quorum} (the quorum keeps its kind; convert_quorum_to_dynamic.yml "
                     "makes a static one dynamic)")
    return lines


def node_from_processes(processes, group, restart_pending):
    """An upgrade's view of one inventory host of group (zookeeper, kafka_controller, kafka_broker), from what runs
    on it (kafka_adoption_facts' processes) and whether a gated restart waits for it: {"role", "release" (the Kafka
    release its process runs, None when none runs), "running", "settled", "ibp"}."""
    kind = "zookeeper" if group == "zookeeper" else "broker"
    mine = [p for p in processes if p["kind"] == kind]
    process = mine[0] if len(mine) == 1 else None
    properties = (process or {}).get("config_properties") or {}
    return {"role": ROLES[group], "release": process["release"] if process else None, "running": bool(process),
            "settled": not restart_pending, "ibp": properties.get("inter.broker.protocol.version")}


def upgrade_lines(plan, this_run):
    """The plan in words: each step left, the irreversible one marked, and what this run takes."""
    record = plan["record"] or {}
    lines = [f"upgrade from {record.get('from')} to {record.get('to')}"] if record else []
    for step in plan["steps"]:
        what = ", ".join(step["hosts"]) or ", ".join(f"{k}={v}" for k, v in step.get("features", {}).items())
        pinned = f" (inter.broker.protocol.version {step['ibp']})" if step.get("ibp") else ""
        lines.append(f"{step['step']}: {what}{pinned}"
                     + (": CANNOT BE UNDONE" if step["irreversible"] else "")
                     + ("" if step in this_run else " (a later run)"))
    if plan["stop_before"]:
        lines.append(f"then {plan['stop_before']}: only with -e finalize=true, once every node runs the target")
    return lines or ["nothing to do: every node runs the target"]


def rollback_plan(cluster, record):
    """What rollback_upgrade.yml does to take the cluster back to the record's release: the rolls in reverse
    (brokers, then controllers or the ensemble), refused once the irreversible step has been taken."""
    result = {"refusals": [], "steps": [], "record": record, "stop_before": None}
    if not record:
        return dict(result, refusals=[refusal("rollback-upgrade-nothing-recorded", (
            "no upgrade is recorded for this cluster: there is nothing to roll back (an upgrade records where it "
            "started before its first host changes)."))])
    source, target, nodes = record["from"], record["to"], cluster["nodes"]
    taken = _irreversible_taken(cluster, source)
    if taken:
        return dict(result, refusals=[refusal("rollback-upgrade-irreversible", (
            f"the upgrade from {source} to {target} took its step that cannot be undone: {taken}. Kafka {source} "
            "cannot run this cluster any more; fix forward instead."))])
    order = (("brokers", "broker"), ("controllers", "controller"), ("zookeeper", "zookeeper"))
    ibp = _running_ibp(nodes, source) if cluster["mode"] == "zookeeper" else None
    steps = [{"step": step, "hosts": hosts, "irreversible": False, "ibp": ibp}
             for step, role in order for hosts in [_pending(nodes, role, source)] if hosts]
    return dict(result, steps=steps)


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


def protocol_raise_refusal(host, node, kafka_version, configured_ibp, finalizing=False):
    """Why a deploy must not configure the broker on host (ZooKeeper mode): it would raise the
    inter.broker.protocol.version the broker runs (node: node_from_processes), after which no release older than the
    new protocol can run the cluster - the one step of a ZooKeeper-mode upgrade that cannot be undone, taken only by
    upgrade_kafka.yml's finalize run (finalizing); or lower it, which Kafka does not support once brokers spoke the
    higher one. configured_ibp: the kafka_inter_broker_protocol_version the deploy writes ('' for kafka_version's
    own). None when the broker does not run or keeps its protocol."""
    def known(version):
        return bool(version) and kafka_versions.line(version) in kafka_versions.LINES
    if finalizing or not node["running"] or not known(node["release"]) or not known(kafka_version):
        return None
    running = effective_ibp(node)
    would = (configured_ibp or kafka_versions.facts(kafka_version)["ibp"]).split("-")[0]
    if _ibp_key(would) == _ibp_key(running):
        return None
    if _ibp_key(would) < _ibp_key(running):
        return refusal("upgrade-protocol-lowered", (
            f"the broker on {host} runs inter.broker.protocol.version {running}, and this run would lower it to "
            f"{would} (kafka_version {kafka_version}"
            f"{', kafka_inter_broker_protocol_version ' + configured_ibp if configured_ibp else ''}): Kafka does not "
            "go back to an older protocol once the brokers spoke a newer one. Keep it: set "
            f'kafka_inter_broker_protocol_version: "{running}" in the inventory, or a kafka_version whose own it is; '
            "playbooks/rollback_upgrade.yml goes back while an upgrade can still be undone."))
    return refusal("upgrade-protocol-raised", (
        f"the broker on {host} runs Kafka {node['release']} with inter.broker.protocol.version {running}, and this run "
        f"would raise it to {would} (kafka_version {kafka_version}"
        f"{', kafka_inter_broker_protocol_version ' + configured_ibp if configured_ibp else ''}): once raised, no "
        f"release older than {would} can run the cluster again. Move releases with playbooks/upgrade_kafka.yml "
        f"(it keeps {running} until its -e finalize=true run); to deploy without raising it, set "
        f'kafka_inter_broker_protocol_version: "{running}" in the inventory.'))
