"""The refusals and plans of replace_broker.yml and rebuild_broker.yml: plain functions of the cluster's
state (kafka_connection.read_cluster_state) and the request, unit-tested on hand-written states.

Each refusal is {"rule": name, "message": cause, partitions or hosts, and what to do or override}. A
playbook shows the plan, stops on a refusal and runs the steps; it decides nothing itself.
"""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_state
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import endpoint_address
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_state import partition_names
from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal


def registered_endpoints(broker):
    """(host, port) pairs a registered broker advertises (its endpoints, else its host/port)."""
    pairs = {endpoint_address(e) for e in broker.get("endpoints") or []} - {None}
    if not pairs and broker.get("host") and broker.get("port"):
        pairs.add((str(broker["host"]).lower(), int(broker["port"])))
    return pairs


def advertises(broker, host, port):
    """Whether a registered broker is the one an inventory host advertises as host:port."""
    return (str(host).lower(), int(port)) in registered_endpoints(broker)


def _describe_endpoints(broker):
    return ", ".join(f"{h}:{p}" for h, p in sorted(registered_endpoints(broker))) or "an unknown endpoint"


def unclean_refusal(state, what):
    if not state.get("unclean_election"):
        return []
    return [refusal("unclean-election", (
        f"Refusing to {what}: unclean.leader.election.enable is true on {', '.join(state['unclean_election'])}. "
        "An out-of-sync replica could become leader while the broker re-syncs and drop acknowledged writes. "
        "Set it to false first (kafka-configs.sh --alter --delete-config unclean.leader.election.enable, or "
        "kafka_unclean_leader_election_enable)."))]


def replace_decision(state, request):
    """Whether and how request["failed_id"] may be taken over by the replacement host.

    request: failed_id, failed_host, replacement_host, replacement_endpoint [host, port] (what the
    replacement will advertise), fence_failed_host, failed_host_reachable (None: not checked),
    accept_offline_partitions, replacement_active (its kafka service runs), replacement_identity
    (refusals of kafka_broker_identity on its log dirs), format_refusals (other rules' about its log dirs:
    kafka_versions.newer_format_refusals), tools_problem (why Kafka's tools cannot run, or None). Returns
    refusals, rerun (the id is already registered by the replacement: a rerun after a failure), fence (stop and
    disable the failed broker first) and the plan's lines.
    """
    failed_id, failed_host = request["failed_id"], request["failed_host"]
    replacement = request["replacement_host"]
    host, port = request["replacement_endpoint"]
    what = f"replace broker {failed_id}"
    refusals = unclean_refusal(state, what)
    registered = state["brokers"].get(failed_id)
    rerun = registered is not None and advertises(registered, host, port)
    live_elsewhere = registered is not None and not rerun
    fence = False
    if live_elsewhere and not request["fence_failed_host"]:
        refusals.append(refusal("replace-registered", (
            f"Refusing to {what}: it is still registered live at {_describe_endpoints(registered)} "
            f"({failed_host}), and {replacement} would advertise {host}:{port}. Two brokers with one id would "
            f"corrupt its partitions. Stop it on {failed_host} (or power the host off) and rerun, or rerun with "
            "-e fence_failed_host=true to have this playbook stop and disable it.")))
    elif live_elsewhere and request["failed_host_reachable"] is False:
        refusals.append(refusal("fence-unreachable", (
            f"Refusing: fence_failed_host=true, but {failed_host} does not answer over SSH, and broker "
            f"{failed_id} is still registered live at {_describe_endpoints(registered)}. Stop it by other means "
            f"(power the host off, cut it off), wait until /brokers/ids/{failed_id} is gone, and rerun without "
            "fence_failed_host.")))
    elif live_elsewhere:
        fence = True
    # On a rerun the replacement is live under the id: partitions it is in sync for are not lost.
    alone = [p for p in kafka_state.only_in_sync_replica(state, failed_id)
             if not (rerun and _in_isr(state, p, failed_id))]
    if alone and not request["accept_offline_partitions"]:
        refusals.append(refusal("replace-only-in-sync", (
            f"Refusing to {what}: no other live broker is in the ISR of {len(alone)} partition(s): "
            f"{partition_names(alone)}. They are offline (or would be once it stops) and the replacement starts "
            "empty, so what they held is gone unless the old disk comes back. Try to bring the old broker or disk "
            "back first; to give these partitions up and go on, rerun with -e accept_offline_partitions=true.")))
    if request["replacement_active"] and not rerun:
        refusals.append(refusal("replacement-runs-broker", (
            f"Refusing to use {replacement} as broker {failed_id}: its kafka service is running "
            f"({_registered_as(state, host, port)}). A replacement must be a host with no broker and empty log "
            "dirs: pick another host, or stop its broker and clear its log dirs on purpose.")))
    if request["replacement_identity"]:
        refusals.append(refusal("replacement-other-data", (
            f"Refusing to use {replacement} as broker {failed_id}: {'; '.join(request['replacement_identity'])}. "
            "A replacement must have empty log dirs (or this broker's, on a rerun): pick another host, or clear "
            "them on purpose.")))
    refusals += request["format_refusals"]
    if request["tools_problem"]:
        refusals.append(refusal("tools-before-change", (
            f"Refusing to {what}: {request['tools_problem']}. The throttle of the stopped broker is written "
            "with Kafka's ConfigCommand from the controller: set kafka_tools_home to a Kafka distribution there.")))
    hosted = [p for p in state["partitions"] if failed_id in p["replicas"]]
    plan = [
        f"replace broker {failed_id} ({failed_host}: "
        + ("registered live at " + _describe_endpoints(registered) + ", will be stopped and disabled" if fence
           else "rerun: already registered by the replacement" if rerun else "not registered")
        + f") with {replacement} advertising {host}:{port}, cluster {state['cluster_id']}",
        f"{len(hosted)} partition(s) to copy to it",
        ("accepted offline partitions: " + partition_names(alone)) if alone
        else "no partition lost its only in-sync copy",
    ]
    return {"refusals": refusals, "rerun": rerun, "fence": fence, "plan": plan}


