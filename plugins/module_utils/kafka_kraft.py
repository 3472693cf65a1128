"""KRaft identity decisions: the quorum's voters, node ids that must not clash, and which controllers a deploy
may format with which cluster id.

A controller's metadata dir is one of: not formatted (no meta.properties), formatted but never started (a
meta.properties, no metadata log yet) or started (its __cluster_metadata-0 log exists). A voter that started
holds the quorum's votes and committed records: a deploy never formats a voter next to started ones, because a
majority that came up empty could elect a leader without committed data (Kafka 3.9 docs, "Replace KRaft
Controller Disk"; docs/design/kraft-migration-research.md section 3).
"""

import base64
import uuid

from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal

NOT_FORMATTED = "not_formatted"
FORMATTED = "formatted"        # meta.properties written, the controller never ran on it
STARTED = "started"            # the metadata log exists: the voter holds the quorum's state


def quorum_voters(endpoints, node_ids):
    """controller.quorum.voters: 'id@host:port,...' in inventory order. endpoints and node_ids are
    {inventory host: 'host:port'} and {inventory host: node id} of the same controllers."""
    missing = [host for host in endpoints if not str(node_ids.get(host, "")).isdigit()]
    if missing:
        raise ValueError(f"controllers without a non-negative kafka_controller_node_id: {', '.join(missing)}")
    return ",".join(f"{int(node_ids[host])}@{endpoint}" for host, endpoint in endpoints.items())


def configured_quorum(props):
    """How a KRaft node's config (its properties) finds the quorum's voters: 'static' (controller.quorum.voters),
    'dynamic' (controller.quorum.bootstrap.servers alone, KIP-853), or None (neither: no KRaft config)."""
    if props.get("controller.quorum.voters", "").strip():
        return "static"
    return "dynamic" if props.get("controller.quorum.bootstrap.servers", "").strip() else None


# Directory ids a dynamic quorum's first voters are formatted with: derived from the cluster and node id, so a
# rerun after a format that stopped half way gives the controllers not yet formatted the ids the others hold.
_DIRECTORY_IDS = uuid.UUID("6a3c1d9e-6f0b-4c55-9a1e-2f7d4b8c0e51")


def directory_id(cluster_id, node_id):
    """The metadata dir id (a Kafka Uuid: 22 characters of URL-safe base64) of controller node_id in a new dynamic
    quorum of cluster_id. Never one that starts with '-', which Kafka's Uuid.randomUuid skips too: a command line
    would read it as an option (remove-controller --controller-directory-id -HpH... fails on the 4.4 tools)."""
    attempt = 0
    while True:
        raw = uuid.uuid5(_DIRECTORY_IDS, f"{cluster_id}/{int(node_id)}" + (f"/{attempt}" if attempt else "")).bytes
        encoded = base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")
        if not encoded.startswith("-"):
            return encoded
        attempt += 1


def initial_controllers(cluster_id, endpoints, node_ids):
    """kafka-storage format --initial-controllers of a new dynamic quorum: 'id@host:port:directory id,...' in
    inventory order (endpoints, node_ids as for quorum_voters)."""
    voters = quorum_voters(endpoints, node_ids).split(",")
    return ",".join(f"{voter}:{directory_id(cluster_id, voter.split('@')[0])}" for voter in voters)


def _hosts_by_id(ids):
    """{id: [hosts]} of the hosts whose id ({host: id or None}) is a non-negative integer."""
    by_id = {}
    for host, node_id in ids.items():
        if str(node_id).isdigit():
            by_id.setdefault(int(node_id), []).append(host)
    return by_id


def node_id_refusals(controller_ids, broker_ids):
    """Why the controllers' node ids cannot be used, one refusal each; [] when they can. Brokers and
    controllers share KRaft's id space, so a controller id must differ from every broker id and from the other
    controllers'. Both arguments are {inventory host: id or None (not set)}."""
    fix = ("give every controller its own kafka_controller_node_id, one no broker uses, now or as a spare's "
           "(e.g. 9001, 9002, 9003).")
    problems = [refusal("kraft-node-ids", f"controller {host} has no non-negative kafka_controller_node_id "
                                          f"(got {node_id!r}): {fix}")
                for host, node_id in controller_ids.items() if not str(node_id).isdigit()]
    controllers, brokers = _hosts_by_id(controller_ids), _hosts_by_id(broker_ids)
    problems += [refusal("kraft-node-ids", f"controllers {', '.join(hosts)} share node id {node_id}: {fix}")
                 for node_id, hosts in sorted(controllers.items()) if len(hosts) > 1]
    problems += [refusal("kraft-node-ids", f"controller {', '.join(hosts)} has node id {node_id}, the id of broker "
                                           f"{', '.join(brokers[node_id])}: brokers and controllers share one id "
                                           f"space; {fix}")
                 for node_id, hosts in sorted(controllers.items()) if node_id in brokers]
    return problems


