"""Adopting a cluster the kit did not deploy (playbooks/adopt_cluster.yml): what runs on each host, read from its
processes and files (read_host), whether it is one unambiguous open cluster the kit can take over, and the kit's
variables that describe it (adoption_plan), written as an inventory layer of its own (inventory_files). Design:
docs/design/upgrades.md; runbook: docs/runbooks/adopt-cluster.md.

A host's reading, as the module gathers it (nothing changed): its Java processes ({"pid", "argv": /proc/PID/cmdline,
"unit": the systemd unit of its cgroup or None, the jars of the dirs its class path names with a wildcard); the
config file each runs (the process's last argument), parsed; for a broker the meta.properties of each of its log
dirs ({dir: properties or None when absent}); for a ZooKeeper member its myid.
"""

import json
import os
import re

from ansible_collections.kafkaops.toolkit.plugins.module_utils import (
    kafka_connection,
    kafka_identity,
    kafka_secure_conversion,
    kafka_versions,
)
from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal

MAIN_CLASSES = {"kafka.Kafka": "broker", "org.apache.zookeeper.server.quorum.QuorumPeerMain": "zookeeper"}
_OPTIONS_WITH_VALUE = ("-cp", "-classpath", "--class-path", "-jar")
_KAFKA_JAR = re.compile(r"^kafka_2\.1[0-3]-(\d+\.\d+\.\d+)\.jar$")
_ZOOKEEPER_JAR = re.compile(r"^zookeeper-(\d+\.\d+\.\d+)\.jar$")


def read_java_process(argv, list_jars=None, open_jars=None):
    """What a Java process runs: {"kind": "broker" | "zookeeper" | None (another program), "main", "config": its last
    argument (the properties file Kafka's scripts pass), "release": the Kafka release of its open jars, else of its
    class path (None when no kafka_2.1x jar is named), "zookeeper_release", "java": argv[0], "heap": its -Xmx or None}.
    list_jars: dir -> the jar names in it, for the class path's 'dir/*' entries (kafka-run-class.sh spells each jar;
    a unit may name the dir); without it such entries name no jar.
    open_jars: the names of the jars the process holds open (open_jar_names), read for the releases before the class
    path: its dir may be a link that points at another release since the process started (an upgrade moves it before
    the restart); the class path where they name none (a jar the JVM never needed is not open)."""
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
    release = _release(open_jars, _KAFKA_JAR) or _release(names, _KAFKA_JAR)
    zookeeper_release = _release(open_jars, _ZOOKEEPER_JAR) or _release(names, _ZOOKEEPER_JAR)
    heap = next((a[4:] for a in reversed(argv) if a.startswith("-Xmx")), None)
    rest = argv[index + 1:] if main else []
    return {"kind": MAIN_CLASSES.get(main), "main": main, "config": rest[-1] if rest else None, "release": release,
            "zookeeper_release": zookeeper_release, "java": argv[0] if argv else None, "heap": heap}


def _release(jar_names, pattern):
    """The release the first jar name of pattern names, or None."""
    return next((m.group(1) for n in jar_names or [] for m in [pattern.match(n)] if m), None)


def open_jar_names(link_targets):
    """The names of the jar files among a process's open files (the targets of its /proc/PID/fd links, resolved when
    it opened them; a file removed since ends in ' (deleted)')."""
    paths = (t[:-len(" (deleted)")] if t.endswith(" (deleted)") else t for t in link_targets)
    return sorted({p.rsplit("/", 1)[-1] for p in paths if p.endswith(".jar")})


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
        seen = read_java_process(argv, _jars_in, open_jar_names(_fd_targets(os.path.join(proc, pid, "fd"))))
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


def _fd_targets(fd_dir):
    """Where the links of a /proc/PID/fd dir point ([] when it cannot be read)."""
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return []
    targets = []
    for fd in fds:
        try:
            targets.append(os.readlink(os.path.join(fd_dir, fd)))
        except OSError:
            continue
    return targets


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


