"""Kafka's own command-line tools, for what the Python clients cannot do, run from a Kafka distribution
on the machine that runs the module (the controller): `java -cp <kafka_tools_home>/libs/* <main class>`.

- LogDirsCommand (kafka-log-dirs.sh): replica sizes on disk, for the bytes a rebuilt or replaced broker
  must copy and the ETA of its catch-up (the Python client has no DescribeLogDirs).
- ConfigCommand --zookeeper (kafka-configs.sh): a dynamic config of a broker that is not running (the
  AdminClient can only reach running brokers; Kafka accepts this path only for a broker that is down).
- MetadataQuorumCommand (kafka-metadata-quorum.sh): a KRaft cluster's quorum, through the brokers (the Python
  client has no DescribeQuorum).
- FeatureCommand (kafka-features.sh): the cluster's finalized feature levels, and their upgrade (the Python client
  has no DescribeFeatures / UpdateFeatures).
- DumpLogSegments (kafka-dump-log.sh --cluster-metadata-decoder): the metadata.version a metadata dir was formatted
  at, from its bootstrap checkpoint (the records are Kafka's own binary format).
"""

import base64
import contextlib
import json
import os
import re
import subprocess
import tempfile

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_connection, kafka_versions

LOG_DIRS_COMMAND = "org.apache.kafka.tools.LogDirsCommand"
CONFIG_COMMAND = "kafka.admin.ConfigCommand"
METADATA_QUORUM_COMMAND = "org.apache.kafka.tools.MetadataQuorumCommand"
FEATURE_COMMAND = "org.apache.kafka.tools.FeatureCommand"
# DumpLogSegments moved from core (Scala) to the tools jar in 4.0; kafka_tools_home may hold either release.
DUMP_LOG_COMMANDS = ("org.apache.kafka.tools.DumpLogSegments", "kafka.tools.DumpLogSegments")


def tools_problem(kafka_tools_home):
    """Why Kafka's tools cannot run from kafka_tools_home, or None when they can."""
    if not kafka_tools_home or not os.path.isdir(os.path.join(kafka_tools_home, "libs")):
        return (f"kafka_tools_home ({kafka_tools_home!r}) must be a Kafka distribution with libs/ on the machine "
                "running this module, to run Kafka's own tools")
    return None


def tool_command(kafka_tools_home, main_class, args, jvm_options=(), java="java"):
    """The command line of one of Kafka's tools: `java -cp <kafka_tools_home>/libs/* <main class> <args>`."""
    return [java, "-Xmx256m", *jvm_options, "-cp", os.path.join(str(kafka_tools_home), "libs", "*"), main_class,
            *args]


def run_tool(kafka_tools_home, main_class, args, timeout, jvm_options=()):
    """Run one of Kafka's tools; its stdout, or RuntimeError with the end of its stderr."""
    problem = tools_problem(kafka_tools_home)
    if problem:
        raise RuntimeError(problem)
    command = tool_command(kafka_tools_home, main_class, args, jvm_options)
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout + 60, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{main_class.rsplit('.', 1)[-1]} failed ({done.returncode}): "
                           f"{(done.stderr or done.stdout).strip()[-500:]}")
    return done.stdout


def parse_log_dirs(output):
    """{broker id: {(topic, partition): bytes}} from the tool's --describe output (its JSON line).
    A replica in several log dirs (a future replica being moved) counts once, its largest copy."""
    line = next((ln for ln in output.splitlines() if ln.startswith("{")), None)
    if line is None:
        raise ValueError(f"no JSON in the log dirs output: {output.strip()[-300:]!r}")
    sizes = {}
    for broker in json.loads(line)["brokers"]:
        replicas = sizes.setdefault(int(broker["broker"]), {})
        for log_dir in broker["logDirs"]:
            for replica in log_dir.get("partitions", []):
                topic, _, partition = replica["partition"].rpartition("-")
                key = (topic, int(partition))
                replicas[key] = max(replicas.get(key, 0), int(replica["size"]))
    return sizes


def bytes_to_copy(partitions, sizes, broker_id):
    """What broker_id still has to fetch: per partition it hosts, the largest copy on another replica
    minus its own copy (never below 0). Returns (total bytes of those copies, bytes still missing)."""
    total = missing = 0
    for p in partitions:
        if broker_id not in p["replicas"]:
            continue
        key = (p["topic"], p["partition"])
        source = max((sizes.get(r, {}).get(key, 0) for r in p["replicas"] if r != broker_id), default=0)
        total += source
        missing += max(source - sizes.get(broker_id, {}).get(key, 0), 0)
    return total, missing


def command_config(client_conf):
    """A --command-config file (0600, deleted on closing) holding the Java client properties of a librdkafka
    configuration (kafka_connection.admin_config): the tool connects as the modules do."""
    return _private_file("kafkaops-client-", ".properties",
                         kafka_connection.properties_text(kafka_connection.java_client_properties(client_conf)))