# The changes of mode a migration's or a rollback's step makes (playbooks/migrate_to_kraft.yml and
# rollback_kraft_migration.yml, which decide them with module_utils/kafka_migration.py): a broker between ZooKeeper
# mode, ZooKeeper mode with the migration flag ("migrating") and KRaft mode, both ways; a controller into migration
# mode, and out of it to KRaft alone (finalize).
MIGRATION_STEPS = {("zookeeper", "migrating"), ("migrating", "kraft"), ("kraft", "migrating"),
                   ("migrating", "zookeeper"), (None, "migration"), ("migration", "kraft")}


def mode_change_refusal(configured, wanted, migration_step=False):
    """Why a deploy must not reconfigure a host whose config runs configured (kafka_migration.configured_mode) to
    run wanted (one refusal); None when it may. Between modes a cluster moves only through the migration's steps
    (migration_step: the run is one of them), never by a changed variable, and a deploy must not undo a step of
    a migration under way."""
    if configured == wanted or (configured is None and wanted in ("zookeeper", "kraft")):
        return None
    if migration_step and (configured, wanted) in MIGRATION_STEPS:
        return None
    if migration_step:
        message = f"the migration's steps never take it from {configured or 'nothing'} to {wanted}."
    elif configured in ("migrating", "migration"):
        message = ("it runs with the settings of a migration to KRaft: go on with playbooks/migrate_to_kraft.yml, or "
                   "roll back with playbooks/rollback_kraft_migration.yml (a deploy would undo the migration's step).")
    elif configured == "zookeeper":
        message = ("it runs in ZooKeeper mode and kafka_metadata_mode is kraft: a ZooKeeper cluster moves to KRaft "
                   "only through playbooks/migrate_to_kraft.yml.")
    else:
        message = ("it runs in KRaft mode (process.roles) and kafka_metadata_mode is zookeeper: set "
                   "kafka_metadata_mode: kraft for this cluster (it cannot go back to ZooKeeper but through "
                   "rollback_kraft_migration.yml, before the migration is finalized).")
    return refusal("mode-change-by-migration-only", message)


def metadata_state(has_meta, has_log):
    """The state of a controller's metadata dir from whether it holds meta.properties and a metadata log."""
    if has_log:
        return STARTED
    return FORMATTED if has_meta else NOT_FORMATTED


