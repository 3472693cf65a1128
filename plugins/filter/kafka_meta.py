"""Filters that read a Kafka broker's on-disk identity (meta.properties, server.properties).

Pure functions, no Ansible imports in the logic, so tests/unit/test_filter_kafka_meta.py can call them
directly. The kafka_broker role's preflight uses them to refuse a configuration that would make a
broker start on another broker's or another cluster's data.
"""

import base64

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text):
    """Undo java.util.Properties escapes (\\t, \\n, \\uXXXX, \\= ...) in a key or value."""
    out, i = [], 0
    while i < len(text):
        char = text[i]
        if char != "\\" or i + 1 >= len(text):
            out.append(char)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u" and i + 6 <= len(text):
            try:
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            except ValueError:
                pass
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    return "".join(out)


def _logical_lines(text):
    """Join continuation lines (a line ending in an odd number of backslashes goes on) and drop
    blank lines and comments ('#' or '!' first on a logical line)."""
    current = None
    for raw in text.splitlines():
        line = raw.lstrip(" \t\f")
        if current is None and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:
            current = (current or "") + line[:-1]
            continue
        yield (current or "") + line
        current = None
    if current is not None:
        yield current


def _split_key_value(line):
    """Split at the first unescaped '=', ':' or whitespace, as java.util.Properties does."""
    i = 0
    while i < len(line):
        char = line[i]
        if char == "\\":
            i += 2
            continue
        if char in "=:" or char in " \t\f":
            break
        i += 1
    key, rest = line[:i], line[i:]
    if rest[:1] in ("=", ":"):
        rest = rest[1:]
    else:
        rest = rest.lstrip(" \t\f")
        if rest[:1] in ("=", ":"):
            rest = rest[1:]
    return _unescape(key), _unescape(rest.lstrip(" \t\f"))


def kafka_meta_properties(text):
    """Parse Java properties text (meta.properties, server.properties) into a dict of strings.

    Comments ('#', '!'), blank lines, continuation lines and escapes are handled like
    java.util.Properties.load; a repeated key keeps its last value. None gives {}.
    """
    if text is None:
        return {}
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    props = {}
    for line in _logical_lines(str(text)):
        key, value = _split_key_value(line)
        if key:
            props[key] = value
    return props


def kafka_normalized_log_dirs(value):
    """Normalised list of log dirs from a properties dict (log.dirs, else log.dir), a list or a
    comma-separated string. Trailing slashes are dropped so '/data/' and '/data' compare equal."""
    if value is None:
        return []
    if isinstance(value, dict):
        value = value.get("log.dirs", value.get("log.dir", ""))
    if isinstance(value, str):
        value = value.split(",")
    dirs = []
    for item in value:
        item = str(item).strip()
        if item:
            dirs.append(item.rstrip("/") or "/")
    return dirs


def kafka_found_files(find_results):
    """[{'host': ..., 'path': ...}] from the results of a find looped over hosts with delegate_to
    (loop item = inventory host name). Unreachable, failed and skipped items are left out."""
    found = []
    for result in find_results or []:
        if result.get("unreachable") or result.get("failed") or result.get("skipped"):
            continue
        for entry in result.get("files") or []:
            found.append({"host": result.get("item"), "path": entry["path"]})
    return found


def _decoded(result):
    content = result.get("content", "")
    if result.get("encoding") == "base64":
        return base64.b64decode(content).decode("utf-8", errors="replace")
    return content


def _meta_entries(slurp_results, default_host):
    """(host, path, props) for each successful slurp result. The host comes from a loop item
    {'host': ..., 'path': ...} when there is one, else default_host."""
    entries = []
    for result in slurp_results or []:
        if result.get("unreachable") or result.get("failed") or result.get("skipped"):
            continue
        if "content" not in result:
            continue
        item = result.get("item")
        host = item.get("host", default_host) if isinstance(item, dict) else default_host
        path = result.get("source") or (item.get("path") if isinstance(item, dict) else None)
        entries.append((host, path, kafka_meta_properties(_decoded(result))))
    return entries


def _broker_id_of(props):
    value = props.get("broker.id", props.get("node.id"))
    return None if value is None or not str(value).strip() else str(value).strip()


def _cluster_id_of(props):
    return str(props.get("cluster.id", "")).strip() or None


def kafka_identity_problems(local_slurps, peer_slurps, broker_id, host="this host"):
    """Reasons why this broker must not start on the data it finds, as sentences; [] when safe.

    local_slurps: slurp results of this broker's <log dir>/meta.properties files.
    peer_slurps:  slurp results of the other brokers' meta.properties, each with a loop item
                  {'host': ..., 'path': ...} (see kafka_found_files).
    broker_id:    the kafka_broker_id this broker is configured with.

    Refused: a local meta.properties of another broker.id; local log dirs of different clusters;
    a local cluster.id that differs from the cluster.id of the other brokers; another broker whose
    disk already holds this broker.id.
    """
    wanted = str(broker_id).strip()
    local = _meta_entries(local_slurps, host)
    peers = _meta_entries(peer_slurps, None)
    problems = []

    for where, path, props in local:
        found = _broker_id_of(props)
        if found is not None and found != wanted:
            problems.append(
                f"{path} on {where} belongs to broker.id {found}, but kafka_broker_id is {wanted}"
            )

    local_clusters = {}
    for where, path, props in local:
        if _cluster_id_of(props):
            local_clusters.setdefault(_cluster_id_of(props), []).append(f"{path} on {where}")
    if len(local_clusters) > 1:
        seen = "; ".join(
            f"cluster.id {cid} in {', '.join(paths)}" for cid, paths in sorted(local_clusters.items())
        )
        problems.append(f"the log dirs of {host} belong to different clusters: {seen}")

    peer_clusters = {}
    for where, path, props in peers:
        if _cluster_id_of(props):
            peer_clusters.setdefault(_cluster_id_of(props), []).append(f"{path} on {where}")
    if local_clusters and peer_clusters:
        for cid, paths in sorted(local_clusters.items()):
            others = {pcid: ppaths for pcid, ppaths in peer_clusters.items() if pcid != cid}
            for pcid, ppaths in sorted(others.items()):
                problems.append(
                    f"{', '.join(paths)} has cluster.id {cid}, but {', '.join(ppaths)} has cluster.id {pcid}"
                )

    for where, path, props in peers:
        if _broker_id_of(props) == wanted:
            problems.append(f"{path} on {where} already holds the data of broker.id {wanted}")
    return problems


class FilterModule:
    """Kafka identity filters."""

    def filters(self):
        return {
            "kafka_meta_properties": kafka_meta_properties,
            "kafka_normalized_log_dirs": kafka_normalized_log_dirs,
            "kafka_found_files": kafka_found_files,
            "kafka_identity_problems": kafka_identity_problems,
        }