def read_log_dir_sizes(kafka_tools_home, client_conf, broker_ids, timeout):
    """Replica sizes on the given live brokers (see parse_log_dirs)."""
    if not broker_ids:
        return {}
    with command_config(client_conf) as config:
        args = ["--describe", "--bootstrap-server", client_conf["bootstrap.servers"], "--command-config", config.name,
                "--broker-list", ",".join(map(str, broker_ids))]
        return parse_log_dirs(run_tool(kafka_tools_home, LOG_DIRS_COMMAND, args, timeout))


def read_quorum(kafka_tools_home, client_conf, timeout):
    """A KRaft cluster's quorum as its leader reports it, asked through the brokers:
    {"status": kafka_kraft.parse_quorum_status, "replication": kafka_kraft.parse_quorum_replication}."""
    from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft
    with command_config(client_conf) as config:
        args = ["--bootstrap-server", client_conf["bootstrap.servers"], "--command-config", config.name, "describe"]
        status = run_tool(kafka_tools_home, METADATA_QUORUM_COMMAND, args + ["--status"], timeout)
        replication = run_tool(kafka_tools_home, METADATA_QUORUM_COMMAND, args + ["--replication"], timeout)
    return {"status": kafka_kraft.parse_quorum_status(status),
            "replication": kafka_kraft.parse_quorum_replication(replication)}


def parse_features(text):
    """{feature: finalized level} from `kafka-features describe` (lines of "Key: value" fields, separated by tabs up to
    3.9, by runs of spaces from 4.x; a level is an int, metadata.version's a release name like 3.9-IV0, or the level
    itself where the tool does not know its name, as 3.9's "UNKNOWN 33"; a feature not finalized: 0)."""
    features = {}
    for line in text.splitlines():
        fields = dict(field.split(": ", 1) for field in re.split(r"\t| {2,}", line.strip()) if ": " in field)
        if "Feature" in fields:
            level = fields.get("FinalizedVersionLevel", "0").strip().removeprefix("UNKNOWN ")
            features[fields["Feature"].strip()] = int(level) if level.lstrip("-").isdigit() else level
    if not features:
        raise ValueError(f"no Feature line in the features output: {text.strip()[:200]!r}")
    return features


def read_features(kafka_tools_home, client_conf, timeout):
    """The cluster's finalized feature levels (parse_features), asked through the brokers."""
    with command_config(client_conf) as config:
        args = ["--bootstrap-server", client_conf["bootstrap.servers"], "--command-config", config.name, "describe"]
        return parse_features(run_tool(kafka_tools_home, FEATURE_COMMAND, args, timeout))


def parse_version_mapping(text):
    """{feature: level} from `kafka-features version-mapping` (lines "metadata.version=21 (3.9-IV0)")."""
    levels = {}
    for line in text.splitlines():
        name, found, value = line.strip().partition("=")
        if found:
            levels[name] = int(value.split()[0])
    if "metadata.version" not in levels:
        raise ValueError(f"no metadata.version in the version mapping: {text.strip()[:200]!r}")
    return levels


def read_feature_levels(kafka_tools_home, client_conf, timeout):
    """read_features with every level a number: metadata.version's release name (3.9-IV0) as its feature level, a
    line's own from the version table (older tools than the cluster's do not know newer names, as in a rollback's
    read), any other as Kafka's own version-mapping gives it."""
    known = {name: level for level, name in (f["metadata_version"] for f in kafka_versions.LINES.values())}
    features = read_features(kafka_tools_home, client_conf, timeout)
    for name, level in features.items():
        if not isinstance(level, int):
            args = ["version-mapping", "--release-version", level]
            features[name] = known[level] if level in known else parse_version_mapping(
                run_tool(kafka_tools_home, FEATURE_COMMAND, args, timeout))[name]
    return features


def upgrade_features(kafka_tools_home, client_conf, levels, timeout, dry_run=False):
    """Raise features to levels ({name: level}) in one kafka-features upgrade with an explicit --feature each, never
    --release-version (which would raise kraft.version too); dry_run: Kafka's controller only validates them against
    every registration."""
    with command_config(client_conf) as config:
        args = ["--bootstrap-server", client_conf["bootstrap.servers"], "--command-config", config.name, "upgrade"]
        args += [f"--feature={name}={level}" for name, level in levels.items()] + (["--dry-run"] if dry_run else [])
        return run_tool(kafka_tools_home, FEATURE_COMMAND, args, timeout)


def parse_metadata_level(output):
    """The metadata.version feature level a metadata snapshot records, from DumpLogSegments --cluster-metadata-decoder
    (a record a line, its JSON after "payload: "), or None when it records none."""
    for line in output.splitlines():
        _, found, payload = line.partition(" payload: ")
        if found:
            record = json.loads(payload)
            data = record.get("data", {})
            if record.get("type") == "FEATURE_LEVEL_RECORD" and data.get("name") == "metadata.version":
                return int(data["featureLevel"])
    return None