def format_plan(controllers, configured_cluster_id="", quorum=None, joining=None, converted=False):
    """Which controllers to format, with which cluster id.

    controllers: {inventory host: {"state": metadata_state(...), "cluster_id": id in meta.properties or None,
    "quorum": configured_quorum(...) of its config}, or None for a controller whose dir was not read (unreachable,
    or not in a --limit run)}.
    configured_cluster_id: the inventory's kafka_cluster_id ("" when not set).
    quorum: the quorum the inventory asks for (kafka_controller_quorum: static or dynamic); a quorum that ran keeps
    the one its voters run (a static one becomes dynamic only through Kafka's irreversible kraft.version upgrade).
    joining: the host that takes a lost voter's place in a running dynamic quorum (replace_controller.yml, whose plan
    checked the quorum): only its dir matters, formatted to join (no initial voters) with the quorum's id.
    converted: the quorum's kraft.version is 1 (convert_quorum_to_dynamic.yml read it): its static configs may become
    dynamic ones.
    Returns {"cluster_id": the quorum's id (None: a new quorum, make one), "format": [hosts to format],
    "refusals": [refusal(...)]}; nothing is formatted when there is a refusal.
    """
    if joining:
        return _join_format_plan(joining, controllers.get(joining), configured_cluster_id, quorum)
    unread = sorted(host for host, c in controllers.items() if c is None)
    controllers = {host: c for host, c in controllers.items() if c is not None}
    # whether a voter may be formatted depends on all the others: unread ones matter only then
    needs_format = any(c["state"] == NOT_FORMATTED for c in controllers.values())
    refusals = [refusal("kraft-unread-metadata-dir",
                        f"the metadata dir of {host} was not read (is it reachable, or left out by --limit?).")
                for host in unread if needs_format]
    found = {host: c["cluster_id"] for host, c in controllers.items() if c["state"] != NOT_FORMATTED}
    ids = sorted(set(found.values()))
    if len(ids) > 1:
        refusals.append(refusal("kraft-other-cluster-metadata", "the controllers' metadata dirs hold different "
                                "clusters: " + ", ".join(f"{host} {cid}" for host, cid in sorted(found.items())) + "."))
    elif ids and configured_cluster_id and ids[0] != configured_cluster_id:
        refusals.append(refusal("kraft-other-cluster-metadata", (
            f"the controllers' metadata dirs hold cluster {ids[0]} ({', '.join(sorted(found))}), but "
            f"kafka_cluster_id is {configured_cluster_id}.")))
    started = sorted(host for host, c in controllers.items() if c["state"] == STARTED)
    empty = sorted(host for host, c in controllers.items() if c["state"] == NOT_FORMATTED)
    if started and empty:
        refusals.append(refusal("kraft-lost-voter", (
            f"{', '.join(empty)} {'has' if len(empty) == 1 else 'have'} an empty metadata dir while "
            f"{', '.join(started)} already ran the quorum: a deploy does not format a voter that lost its disk "
            "(docs/runbooks/replace-controller.md says how).")))
    other = sorted(host for host in started if controllers[host].get("quorum") not in (None, quorum))
    if quorum and other and not (converted and quorum == "dynamic"):  # the conversion's roll: dynamic already
        running = controllers[other[0]]["quorum"]
        why = ("a static quorum becomes dynamic only through Kafka's kraft.version upgrade, which cannot be undone: "
               "convert_quorum_to_dynamic.yml" if running == "static"
               else "a dynamic quorum cannot become static again")
        refusals.append(refusal("kraft-quorum-change", (
            f"the quorum that ran on {', '.join(other)} is {running} and kafka_controller_quorum is {quorum}: set "
            f"kafka_controller_quorum: {running} for this cluster ({why}).")))
    if refusals:
        return {"cluster_id": None, "format": [], "refusals": refusals}
    return {"cluster_id": ids[0] if ids else (configured_cluster_id or None), "format": empty, "refusals": []}


def _join_format_plan(host, metadata, cluster_id, quorum):
    refusals = []
    if quorum != "dynamic" or not cluster_id:
        refusals.append(refusal("kraft-replace-static", (
            f"{host} can join only a running dynamic quorum with a known cluster id (kafka_controller_quorum is "
            f"{quorum}, kafka_cluster_id '{cluster_id}'): replace_controller.yml sets both.")))
    elif metadata and metadata["state"] != NOT_FORMATTED and metadata["cluster_id"] != cluster_id:
        refusals.append(refusal("kraft-replace-other-cluster", (
            f"the metadata dir of {host} holds cluster {metadata['cluster_id']}, not the quorum's {cluster_id}.")))
    if refusals:
        return {"cluster_id": None, "format": [], "refusals": refusals}
    empty = metadata is None or metadata["state"] == NOT_FORMATTED
    return {"cluster_id": cluster_id, "format": [host] if empty else [], "refusals": []}


VOTER = ("Leader", "Follower")


def parse_quorum_replication(text):
    """The rows of `kafka-metadata-quorum describe --replication` (header NodeId ... Status; 3.9 adds
    DirectoryId): node_id, directory_id (None before 3.9; all A's for a static quorum's voters), log_end_offset, lag,
    last_fetch_ms, last_caught_up_ms, status."""
    lines = [line.split() for line in text.splitlines() if line.strip()]
    header = next((i for i, cols in enumerate(lines) if cols[:1] == ["NodeId"]), None)
    if header is None:
        raise ValueError(f"no NodeId header in the quorum's replication output: {text.strip()[:200]!r}")
    names = lines[header]
    rows = []
    for cols in lines[header + 1:]:
        row = dict(zip(names, cols, strict=False))
        rows.append({"node_id": int(row["NodeId"]), "directory_id": row.get("DirectoryId"),
                     "log_end_offset": int(row["LogEndOffset"]), "lag": int(row["Lag"]),
                     "last_fetch_ms": int(row["LastFetchTimestamp"]),
                     "last_caught_up_ms": int(row["LastCaughtUpTimestamp"]), "status": row["Status"]})
    return rows