# The inventory layer adopt_cluster.yml writes (-i INVENTORY -i LAYER), each file starting with HEADER: a rerun
# rewrites its own files and refuses any other. Ansible reads one of group_vars/all/ and group_vars/all.yml, so the
# layer's group variables are files of a dir of its own.
HEADER = "# Written by playbooks/adopt_cluster.yml from what the cluster runs: review it, keep it with the inventory."
LAYER_FILES = {"cluster": "group_vars/all/adopted-cluster.yml", "open": "group_vars/all/open-until-secured.yml"}
ADOPTED_INSTALL_DIR = "/opt/kafkaops"  # the kit's releases, beside the adopted one's (never over its running jars)
# server.properties and zoo.cfg keys carried as the kit's variables: key -> (variable, type)
BROKER_KEYS = {
    "num.network.threads": ("kafka_num_network_threads", int), "num.io.threads": ("kafka_num_io_threads", int),
    "log.retention.hours": ("kafka_log_retention_hours", int), "log.segment.bytes": ("kafka_log_segment_bytes", int),
    "log.retention.check.interval.ms": ("kafka_log_retention_check_interval_ms", int),
    "num.recovery.threads.per.data.dir": ("kafka_num_recovery_threads_per_data_dir", int),
    "message.max.bytes": ("kafka_message_max_bytes", int),
    "replica.fetch.max.bytes": ("kafka_replica_fetch_max_bytes", int),
    "socket.request.max.bytes": ("kafka_socket_request_max_bytes", int),
    "offsets.topic.replication.factor": ("kafka_offsets_topic_replication_factor", int),
    "transaction.state.log.replication.factor": ("kafka_transaction_state_log_replication_factor", int),
    "transaction.state.log.min.isr": ("kafka_transaction_state_log_min_isr", int),
    "default.replication.factor": ("kafka_default_replication_factor", int),
    "min.insync.replicas": ("kafka_min_insync_replicas", int),
    "group.initial.rebalance.delay.ms": ("kafka_group_initial_rebalance_delay_ms", int),
    "zookeeper.connection.timeout.ms": ("kafka_zookeeper_connection_timeout_ms", int),
    "zookeeper.session.timeout.ms": ("kafka_zookeeper_session_timeout_ms", int),
    "inter.broker.protocol.version": ("kafka_inter_broker_protocol_version", str),
}
ZOOKEEPER_KEYS = {
    "tickTime": ("zookeeper_tick_time", int), "initLimit": ("zookeeper_init_limit", int),
    "syncLimit": ("zookeeper_sync_limit", int), "maxClientCnxns": ("zookeeper_max_client_cnxns", int),
    "autopurge.snapRetainCount": ("zookeeper_autopurge_snap_retain_count", int),
    "autopurge.purgeInterval": ("zookeeper_autopurge_purge_interval", int),
}
# The kit's topic policy (the connection role's variables), with Kafka's default (2.8 to 3.9) where a broker's config
# sets none: a takeover that renders another value changes how the cluster treats its clients' topics.
TOPIC_POLICY = {
    "auto.create.topics.enable": ("kafka_auto_create_topics_enable", "true"),
    "num.partitions": ("kafka_num_partitions", "1"),
    "default.replication.factor": ("kafka_default_replication_factor", "1"),
    "min.insync.replicas": ("kafka_min_insync_replicas", "1"),
    "unclean.leader.election.enable": ("kafka_unclean_leader_election_enable", "false"),
}
# keys the plan reads into other variables (ids, dirs, ports, the ensemble) or whose value it checks
_BROKER_READ = {"broker.id", "log.dirs", "log.dir", "listeners", "advertised.listeners", "zookeeper.connect",
                "broker.rack", "listener.security.protocol.map"}
_ZOOKEEPER_READ = {"dataDir", "dataLogDir", "clientPort", "admin.enableServer", "4lw.commands.whitelist"}
# what makes a cluster secured: adoption takes open clusters (secure_cluster.yml secures them once adopted)
_SECURED_BROKER_KEYS = ("authorizer.class.name", "sasl.enabled.mechanisms", "ssl.keystore.location",
                        "zookeeper.ssl.client.enable", "zookeeper.set.acl")