def read_metadata_levels(kafka_tools_home, dirs, timeout):
    """{dir: parse_metadata_level} of the dirs (kafka_identity.report rows) that hold a bootstrap checkpoint, decoded
    with Kafka's DumpLogSegments from kafka_tools_home; dirs whose checkpoint records no level are left out."""
    levels = {}
    for d in dirs:
        if not d.get("bootstrap"):
            continue
        with tempfile.TemporaryDirectory(prefix="kafkaops-bootstrap-") as scratch:
            # named as a snapshot at offset 0, epoch 0: the tool reads the offset from the file's name
            snapshot = os.path.join(scratch, "00000000000000000000-0000000000.checkpoint")
            with open(snapshot, "wb") as handle:
                handle.write(base64.b64decode(d["bootstrap"]))
            args = ["--cluster-metadata-decoder", "--files", snapshot]
            try:
                output = run_tool(kafka_tools_home, DUMP_LOG_COMMANDS[0], args, timeout)
            except RuntimeError as exc:
                if "Could not find or load main class" not in str(exc):
                    raise
                output = run_tool(kafka_tools_home, DUMP_LOG_COMMANDS[1], args, timeout)
        level = parse_metadata_level(output)
        if level is not None:
            levels[d["path"]] = level
    return levels


def newer_format_refusals(kafka_tools_home, dirs, version, timeout):
    """kafka_versions.newer_format_refusals of the dirs (kafka_identity.report rows), their levels read by
    read_metadata_levels; RuntimeError naming the dirs when they cannot be read."""
    try:
        levels = read_metadata_levels(kafka_tools_home, dirs, timeout)
    except Exception as exc:
        paths = ", ".join(d["path"] for d in dirs if d.get("bootstrap"))
        raise RuntimeError(f"cannot read the metadata.version {paths} was formatted at: "
                           f"{kafka_connection.describe_error(exc)}") from exc
    return kafka_versions.newer_format_refusals(levels, version)


def _private_file(prefix, suffix, text):
    """A temporary file (0600, deleted on closing) holding text."""
    handle = tempfile.NamedTemporaryFile("w", prefix=prefix, suffix=suffix)
    handle.write(text)
    handle.flush()
    return handle


def zookeeper_client_options(params, stack):
    """(tool arguments, JVM options) for a tool to reach ZooKeeper as the modules do (params): a
    --zk-tls-config-file for TLS with the client certificate (Java reads key and certificate from one PEM
    keystore) and a JAAS file for the SASL login. The files are deleted when stack (an ExitStack) closes."""
    args, jvm_options = [], []
    if params.get("zookeeper_tls"):
        with open(params["zookeeper_ssl_key_location"], encoding="ascii") as key, \
                open(params["zookeeper_ssl_certificate_location"], encoding="ascii") as cert:
            keystore = stack.enter_context(_private_file("kafkaops-zk-", ".pem", key.read() + cert.read()))
        tls = kafka_connection.zookeeper_tls_properties(keystore.name, params["zookeeper_ssl_ca_location"])
        config = stack.enter_context(_private_file("kafkaops-zk-", ".properties",
                                                   "".join(f"{k}={v}\n" for k, v in tls.items())))
        args += ["--zk-tls-config-file", config.name]
    jaas = kafka_connection.zookeeper_jaas(params)
    if jaas:
        login = stack.enter_context(_private_file("kafkaops-zk-", ".jaas", jaas))
        jvm_options.append(f"-Djava.security.auth.login.config={login.name}")
    return args, jvm_options


def alter_stopped_broker_config(kafka_tools_home, params, broker_id, set_configs, delete_names, timeout):
    """Set and delete dynamic configs of a broker that is not running, through ZooKeeper (reached with the
    modules' ZooKeeper client options, params)."""
    args = ["--zookeeper", params["zookeeper_connect"], "--alter",
            "--entity-type", "brokers", "--entity-name", str(broker_id)]
    if set_configs:
        args += ["--add-config", ",".join(f"{k}={v}" for k, v in sorted(set_configs.items()))]
    if delete_names:
        args += ["--delete-config", ",".join(sorted(delete_names))]
    with contextlib.ExitStack() as stack:
        zookeeper_args, jvm_options = zookeeper_client_options(params, stack)
        run_tool(kafka_tools_home, CONFIG_COMMAND, args + zookeeper_args, timeout, jvm_options=jvm_options)


def human_bytes(count):
    """1536 -> '1.5 KiB'."""
    units, i = ("B", "KiB", "MiB", "GiB", "TiB"), 0
    while count >= 1024 and i < len(units) - 1:
        count, i = count / 1024, i + 1
    return f"{count:.0f} B" if i == 0 else f"{count:.1f} {units[i]}"
