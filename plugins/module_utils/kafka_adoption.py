"""Adopting a cluster the kit did not deploy (playbooks/adopt_cluster.yml): what runs on each host, read from its
processes and files, and whether it is one unambiguous cluster the kit can take over. Design: docs/design/upgrades.md.

A host's reading, as the module gathers it (nothing changed): its Java processes ({"pid", "argv": /proc/PID/cmdline,
"unit": the systemd unit of its cgroup or None, the jars of the dirs its class path names with a wildcard); the
config file each runs (the process's last argument), parsed; for a broker the meta.properties of each of its log
dirs ({dir: properties or None when absent}); for a ZooKeeper member its myid.
"""

import os
import re

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_identity, kafka_versions
from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal

MAIN_CLASSES = {"kafka.Kafka": "broker", "org.apache.zookeeper.server.quorum.QuorumPeerMain": "zookeeper"}
_OPTIONS_WITH_VALUE = ("-cp", "-classpath", "--class-path", "-jar")
_KAFKA_JAR = re.compile(r"^kafka_2\.1[0-3]-(\d+\.\d+\.\d+)\.jar$")
_ZOOKEEPER_JAR = re.compile(r"^zookeeper-(\d+\.\d+\.\d+)\.jar$")


def read_java_process(argv, list_jars=None):
    """What a Java process runs: {"kind": "broker" | "zookeeper" | None (another program), "main", "config": its last
    argument (the properties file Kafka's scripts pass), "release": the Kafka release of its class path (None when no
    kafka_2.1x jar is on it), "zookeeper_release", "java": argv[0], "heap": its -Xmx or None}.
    list_jars: dir -> the jar names in it, for the class path's 'dir/*' entries (kafka-run-class.sh spells each jar;
    a unit may name the dir); without it such entries name no jar."""
    classpath, main, index = [], None, 1
    while index < len(argv):
        arg = argv[index]
        if arg in _OPTIONS_WITH_VALUE and index + 1 < len(argv):
            classpath = argv[index + 1].split(":") if arg != "-jar" else [argv[index + 1]]
            index += 2
            continue
        if not arg.startswith("-"):
            main = arg
            break
        index += 1
    names = []
    for entry in classpath:
        if entry.endswith("/*"):
            names += (list_jars(entry[:-2]) if list_jars else None) or []
        else:
            names.append(entry.rsplit("/", 1)[-1])
    release = next((m.group(1) for n in names for m in [_KAFKA_JAR.match(n)] if m), None)
    zookeeper_release = next((m.group(1) for n in names for m in [_ZOOKEEPER_JAR.match(n)] if m), None)
    heap = next((a[4:] for a in reversed(argv) if a.startswith("-Xmx")), None)
    rest = argv[index + 1:] if main else []
    return {"kind": MAIN_CLASSES.get(main), "main": main, "config": rest[-1] if rest else None, "release": release,
            "zookeeper_release": zookeeper_release, "java": argv[0] if argv else None, "heap": heap}


def read_host(proc="/proc"):
    """What runs on this host, read from proc (a /proc tree) and the files the processes name, changing nothing:
    {"processes": [read_java_process(...) + {"pid", "unit", "config_properties": the config it runs or None}],
    "server": the broker's config or None, "log_dirs": {dir: meta.properties or None} of its log.dirs, "myid": the
    ZooKeeper member's id from its dataDir or None}. A file that cannot be read is reported in "errors", never taken
    as absent."""
    processes, errors = [], []
    for pid in sorted((p for p in os.listdir(proc) if p.isdigit()), key=int):
        try:
            with open(os.path.join(proc, pid, "cmdline"), "rb") as handle:
                argv = [a.decode("utf-8", "replace") for a in handle.read().split(b"\0") if a]
        except OSError:
            continue  # a process that ended while read
        if not argv or os.path.basename(argv[0]) != "java":
            continue
        seen = read_java_process(argv, _jars_in)
        if seen["kind"] is None:
            continue
        seen.update(pid=int(pid), unit=_unit(os.path.join(proc, pid, "cgroup")), config_properties=None)
        try:
            with open(seen["config"], encoding="utf-8") as handle:
                seen["config_properties"] = kafka_identity.parse_properties(handle.read())
        except (OSError, TypeError) as exc:
            errors.append(f"pid {pid}: cannot read its config {seen['config']}: {exc}")
        processes.append(seen)
    broker = next((p for p in processes if p["kind"] == "broker"), None)
    server = broker["config_properties"] if broker else None
    log_dirs = {}
    for path in kafka_identity.normalized_dirs((server or {}).get("log.dirs", (server or {}).get("log.dir", ""))):
        read = kafka_identity.read_meta(path)
        if read["error"]:
            errors.append(f"{path}: {read['error']}")
        log_dirs[path] = read["meta"]
    member = next((p for p in processes if p["kind"] == "zookeeper"), None)
    myid = None
    if member and member["config_properties"] and member["config_properties"].get("dataDir"):
        try:
            with open(os.path.join(member["config_properties"]["dataDir"], "myid"), encoding="utf-8") as handle:
                myid = int(handle.read().strip())
        except (OSError, ValueError) as exc:
            errors.append(f"ZooKeeper's myid: {exc}")
    return {"processes": processes, "server": server, "log_dirs": log_dirs, "myid": myid, "errors": errors}