_SECURED_ZOOKEEPER_KEYS = ("secureClientPort", "sslQuorum", "authProvider.1", "authProvider.sasl",
                           "requireClientAuthScheme", "enforce.auth.enabled")
_SECRET = re.compile(r"password|secret|jaas|token|credential", re.IGNORECASE)


def advertised_name(server, fallback):
    """The host name a broker's first advertised listener names (its listener's when none is advertised)."""
    for item in (server.get("advertised.listeners") or server.get("listeners") or "").split(","):
        address = kafka_connection.endpoint_address(item.strip())
        if address and address[0] != "0.0.0.0":
            return address[0]
    return fallback


def registry_connect(hosts, groups, kit):
    """The zookeeper.connect to read the broker registry from: the inventory's members that run something, by the
    kit's address, on the first one's clientPort, with the first broker's chroot; None when the hosts read do not
    tell (adoption_plan then refuses them, or the hosts disagree and it refuses that)."""
    members = [h for h in groups.get("zookeeper", []) if hosts.get(h, {}).get("processes")]
    ports = [p["config_properties"].get("clientPort") for h in members for p in hosts[h]["processes"]
             if p["kind"] == "zookeeper" and p.get("config_properties")]
    servers = [hosts[h]["server"] for h in groups.get("kafka_broker", []) if hosts.get(h, {}).get("server")]
    if not members or not ports or not servers:
        return None
    return ",".join(f"{kit['addresses'].get(h, h)}:{ports[0]}" for h in members) + _connect(servers[0])[1]


def _connect(server):
    """(["host:port", ...], chroot) of a broker's zookeeper.connect."""
    value = server.get("zookeeper.connect", "")
    hosts, _, chroot = value.partition("/")
    return [h.strip().lower() for h in hosts.split(",") if h.strip()], ("/" + chroot.rstrip("/")) if chroot else ""


def _ensemble(member):
    """{server id: "host"} of a member's zoo.cfg server.N lines, and its (peer port, election port)s."""
    servers, ports = {}, set()
    for key, value in member.items():
        if key.startswith("server.") and key[7:].isdigit():
            host, peer, election = (value.split(";")[0].split(":") + ["", ""])[:3]
            servers[int(key[7:])] = host.lower()
            ports.add((int(peer) if peer.isdigit() else None, int(election) if election.isdigit() else None))
    return servers, ports


def _typed(kind, value):
    if kind is int and str(value).strip().isdigit():
        return int(value)
    return str(value).strip()


def _one(values, what, refusals):
    """The one value every host has of a setting the cluster shares; a refusal (and None) when they disagree."""
    distinct = {repr(v) for v in values.values()}
    if len(distinct) > 1:
        refusals.append(refusal("adopt-ambiguous-setting", (
            f"the hosts disagree on {what}: " + "; ".join(f"{h}: {v}" for h, v in sorted(values.items())) +
            ". The kit renders one value for the cluster: make them agree by hand (or take the odd host out of the "
            "inventory), then rerun.")))
        return None
    return next(iter(values.values()), None)


