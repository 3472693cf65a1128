"""Whose data is in a broker's log dirs: the one rule, used by the kafka_broker role's preflight,
replace_broker.yml and rebuild_broker.yml (through the kafka_broker_identity module).

Every log dir holds a meta.properties with broker.id and cluster.id once a broker has used it. A broker
must never start on another broker's or another cluster's data, and a disk that cannot be read is
reported as such, never taken as empty.
"""

import base64
import errno
import os

ABSENT = "absent"                # no meta.properties: a new or emptied log dir
OURS = "ours"                    # this broker's id (and this cluster's, when the cluster id is known)
OTHER_BROKER = "other_broker"
OTHER_CLUSTER = "other_cluster"
MALFORMED = "malformed"          # a meta.properties without broker.id / cluster.id
UNREADABLE = "unreadable"        # the OS refused to read it (I/O error, permissions, ...)


def parse_properties(text):
    """key=value lines as Kafka writes meta.properties and our template server.properties ('#' and '!'
    comments; the first '=' or ':' separates)."""
    props = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#!":
            continue
        cut = min((i for i in (line.find("="), line.find(":")) if i >= 0), default=-1)
        if cut > 0:
            props[line[:cut].strip()] = line[cut + 1:].strip()
    return props


# Where kafka-storage format records the metadata.version it formatted at: 3.x a bootstrap.checkpoint, 4.x the
# metadata log's first snapshot.
BOOTSTRAP_FILES = ("bootstrap.checkpoint",
                   os.path.join("__cluster_metadata-0", "00000000000000000000-0000000000.checkpoint"))


def read_bootstrap(log_dir):
    """The base64 bytes of the dir's bootstrap checkpoint (BOOTSTRAP_FILES, the first found), or None: Kafka's
    DumpLogSegments reads the metadata.version in it on the controller (kafka_tools.read_metadata_levels)."""
    for name in BOOTSTRAP_FILES:
        try:
            with open(os.path.join(log_dir, name), "rb") as handle:
                return base64.b64encode(handle.read()).decode("ascii")
        except OSError:
            continue
    return None


def normalized_dirs(value):
    """A log.dirs value (comma-separated string or list) as paths without trailing slashes."""
    items = value.split(",") if isinstance(value, str) else value or []
    return [item.strip().rstrip("/") or "/" for item in map(str, items) if item.strip()]


def read_meta(log_dir):
    """{'path', 'meta': {...} or None, 'error': OS error text or None, 'bootstrap': read_bootstrap} for
    <log_dir>/meta.properties. A missing log dir or file is absent; any other OS error (EIO on a failing disk) is an
    error."""
    path = os.path.join(log_dir, "meta.properties")
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return {"path": log_dir, "meta": parse_properties(handle.read()), "error": None,
                    "bootstrap": read_bootstrap(log_dir)}
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return {"path": log_dir, "meta": None, "error": None, "bootstrap": None}
        return {"path": log_dir, "meta": None, "error": f"{exc.strerror or exc} ({path})", "bootstrap": None}


def classify(entry, broker_id, cluster_id=None):
    """The status of one log dir (read_meta's entry) for broker broker_id of cluster cluster_id (None:
    the cluster id is not known, it is then not compared)."""
    if entry["error"]:
        return UNREADABLE
    meta = entry["meta"]
    if meta is None:
        return ABSENT
    found_broker = meta.get("broker.id", meta.get("node.id", "")).strip()
    found_cluster = meta.get("cluster.id", "").strip()
    if not found_broker or not found_cluster:
        return MALFORMED
    if found_broker != str(broker_id):
        return OTHER_BROKER
    if cluster_id and found_cluster != cluster_id:
        return OTHER_CLUSTER
    return OURS


def report(entries, broker_id, cluster_id=None):
    """Per log dir: path, status, and the broker.id / cluster.id / directory.id / error / bootstrap checkpoint found."""
    out = []
    for entry in entries:
        meta = entry["meta"] or {}
        out.append({"path": entry["path"], "status": classify(entry, broker_id, cluster_id),
                    "broker_id": meta.get("broker.id", meta.get("node.id")), "cluster_id": meta.get("cluster.id"),
                    "directory_id": meta.get("directory.id"), "error": entry["error"],
                    "bootstrap": entry["bootstrap"]})
    return out


def against_cluster(dirs, cluster_id):
    """report() rows classified again against cluster_id, when it became known after they were read (a KRaft quorum's
    id, read from the controllers after the brokers' log dirs): a dir of this broker holding another cluster's data."""
    return [dict(d, status=OTHER_CLUSTER) if cluster_id and d["status"] == OURS and d["cluster_id"] != cluster_id
            else d for d in dirs]


def refusals(dirs, broker_id, cluster_id=None, peers=None, abandoned=()):
    """Why broker broker_id must not start on (or empty) these log dirs, one sentence each; [] when safe.

    dirs: report() of this host; peers: {host: report() of that host} for other brokers whose disks
    were read; abandoned: log dirs of the current configuration that hold data and that a new log.dirs
    would leave behind (the broker would start empty and re-replicate everything, or lose sole copies).
    Sentences, not refusal() dicts: the decision that reads them gives them its rule (kafka_recovery: one
    rebuild-other-broker or replacement-other-data refusal quoting them all), and the roles' preflights show them in
    their asserts (the broker's with its override, kafka_allow_identity_change).
    """
    problems = []
    for d in dirs:
        if d["status"] == UNREADABLE:
            problems.append(f"{d['path']} cannot be read: {d['error']}")
        elif d["status"] == MALFORMED:
            problems.append(f"{d['path']}/meta.properties has no broker.id or cluster.id")
        elif d["status"] == OTHER_BROKER:
            problems.append(f"{d['path']} holds the data of broker.id {d['broker_id']}, not {broker_id}")
        elif d["status"] == OTHER_CLUSTER:
            problems.append(f"{d['path']} holds the data of cluster {d['cluster_id']}, not {cluster_id}")
    clusters = sorted({d["cluster_id"] for d in dirs if d["status"] == OURS})
    if len(clusters) > 1:
        problems.append(f"the log dirs hold data of different clusters: {', '.join(clusters)}")
    for host, peer_dirs in sorted((peers or {}).items()):
        for d in peer_dirs:
            if d["broker_id"] is not None and str(d["broker_id"]).strip() == str(broker_id):
                problems.append(f"{d['path']} on {host} already holds the data of broker.id {broker_id}")
            if not cluster_id and clusters and d["cluster_id"] and d["cluster_id"] not in clusters:
                problems.append(f"the log dirs hold cluster {clusters[0]}, but {d['path']} on {host} holds "
                                f"cluster {d['cluster_id']}")
    for path in abandoned:
        problems.append(f"log.dirs would no longer include {path}, which holds this broker's data")
    return problems