def parse_quorum_status(text):
    """`kafka-metadata-quorum describe --status`: {"cluster_id", "leader_id", "leader_epoch", "high_watermark"}."""
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("ClusterId", "LeaderId", "LeaderEpoch", "HighWatermark"):
            fields[key.strip()] = value.strip()
    if "LeaderId" not in fields or "HighWatermark" not in fields:
        raise ValueError(f"no LeaderId / HighWatermark in the quorum's status output: {text.strip()[:200]!r}")
    return {"cluster_id": fields.get("ClusterId"), "leader_id": int(fields["LeaderId"]),
            "leader_epoch": int(fields.get("LeaderEpoch", -1)), "high_watermark": int(fields["HighWatermark"])}


def observers(rows):
    """{node id: its row} of the observers (the brokers). A broker whose log dir was replaced is listed twice for
    minutes (seen on 3.9.2): its old directory, which stopped fetching, and its new one; the broker is the entry that
    fetched last."""
    current = {}
    for row in (r for r in rows if r["status"] == "Observer"):
        seen = current.get(row["node_id"])
        if seen is None or row.get("last_fetch_ms", -1) > seen.get("last_fetch_ms", -1):
            current[row["node_id"]] = row
    return current


def observers_behind(rows, offset):
    """{node id: log end offset} of the observers (the brokers) that have not fetched the metadata log up to
    offset: a change committed at or below offset has not reached them yet."""
    return {node: row["log_end_offset"] for node, row in observers(rows).items() if row["log_end_offset"] < offset}


def _caught_up(row, max_lag):
    return row["status"] == "Leader" or (row["lag"] <= max_lag and row["last_caught_up_ms"] >= 0)


def controller_stop_refusals(rows, node_id, max_lag):
    """Why controller node_id must not stop now, one refusal each; [] when it may. It may stop only if the
    quorum has a leader and the other voters, caught up to within max_lag records, are still a majority of all
    voters: the quorum then keeps committing, and no committed record lives on node_id alone."""
    voters = [r for r in rows if r["status"] in VOTER]
    ids = sorted(r["node_id"] for r in voters)
    if not any(r["status"] == "Leader" for r in voters):
        return [refusal("kraft-controller-gate", f"the quorum has no leader (voters {ids}).")]
    if node_id not in ids:
        return [refusal("kraft-controller-gate", f"node {node_id} is not a voter of the quorum (voters {ids}).")]
    others = [r for r in voters if r["node_id"] != node_id]
    caught = sorted(r["node_id"] for r in others if _caught_up(r, max_lag))
    majority = len(voters) // 2 + 1
    if len(caught) < majority:
        behind = {r["node_id"]: r["lag"] for r in others if r["node_id"] not in caught}
        return [refusal("kraft-controller-gate", (
            f"without node {node_id}, {len(caught)} voter(s) {caught} are caught up, fewer than the majority of "
            f"{majority} of the {len(voters)} voters (lagging: {behind})."))]
    return []


def controller_rejoined(rows, node_id, max_lag):
    """None once controller node_id is a voter again, caught up to within max_lag records of the leader;
    else what it is still waiting for."""
    row = next((r for r in rows if r["node_id"] == node_id), None)
    if row is None or row["status"] not in VOTER:
        return f"node {node_id} is not back in the quorum ({row['status'] if row else 'not listed'})"
    if not _caught_up(row, max_lag):
        return f"node {node_id} is {row['lag']} record(s) behind the leader"
    return None


def quorum_leader(rows):
    """The node id of the quorum's leader, or None."""
    return next((r["node_id"] for r in rows if r["status"] == "Leader"), None)


def controller_restart_order(rows, candidates):
    """candidates (node ids) in the order to restart them one at a time: the quorum's leader last, so that
    leadership moves once, when nothing else is left to restart."""
    leader = quorum_leader(rows)
    return sorted(candidates, key=lambda node_id: (node_id == leader, node_id))


# The directory id a static quorum's voters show: Kafka's zero Uuid (they are known by their node id alone)
STATIC_DIRECTORY_ID = "AAAAAAAAAAAAAAAAAAAAAA"


def static_voters(rows):
    """The node ids of the voters known by their node id alone (no directory id, or the zero one: a static quorum's,
    and a converted quorum's until the leader has recorded them)."""
    return sorted(r["node_id"] for r in rows
                  if r["status"] in VOTER and r["directory_id"] in (None, STATIC_DIRECTORY_ID))