def adoption_plan(hosts, groups, registered, kit):
    """What adopt_cluster.yml writes to describe a running open cluster the kit did not deploy, or why it cannot.

    hosts: {host: read_host() of it (processes, server, log_dirs, myid, errors)}; groups: {"kafka_broker": [hosts],
    "zookeeper": [hosts]} of the inventory; registered: {broker id: the host its registration in ZooKeeper advertises};
    kit: {"addresses": {host: the name or address the kit reaches it by}, "advertised": {broker host: the name the
    kit would advertise}, "ids": {host: the id the inventory gives it, or None}, "ports": {kit variable: port} of the
    listeners the kit opens beside the cluster's (its TLS client, replication and ZooKeeper TLS ports), "policy":
    {variable: value} of TOPIC_POLICY's variables}.
    Returns {"refusals", "group_vars": {variable: value}, "open": {variable: value} (the open state secure_cluster.yml
    later leaves), "host_vars": {host: {variable: value}}, "review": {host: [(key, value)] of configs not carried,
    secrets hidden]}, "changes": policy_changes()."""
    brokers, members = groups.get("kafka_broker", []), groups.get("zookeeper", [])
    refusals = [refusal("adopt-unreadable", f"{host}: {error}. Fix the read (permissions, the disk), then rerun.")
                for host in sorted(hosts) for error in hosts[host].get("errors", [])]
    readable = {h: dict(hosts[h], advertised=advertised_name(hosts[h]["server"] or {}, h)) for h in hosts}
    refusals += adoption_refusals(readable, groups, registered)
    if refusals:
        return _refused(refusals)
    servers = {h: hosts[h]["server"] for h in brokers}
    configs = {h: _process(hosts[h], "zookeeper")["config_properties"] or {} for h in members}
    refusals += _secured_refusals(servers, configs)
    if refusals:
        return _refused(refusals)
    group, host_vars, review = {}, {h: {} for h in brokers + members}, {h: [] for h in brokers + members}
    plaintext = {h: [port for protocol, port in kafka_connection.listeners(s).values() if protocol == "PLAINTEXT"]
                 for h, s in servers.items()}
    group["kafka_plaintext_port"] = _one({h: ports for h, ports in plaintext.items()},
                                         "the brokers' PLAINTEXT listener port", refusals)
    if group["kafka_plaintext_port"] is not None and len(group["kafka_plaintext_port"]) != 1:
        refusals.append(refusal("adopt-ambiguous-setting", (
            f"the brokers have {len(group['kafka_plaintext_port'])} PLAINTEXT listeners "
            f"({_describe_listeners(servers)}): the kit keeps one, kafka_plaintext_port. Take the others out by hand "
            "(clients moved to the one kept), then rerun.")))
    group["kafka_plaintext_port"] = (group["kafka_plaintext_port"] or [None])[0]
    group["kafka_zookeeper_chroot"] = _one({h: _connect(s)[1] for h, s in servers.items()},
                                           "the chroot of zookeeper.connect", refusals)
    group["zookeeper_plaintext_client_port"] = _one(
        {h: _typed(int, c.get("clientPort", "")) for h, c in configs.items()}, "ZooKeeper's clientPort", refusals)
    ensembles = {h: _ensemble(c) for h, c in configs.items()}
    ports = _one({h: sorted(e[1], key=repr) for h, e in ensembles.items()}, "the members' peer and election ports",
                 refusals)
    if ports and len(ports) == 1:
        group["zookeeper_peer_port"], group["zookeeper_election_port"] = ports[0]
    refusals += _ensemble_refusals(hosts, servers, members, ensembles, group["zookeeper_plaintext_client_port"])
    group["kafka_version"] = _process(hosts[brokers[0]], "broker")["release"] if brokers else None
    for key, (variable, kind) in BROKER_KEYS.items():
        _carry({h: s.get(key) for h, s in servers.items()}, variable, kind, group, host_vars)
    for key, (variable, kind) in ZOOKEEPER_KEYS.items():
        _carry({h: c.get(key) for h, c in configs.items()}, variable, kind, group, host_vars)
    words = {h: [w.strip() for w in c["4lw.commands.whitelist"].split(",")] for h, c in configs.items()
             if c.get("4lw.commands.whitelist")}
    _carry(words, "zookeeper_four_letter_words", list, group, host_vars)
    _carry({h: c.get("admin.enableServer") == "true" for h, c in configs.items()}, "zookeeper_admin_server_enabled",
           bool, group, host_vars)
    for host in brokers:
        seen, process = hosts[host], _process(hosts[host], "broker")
        server = seen["server"]
        host_vars[host].update(kafka_broker_id=int(server["broker.id"]), kafka_log_dirs=list(seen["log_dirs"]),
                               kafka_adopted_unit=process["unit"])
        if _inventory_id(kit, host) not in (None, int(server["broker.id"])):
            refusals.append(_inventory_id_refusal(host, "kafka_broker_id", kit["ids"][host], server["broker.id"]))
        if server.get("broker.rack"):
            host_vars[host]["kafka_broker_rack"] = server["broker.rack"]
        if readable[host]["advertised"] != kit["advertised"].get(host):
            host_vars[host]["kafka_advertised_host"] = readable[host]["advertised"]
        _process_vars(process, "kafka", host_vars[host])
        review[host] = _review(server, set(BROKER_KEYS) | _BROKER_READ)
    for host in members:
        config, process = configs[host], _process(hosts[host], "zookeeper")
        if config.get("dataLogDir") and config["dataLogDir"].rstrip("/") != config.get("dataDir", "").rstrip("/"):
            refusals.append(refusal("adopt-ambiguous-setting", (
                f"{host}'s ZooKeeper keeps its transaction log in {config['dataLogDir']}, apart from its dataDir "
                f"{config.get('dataDir')}: the kit keeps both in zookeeper_data_dir. Move it by hand, then rerun.")))
        host_vars[host].update(zookeeper_id=hosts[host]["myid"], zookeeper_data_dir=config.get("dataDir"),
                               zookeeper_adopted_unit=process["unit"])
        if _inventory_id(kit, host) not in (None, hosts[host]["myid"]):
            refusals.append(_inventory_id_refusal(host, "zookeeper_id", kit["ids"][host], hosts[host]["myid"]))
        _process_vars(process, "zookeeper", host_vars[host])
        review[host] += _review(config, set(ZOOKEEPER_KEYS) | _ZOOKEEPER_READ, server_lines=True)
    refusals += _port_refusals(group, kit["ports"])
    changes = policy_changes(servers, group, host_vars, kit["policy"])
    group.update(kafka_metadata_mode="zookeeper", kafka_install_dir=ADOPTED_INSTALL_DIR,
                 kafka_home=f"{ADOPTED_INSTALL_DIR}/kafka")
    if refusals:
        return _refused(refusals)
    return {"refusals": [], "group_vars": {k: group[k] for k in sorted(group)}, "open": open_state(),
            "host_vars": host_vars, "review": review, "changes": changes}