def _jars_in(path):
    """The jar names in dir path (none when it is no dir)."""
    return sorted(n for n in os.listdir(path) if n.endswith(".jar")) if os.path.isdir(path) else []


def _unit(cgroup_file):
    """The systemd unit whose cgroup holds the process ('0::/system.slice/apache-kafka.service'), or None."""
    try:
        with open(cgroup_file, encoding="utf-8") as handle:
            for line in handle:
                name = line.strip().rsplit("/", 1)[-1]
                if name.endswith((".service", ".scope")):
                    return name
    except OSError:
        pass
    return None


def adoption_refusals(hosts, groups, registered):
    """Why the cluster cannot be adopted as the inventory describes it, each naming what was seen; [] when it can.

    hosts: {host: {"processes": [read_java_process(...) + {"pid", "unit"}], "server": the broker's config (dict) or
    None, "log_dirs": {dir: meta.properties (dict) or None}, "advertised": the host name its broker advertises}};
    groups: {"kafka_broker": [hosts], "zookeeper": [hosts]} of the inventory;
    registered: {broker id: the host name its registration in ZooKeeper advertises}."""
    problems = []
    for host, seen in sorted(hosts.items()):
        for kind in ("broker", "zookeeper"):
            running = [p for p in seen["processes"] if p["kind"] == kind]
            if len(running) > 1:
                problems.append(refusal("adopt-ambiguous-host", (
                    f"{host} runs {len(running)} {kind} processes ({', '.join(_describe(p) for p in running)}): "
                    "the kit adopts one per host. Stop the one that is not part of this cluster, then rerun.")))
    for group, kind in (("kafka_broker", "broker"), ("zookeeper", "zookeeper")):
        missing = [h for h in groups.get(group, []) if not any(p["kind"] == kind for p in hosts[h]["processes"])]
        if missing:
            problems.append(refusal("adopt-not-running", (
                f"{', '.join(missing)} of {group} run{'s' if len(missing) == 1 else ''} no {kind}: adoption reads "
                "what runs. Start it, or take the host out of the inventory (a lost broker is replace_broker.yml's "
                "once the cluster is adopted), then rerun.")))
    brokers = {h: hosts[h] for h in groups.get("kafka_broker", []) if hosts[h]["server"] is not None}
    problems += _identity_refusals(brokers, registered)
    releases = sorted({p["release"] for h in brokers for p in hosts[h]["processes"]
                       if p["kind"] == "broker" and p["release"]})
    if len(releases) > 1:
        problems.append(refusal("adopt-mixed-releases", (
            f"the brokers run {', '.join(releases)}: the kit adopts a cluster on one release. Finish or undo the "
            "upgrade in progress by hand first, then rerun.")))
    for release in releases:
        problems += [r for r in kafka_versions.version_refusals(release, "zookeeper", [], {})
                     if r["rule"] == "version-unknown"]
    return problems


def _identity_refusals(brokers, registered):
    """The broker ids and log dirs: each broker's config, its log dirs and the registry must name one broker of one
    cluster."""
    problems, clusters = [], {}
    for host, seen in sorted(brokers.items()):
        broker_id = seen["server"].get("broker.id")
        for path, meta in sorted(seen["log_dirs"].items()):
            if meta is None:
                continue
            clusters.setdefault(meta.get("cluster.id"), []).append(f"{host}:{path}")
            if meta.get("broker.id") != broker_id:
                problems.append(refusal("adopt-other-data", (
                    f"{host}:{path} holds the data of broker {meta.get('broker.id')} and {host} runs broker "
                    f"{broker_id}: the kit would take over another broker's data. Find where it came from.")))
        if broker_id is not None and broker_id.isdigit() and int(broker_id) in registered and \
                registered[int(broker_id)] != seen["advertised"]:
            problems.append(refusal("adopt-id-disagrees", (
                f"{host} runs broker {broker_id} as {seen['advertised']}, and the cluster's registry has broker "
                f"{broker_id} at {registered[int(broker_id)]}: two hosts claim one id. Find which one is this "
                "cluster's, then rerun.")))
    if len(clusters) > 1:
        problems.append(refusal("adopt-other-data", (
            "the log dirs belong to several clusters: " + "; ".join(
                f"{cluster}: {', '.join(dirs)}" for cluster, dirs in sorted(clusters.items(), key=str)))))
    return problems


def _describe(process):
    return f"pid {process['pid']}{' (' + process['unit'] + ')' if process.get('unit') else ''}"