def replace_controller_plan(rows, failed_id, replacement, cluster_id, max_lag, failed_running=False, fence=False):
    """What replace_controller.yml still has to do to swap the lost voter failed_id for a controller on a new disk
    (its host's, or another host's) with the same node id, in a dynamic quorum (KIP-853), and why it must not.

    rows: parse_quorum_replication of the quorum, as its leader reports it; replacement: the new disk's metadata
    dir {"state": metadata_state, "cluster_id", "directory_id"} (None where meta.properties has none), "identity":
    kafka_identity.refusals of it (another node's, malformed, unreadable), "refusals": other rules' about it
    (kafka_versions.newer_format_refusals), and {"running": whether its controller runs}; cluster_id: the quorum's;
    failed_running: the failed voter's host, when it is not the replacement, answers and still runs its controller;
    fence: stop and disable that one first.
    Steps, in order, only those not done yet (a rerun resumes): fence, remove (the lost voter, by its node id and
    directory id, from the voters), format (the new disk, with the cluster id and no initial voters: a new
    directory id), start (it fetches as an observer), add (the new disk made a voter), wait (until it is caught
    up). Returns {"steps", "remove": {"node_id", "directory_id"} or None, "voters": [node ids], "refusals"}."""
    voters = [r for r in rows if r["status"] in VOTER]
    ids = sorted(r["node_id"] for r in voters)
    refusals = []
    if static_voters(voters):
        refusals.append(refusal("kraft-replace-static", (
            f"the quorum's voters {ids} are static (controller.quorum.voters, kraft.version 0): a voter is known by "
            "its node id alone and cannot be removed or added; follow docs/runbooks/replace-controller.md for a "
            "static quorum.")))
    if not any(r["status"] == "Leader" for r in voters):
        refusals.append(refusal("kraft-replace-majority", f"the quorum has no leader (voters {ids})."))
    if replacement["cluster_id"] and replacement["cluster_id"] != cluster_id:
        refusals.append(refusal("kraft-replace-other-cluster", (
            f"the replacement's metadata dir holds cluster {replacement['cluster_id']}, not this quorum's "
            f"{cluster_id}: it is another cluster's controller disk; empty it by hand if it is not needed.")))
    refusals += [refusal("kraft-replace-other-cluster", f"the replacement's metadata dir: {problem}.")
                 for problem in replacement.get("identity", [])] + replacement.get("refusals", [])
    new_dir = replacement["directory_id"]
    lost = [r for r in voters if r["node_id"] == failed_id and r["directory_id"] != new_dir]
    joined = any(r["node_id"] == failed_id and r["directory_id"] == new_dir for r in voters)
    if lost:
        remaining = [r for r in voters if r not in lost]
        caught = sorted(r["node_id"] for r in remaining if _caught_up(r, max_lag))
        needed = len(remaining) // 2 + 1
        if len(caught) < needed:
            behind = {r["node_id"]: r["lag"] for r in remaining if r["node_id"] not in caught}
            refusals.append(refusal("kraft-replace-majority", (
                f"without node {failed_id}, {len(caught)} voter(s) {caught} are caught up, fewer than the majority "
                f"of {needed} of the {len(remaining)} voters left (lagging: {behind}): bring them back first.")))
    if failed_running and not fence:
        refusals.append(refusal("kraft-replace-failed-running", (
            f"the failed host of node {failed_id} still runs its controller: with the replacement, two controllers "
            "would run as that node. Stop and disable it there (systemctl disable --now kafka-controller), or rerun "
            "with -e fence_failed_host=true to have it done.")))
    if refusals:
        return {"steps": [], "remove": None, "voters": ids, "refusals": refusals}
    empty = replacement["state"] == NOT_FORMATTED
    # a controller that runs on an empty dir (its disk swapped under it) is stopped by the format step
    steps = (["fence"] if failed_running else []) + (["remove"] if lost else []) + (["format"] if empty else []) + (
        [] if replacement["running"] and not empty else ["start"]) + ([] if joined else ["add"]) + ["wait"]
    remove = {"node_id": failed_id, "directory_id": lost[0]["directory_id"]} if lost else None
    return {"steps": steps, "remove": remove, "voters": ids, "refusals": []}