def policy_changes(servers, group, host_vars, policy):
    """[(key, what the brokers run, what the takeover renders)] of TOPIC_POLICY where they differ. servers: {host:
    server.properties}; group, host_vars: the layer's variables (a value carried is rendered as the cluster has it);
    policy: {variable: value} of the kit's topic policy."""
    changes = []
    for key, (variable, default) in TOPIC_POLICY.items():
        running = {h: _text(s.get(key, default)) for h, s in servers.items()}
        rendered = {h: _text(host_vars[h].get(variable, group.get(variable, policy[variable]))) for h in servers}
        if running != rendered:
            changes.append((key, "/".join(sorted(set(running.values()))), "/".join(sorted(set(rendered.values())))))
    return changes


def _text(value):
    """A property's value as server.properties spells it (Ansible's booleans as true/false)."""
    value = str(value).strip()
    return value.lower() if value.lower() in ("true", "false") else value


def _refused(refusals):
    return {"refusals": refusals, "group_vars": {}, "open": {}, "host_vars": {}, "review": {}, "changes": []}


def open_state():
    """The variables of the open state the kit takes a cluster over in: the state secure_cluster.yml's first step
    leaves (PLAINTEXT kept for every client, as a super user; the secured listeners beside it; ZooKeeper plaintext
    without logins), with the exposures accepted by name, and the kit's own clients on PLAINTEXT until then."""
    settings = kafka_secure_conversion.role_settings(["secure-listeners"])
    return {**settings["kafka"], **settings["zookeeper"], "kafka_security_exposures_accepted": settings["accepted"],
            "kafka_client_security_protocol": "PLAINTEXT"}


def _describe_listeners(servers):
    return "; ".join(f"{h}: {s.get('listeners')}" for h, s in sorted(servers.items()))


def _process(seen, kind):
    return next(p for p in seen["processes"] if p["kind"] == kind)


def _carry(values, variable, kind, group, host_vars):
    """A setting the hosts set: a group variable when they agree, each host's own when they do not; left out where
    no host sets it (the kit's default applies)."""
    values = {h: v if kind in (list, bool) else _typed(kind, v) for h, v in values.items() if v is not None}
    if not values:
        return
    if len({repr(v) for v in values.values()}) == 1:
        group[variable] = next(iter(values.values()))
    else:
        for host, value in values.items():
            host_vars[host][variable] = value