def _in_isr(state, name, broker_id):
    return any(f"{p['topic']}-{p['partition']}" == name and broker_id in p["isr"] for p in state["partitions"])


def _registered_as(state, host, port):
    ids = [str(b) for b, info in sorted(state["brokers"].items()) if advertises(info, host, port)]
    return f"registered as broker {', '.join(ids)}" if ids else "not registered"


def rebuild_decision(state, request):
    """Whether broker request["broker_id"] may have its log dirs emptied and re-fetched now.

    request: broker_id, host, identity (refusals of kafka_broker_identity on its log dirs), keep_old_data,
    free_bytes (least free space of its log dirs, with keep_old_data), bytes_to_copy (None: unknown).
    """
    broker_id, host = request["broker_id"], request["host"]
    what = f"rebuild broker {broker_id} ({host})"
    refusals = unclean_refusal(state, what)
    stop = kafka_state.stop_check(state, broker_id)
    if stop["only_in_sync_replica"]:
        refusals.append(refusal("rebuild-only-in-sync", (
            f"Refusing to {what}: no other live broker is in the ISR of {len(stop['only_in_sync_replica'])} "
            f"partition(s): {partition_names(stop['only_in_sync_replica'])}. Its log dirs hold the only in-sync "
            "copy; emptying them loses it. Bring the other replicas back into sync first (start the brokers that "
            "are down, wait for their catch-up), then rerun.")))
    if not stop["safe"]:
        refusals.append(refusal("rebuild-below-min-isr", (
            f"Refusing to {what}: stopping it would leave {len(stop['blocking'])} partition(s) below "
            f"min.insync.replicas, and acks=all producers would fail: {partition_names(stop['blocking'])}. Wait "
            "until their other replicas are back in the ISR, then rerun.")))
    if request["identity"]:
        refusals.append(refusal("rebuild-other-broker", (
            f"Refusing to {what}: {'; '.join(request['identity'])}. The inventory and this host disagree about "
            "whose data this is, or the disk cannot be read: fix kafka_broker_id or kafka_log_dirs, check that this "
            "is the right host, or repair the filesystem (or replace the disk with replace_broker.yml) first.")))
    need = request.get("bytes_to_copy")
    if request["keep_old_data"] and need is not None and request.get("free_bytes") is not None \
            and request["free_bytes"] < need:
        refusals.append(refusal("rebuild-no-room-for-old-data", (
            f"Refusing: rebuild_keep_old_data=true keeps the old data on the disk, and the rebuild needs "
            f"{need} more bytes, but only {request['free_bytes']} are free. Free space, or rerun without "
            "rebuild_keep_old_data (the old data is then deleted).")))
    plan = [
        f"rebuild broker {broker_id} on {host} ("
        + ("registered" if broker_id in state["brokers"] else "not registered: down or in log recovery")
        + f"), cluster {state['cluster_id']}",
        "old log dirs: " + ("moved aside to <dir>.old-<time>" if request["keep_old_data"] else "deleted")
        + "; its identity (broker id, cluster id) written back into meta.properties",
        "stop through the safe-to-stop gate (no partition below min.insync.replicas), right before the stop",
    ]
    return {"refusals": refusals, "plan": plan}