def replace_controller_lines(plan, node_id, failed_host, replacement_host):
    """The plan of replace_controller_plan in words, one line a step, for the playbook to show."""
    remove = plan["remove"] or {}
    text = {
        "fence": f"fence: stop and disable kafka-controller on {failed_host}",
        "remove": (f"remove: voter {node_id} (directory {remove.get('directory_id')}) leaves the quorum "
                   f"(kafka-metadata-quorum remove-controller, from a surviving controller)"),
        "format": f"format: the metadata dir of {replacement_host} with the quorum's cluster id, joining (a new "
                  "directory id, no initial voters; a controller running there on the empty dir is stopped first)",
        "start": f"start: kafka-controller on {replacement_host} (it fetches the metadata log as an observer)",
        "add": f"add: {replacement_host} becomes voter {node_id} (kafka-metadata-quorum add-controller, run there)",
        "wait": f"wait: until voter {node_id} on {replacement_host} is caught up with the leader",
    }
    return [f"voters now: {plan['voters']}"] + [text[step] for step in plan["steps"]]


def quorum_kraft_version(rows):
    """The quorum's kraft.version as its leader reports it: 1 (dynamic) when it knows every voter by its directory id,
    which the kraft.version upgrade records; 0 (static) while a voter has none. Not the brokers' kafka-features
    describe: a broker configured with controller.quorum.voters still reports 0 after the upgrade, until it restarts
    with controller.quorum.bootstrap.servers (seen on 4.4.0)."""
    return 0 if static_voters(rows) else 1


def convert_quorum_plan(rows, converts, confirmed, static_hosts, max_lag, check_mode=False):
    """What convert_quorum_to_dynamic.yml still has to do to make a static quorum dynamic, and why it must not.

    rows: parse_quorum_replication of the quorum (its kraft.version: quorum_kraft_version); converts: whether the
    release the cluster runs can upgrade it (kafka_versions' converts_quorum); confirmed: -e confirm_irreversible=true;
    static_hosts: the controllers and brokers whose config still lists controller.quorum.voters. Steps, only those not
    done yet (a rerun resumes): feature (kafka-features upgrade --feature kraft.version=1, which Kafka cannot undo:
    every voter must be caught up, the leader records their directory ids), roll (the controllers, then the brokers,
    to controller.quorum.bootstrap.servers). Without the confirmation the steps are still planned (the plan shows what
    cannot be undone) and refused, except in check mode, which only shows them.
    Returns {"steps", "voters": [node ids], "kraft_version", "refusals"}."""
    voters = [r for r in rows if r["status"] in VOTER]
    ids = sorted(r["node_id"] for r in voters)
    kraft_version = quorum_kraft_version(rows)
    refusals = []
    feature = kraft_version < 1
    if feature and not converts:
        refusals.append(refusal("convert-release", (
            "the release the cluster runs cannot make a static quorum dynamic (Kafka 4.1 and later can): upgrade the "
            "cluster first.")))
    behind = {r["node_id"]: r["lag"] for r in voters if not _caught_up(r, max_lag)}
    if feature and (behind or not any(r["status"] == "Leader" for r in voters)):
        refusals.append(refusal("convert-voters-caught-up", (
            f"the kraft.version upgrade needs every voter caught up with a leader (voters {ids}, lagging: {behind}): "
            "bring them back first.")))
    plan = {"steps": [], "voters": ids, "kraft_version": kraft_version, "refusals": refusals}
    if refusals:
        return plan
    if feature and not confirmed and not check_mode:
        refusals.append(refusal("convert-needs-confirm", (
            "kraft.version 1 cannot be undone (the quorum stays dynamic, its voters known by their directory ids): "
            "rerun with -e confirm_irreversible=true to go on.")))
    plan["steps"] = (["feature"] if feature else []) + (["roll"] if static_hosts or feature else [])
    return plan


def convert_quorum_lines(plan, static_hosts):
    """The conversion's plan in words, one line a step."""
    text = {
        "feature": f"feature: kraft.version {plan['kraft_version']} -> 1 (kafka-features upgrade): CANNOT BE UNDONE "
                   "(runs only with -e confirm_irreversible=true)",
        "roll": "roll: controller.quorum.voters -> controller.quorum.bootstrap.servers on the controllers, then the "
                f"brokers, through the gates (still listing the voters: {', '.join(static_hosts) or 'none yet'})",
    }
    return [f"voters now: {plan['voters']}, kraft.version {plan['kraft_version']}"] + [text[s] for s in plan["steps"]]