def _process_vars(process, prefix, variables):
    if process.get("heap"):
        variables[f"{prefix}_heap_size"] = process["heap"]
    if process.get("java") and process["java"] != "/usr/bin/java":
        variables[f"{prefix}_java_bin"] = process["java"]


def _review(config, read, server_lines=False):
    """The keys of a config the plan does not carry, for a person to review (secret values hidden)."""
    return [(key, "(hidden: a secret)" if _SECRET.search(key) else value) for key, value in sorted(config.items())
            if key not in read and not (server_lines and key.startswith("server."))]


def _inventory_id(kit, host):
    """The id the inventory gives host (a number however the inventory spelled it), or None."""
    value = kit["ids"].get(host)
    return int(value) if str(value).strip().isdigit() else None


def _inventory_id_refusal(host, variable, inventory, running):
    return refusal("adopt-id-disagrees", (
        f"the inventory gives {host} {variable}={inventory}, and it runs id {running}: the kit would start it as "
        "another node. Correct the inventory (or leave the variable out: the layer carries the running id), then "
        "rerun."))


def _secured_refusals(servers, configs):
    secured = {h: {n: p for n, (p, _) in kafka_connection.listeners(s).items() if p != "PLAINTEXT"}
               for h, s in sorted(servers.items())}
    found = [f"{h}: {', '.join(f'{n} is {p}' for n, p in named.items())}" for h, named in secured.items() if named]
    found += [f"{h}: {key}" for h, s in sorted(servers.items()) for key in _SECURED_BROKER_KEYS
              if s.get(key) and s[key] != "false"]
    found += [f"{h}: {key}" for h, c in sorted(configs.items()) for key in _SECURED_ZOOKEEPER_KEYS
              if c.get(key) and c[key] != "false"]
    if not found:
        return []
    return [refusal("adopt-not-open", (
        "the cluster is (partly) secured: " + "; ".join(found) + ". The kit adopts open clusters (PLAINTEXT "
        "listeners, no authorizer, ZooKeeper without TLS or logins) and secures them with secure_cluster.yml; a "
        "secured cluster's certificates and credentials are not the kit's to take over."))]


def _ensemble_refusals(hosts, servers, members, ensembles, client_port):
    """The inventory's members must be the ensemble the members' zoo.cfg lists and the brokers connect to."""
    problems = []
    myids = sorted(hosts[h]["myid"] for h in members if hosts[h]["myid"] is not None)
    for host, (listed, _) in sorted(ensembles.items()):
        if sorted(listed) != myids:
            problems.append(refusal("adopt-other-ensemble", (
                f"{host}'s zoo.cfg lists members {sorted(listed)} and the inventory's ZooKeeper hosts run myids "
                f"{myids}: the kit would render an ensemble without the others. Put every member in the inventory "
                "(or take the stray lines out by hand), then rerun.")))
    names = {n for _, (listed, _) in ensembles.items() for n in listed.values()}
    for host, server in sorted(servers.items()):
        strays = [c for c in _connect(server)[0] if c.rpartition(":")[0] not in names
                  or c.rpartition(":")[2] != str(client_port)]
        if strays:
            problems.append(refusal("adopt-other-ensemble", (
                f"{host} connects to ZooKeeper at {', '.join(strays)}, which is not a member of the inventory's "
                f"ensemble ({', '.join(sorted(names))} on port {client_port}): it belongs to another ensemble, or "
                "its zookeeper.connect names the members otherwise. Make it name the members, then rerun.")))
    return problems


def _port_refusals(group, kit_ports):
    taken = {"kafka_plaintext_port": group.get("kafka_plaintext_port"),
             "zookeeper_plaintext_client_port": group.get("zookeeper_plaintext_client_port"),
             "zookeeper_peer_port": group.get("zookeeper_peer_port"),
             "zookeeper_election_port": group.get("zookeeper_election_port")}
    return [refusal("adopt-port-clash", (
        f"the cluster uses port {port} ({mine}) and the kit opens its {kit_variable} there: set {kit_variable} to a "
        "free port in the inventory, then rerun."))
        for mine, port in taken.items() for kit_variable, kit_port in sorted(kit_ports.items())
        if port is not None and str(port) == str(kit_port).strip() and kit_variable != mine]


