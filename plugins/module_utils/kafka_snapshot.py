"""The offset snapshot's format (spark/README.md), as pure functions: where a snapshot goes and the
rows of its files, from what the cluster answered."""

import json


def snapshot_path(cluster_id, taken_at):
    """<cluster id>/<UTC time as 20261121T130501Z>, below the snapshot folder."""
    return f"{cluster_id}/{taken_at.strftime('%Y%m%dT%H%M%SZ')}"


def partition_rows(partitions, log_starts, high_watermarks):
    """partitions.jsonl rows; log_starts / high_watermarks map (topic, partition) to an offset."""
    return [{"topic": p["topic"], "partition": p["partition"],
             "log_start_offset": log_starts[(p["topic"], p["partition"])],
             "high_watermark": high_watermarks[(p["topic"], p["partition"])],
             "leader": p["leader"], "replicas": p["replicas"], "isr": p["isr"]} for p in partitions]


def group_rows(committed):
    """group_offsets.jsonl rows from {group: {(topic, partition): offset}}; partitions without a
    committed offset (negative) are left out."""
    return [{"group": group, "topic": topic, "partition": partition, "committed_offset": offset}
            for group in sorted(committed)
            for (topic, partition), offset in sorted(committed[group].items()) if offset >= 0]


def cluster_document(state, taken_at):
    """cluster.json."""
    return {"cluster_id": state["cluster_id"], "taken_at": taken_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "controller_id": state["controller_id"],
            "brokers": [{"id": b, "host": info.get("host"), "port": info.get("port")}
                        for b, info in sorted(state["brokers"].items())]}


def jsonl(rows):
    return "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows)