def inventory_files(plan, existing):
    """The layer's files, {path under the layer dir: text}, from an adoption plan; existing: {path: its text} of the
    files already there. A file there without HEADER is a person's: refused (adopt-would-overwrite)."""
    changes = "".join(f"#   {key}: {running} -> {rendered}\n" for key, running, rendered in plan["changes"])
    files = {"hosts.yml": _hosts_file(), LAYER_FILES["cluster"]: _yaml(plan["group_vars"]) + (
                 "# The takeover changes the topic policy the brokers run (Kafka's default where their config sets "
                 "none) to the kit's:\n" + changes + "# To keep a value until the clients are ready, set its variable "
                 "here (connection role: the topic policy).\n" if changes else ""),
             LAYER_FILES["open"]: "# The open state the cluster was adopted in, its exposures accepted by name. Delete "
             "this file once secure_cluster.yml has secured the cluster.\n" + _yaml(plan["open"])}
    for host, variables in sorted(plan["host_vars"].items()):
        notes = "".join(f"#   {key}={value}\n" for key, value in plan["review"].get(host, []))
        files[f"host_vars/{host}.yml"] = _yaml(variables) + (
            "# Its config also sets these, which the kit does not carry (kafka_extra_properties or "
            "zookeeper_extra_config take what must stay):\n" + notes if notes else "")
    # a group_vars/all.yml beside the layer's group_vars/all/ would hide one of them from Ansible
    theirs = sorted(path for path, text in existing.items()
                    if (path in files or path == "group_vars/all.yml") and not text.startswith(HEADER))
    if theirs:
        return {"refusals": [refusal("adopt-would-overwrite", (
            f"the layer already holds {', '.join(theirs)}, which adopt_cluster.yml did not write: give "
            "adopt_inventory_dir a dir of its own (its files are read after the inventory's), then rerun."))],
            "files": {}}
    return {"refusals": [], "files": {path: f"{HEADER}\n---\n{text}" for path, text in files.items()}}


def _hosts_file():
    return "# No hosts: the inventory names them; this file makes the dir an inventory source.\nall: {}\n"


def _yaml(variables):
    """YAML of a flat dict, one line per variable (JSON values are YAML)."""
    return "".join(f"{key}: {json.dumps(value)}\n" for key, value in sorted(variables.items()))


def plan_lines(hosts, plan):
    """What adoption read and writes, one line per host then the shared settings, for the plan shown."""
    lines = []
    for host, variables in sorted(plan["host_vars"].items()):
        if "kafka_broker_id" in variables:
            lines.append(f"{host}: broker {variables['kafka_broker_id']} ({variables['kafka_adopted_unit']}), log "
                         f"dirs {', '.join(variables['kafka_log_dirs'])} kept in place")
        if "zookeeper_id" in variables:
            lines.append(f"{host}: ZooKeeper member {variables['zookeeper_id']} "
                         f"({variables['zookeeper_adopted_unit']}), data {variables['zookeeper_data_dir']} kept")
        if plan["review"].get(host):
            lines.append(f"{host}: not carried, for review: {', '.join(k for k, _ in plan['review'][host])}")
    group = plan["group_vars"]
    if group:
        lines.append(f"Kafka {group['kafka_version']} in ZooKeeper mode, PLAINTEXT on {group['kafka_plaintext_port']} "
                     f"and ZooKeeper on {group['zookeeper_plaintext_client_port']} kept open until "
                     "secure_cluster.yml (exposures accepted: "
                     f"{', '.join(plan['open']['kafka_security_exposures_accepted'])})")
    if plan["changes"]:
        lines.append("The takeover changes the topic policy the brokers run: " + "; ".join(
            f"{key} {running} -> {rendered}" for key, running, rendered in plan["changes"]))
    return lines
