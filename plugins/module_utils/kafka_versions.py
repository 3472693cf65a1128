"""The Kafka releases the kit runs, as data, and the refusals they imply.

Facts are per release line ("3.6" for 3.6.0, 3.6.1, 3.6.2): what differs between releases of one line is fixes, not
what the kit writes or runs. A next 4.x line is a new entry of LINES (with the keys it removed, if any), not new code.
The roles, the archive builder (dist/build_kafka_archive.sh) and the lab read the facts from here:
- zookeeper: whether the line has ZooKeeper mode (4.x is KRaft only);
- kraft: whether the kit runs the line in KRaft mode (3.9, the migration's release, and 4.x; a KRaft cluster of an
  older line is not one the kit deploys);
- java: the lowest Java major release its servers and tools run on;
- logging: its name, "log4j" (log4j 1.x syntax, through log4j 1.2.17 or reload4j) or "log4j2" (log4j-core; the
  builder adds the matching SLF4J binding), the file the roles write (their template of that name) and the JVM
  option that names it;
- tools: the main classes of Kafka's tools the roles run on the hosts (the modules run the tools of
  kafka_tools_home, a built release, on the Ansible controller);
- quorum: how a new KRaft cluster's controllers are formatted: "static" (controller.quorum.voters) or "dynamic"
  (KIP-853: --initial-controllers, controller.quorum.bootstrap.servers);
- converts_quorum: whether a static quorum can be made dynamic on it (the kraft.version 1 upgrade: 4.1 and later);
- removed: the server configs earlier releases had and this one refuses to start with;
- ibp: the inter.broker.protocol.version it writes (ZooKeeper mode), its short form;
- metadata_version: its highest production metadata.version, (feature level, name): for a KRaft line the one its
  kafka-storage formats at (a metadata dir formatted at a higher level, by a newer release's tool, is one it cannot
  read: dist/MetadataVersions.java), for every line the full version its ibp stands for;
- zookeeper_release: the ZooKeeper its jars bring (3.9's upgrade notes want the ensemble at 3.8.3 or later first);
- pem_key: whether its brokers read a PEM keystore's key unencrypted; 2.8-3.2's want it encrypted and
  ssl.key.password (KAFKA-12703, fixed in 3.3: the message "SSL PEM key store is specified, but key password is not
  specified" is in kafka-clients up to 3.2.3, not in 3.3.2), and the kafka_broker role writes them one;
- features: the features an upgrade to it finalizes, {name: level} (KRaft lines), the levels its kafka-storage
  formats a new cluster at except kraft.version (convert_quorum_to_dynamic.yml's).
METADATA_CHANGES are the metadata.version levels that change metadata (4.4.0's MetadataVersion.didMetadataChange):
raising metadata.version across one cannot be undone.
RELEASES are the releases the kit builds (make setup) and deploys new clusters with; the lab's legacy releases are
built on demand. KNOWN_BAD are releases the kit refuses by name, with the reason. Sources: Kafka's upgrade notes and
compatibility matrix, the releases' own jars (docs/design/upgrade-research.md); the removed keys were read from the
releases' own KafkaConfig (dist/ServerConfigNames.java).
"""

from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal

_ZOOKEEPER_TOOLS = {"zk_security_migrator": "kafka.admin.ZkSecurityMigrator"}
_TOOLS_3 = {
    "storage": "kafka.tools.StorageTool",
    "metadata_quorum": "org.apache.kafka.tools.MetadataQuorumCommand",
    "jmx": "org.apache.kafka.tools.JmxTool",
    **_ZOOKEEPER_TOOLS,  # ZooKeeper mode only
}
_TOOLS_4 = {k: v for k, v in _TOOLS_3.items() if k not in _ZOOKEEPER_TOOLS}

_LOG4J = {"name": "log4j", "file": "log4j.properties", "option": "-Dlog4j.configuration=file:"}
_LOG4J2 = {"name": "log4j2", "file": "log4j2.yaml", "option": "-Dlog4j2.configurationFile="}

# Server configs of 3.9.2 that 4.4.0 does not know (KafkaConfig.configDef().names() of each release, compared).
REMOVED_IN_4 = (
    "alter.config.policy.kraft.compatibility.enable", "auto.include.jmx.reporter",
    "broker.id.generation.enable", "control.plane.listener.name", "controlled.shutdown.max.retries",
    "controlled.shutdown.retry.backoff.ms", "delegation.token.master.key", "eligible.leader.replicas.enable",
    "group.coordinator.new.enable", "group.share.enable", "group.share.max.groups", "inter.broker.protocol.version",
    "leader.imbalance.per.broker.percentage", "log.message.downconversion.enable", "log.message.format.version",
    "log.message.timestamp.difference.max.ms", "metadata.log.segment.min.bytes", "offsets.commit.required.acks",
    "password.encoder.cipher.algorithm", "password.encoder.iterations", "password.encoder.key.length",
    "password.encoder.keyfactory.algorithm", "password.encoder.old.secret", "password.encoder.secret",
    "reserved.broker.max.id", "zookeeper.clientCnxnSocket", "zookeeper.connect", "zookeeper.connection.timeout.ms",
    "zookeeper.max.in.flight.requests", "zookeeper.metadata.migration.enable",
    "zookeeper.metadata.migration.min.batch.size", "zookeeper.session.timeout.ms", "zookeeper.set.acl",
    "zookeeper.ssl.cipher.suites", "zookeeper.ssl.client.enable", "zookeeper.ssl.crl.enable",
    "zookeeper.ssl.enabled.protocols", "zookeeper.ssl.endpoint.identification.algorithm",
    "zookeeper.ssl.keystore.location", "zookeeper.ssl.keystore.password", "zookeeper.ssl.keystore.type",
    "zookeeper.ssl.ocsp.enable", "zookeeper.ssl.protocol", "zookeeper.ssl.truststore.location",
    "zookeeper.ssl.truststore.password", "zookeeper.ssl.truststore.type")


def _zookeeper_line(ibp, metadata_version, zookeeper_release, jmx="org.apache.kafka.tools.JmxTool", pem_key=True):
    """A 2.8-3.8 line: ZooKeeper mode only as far as the kit goes, Java 8, log4j 1.x syntax."""
    return {"zookeeper": True, "kraft": False, "java": 8, "logging": _LOG4J,
            "tools": {**_ZOOKEEPER_TOOLS, "jmx": jmx}, "quorum": "static", "converts_quorum": False, "removed": (),
            "ibp": ibp, "metadata_version": metadata_version, "zookeeper_release": zookeeper_release, "features": {},
            "pem_key": pem_key}


_OLD_JMX = "kafka.tools.JmxTool"  # moved to org.apache.kafka.tools in 3.5

# The metadata versions are each line's last (3.9.2's MetadataVersion.fromVersionString of the short ibp).
LINES = {
    "2.8": _zookeeper_line("2.8", (-1, "2.8-IV1"), "3.5.9", _OLD_JMX, pem_key=False),
    "3.0": _zookeeper_line("3.0", (1, "3.0-IV1"), "3.6.3", _OLD_JMX, pem_key=False),
    "3.1": _zookeeper_line("3.1", (2, "3.1-IV0"), "3.6.3", _OLD_JMX, pem_key=False),
    "3.2": _zookeeper_line("3.2", (3, "3.2-IV0"), "3.6.3", _OLD_JMX, pem_key=False),
    "3.3": _zookeeper_line("3.3", (7, "3.3-IV3"), "3.6.3", _OLD_JMX),
    "3.4": _zookeeper_line("3.4", (8, "3.4-IV0"), "3.6.4", _OLD_JMX),
    "3.5": _zookeeper_line("3.5", (11, "3.5-IV2"), "3.6.4"),
    "3.6": _zookeeper_line("3.6", (14, "3.6-IV2"), "3.8.4"),
    "3.7": _zookeeper_line("3.7", (19, "3.7-IV4"), "3.8.4"),
    "3.8": _zookeeper_line("3.8", (20, "3.8-IV0"), "3.8.4"),
    "3.9": {"zookeeper": True, "kraft": True, "java": 8, "logging": _LOG4J, "tools": _TOOLS_3, "quorum": "static",
            "converts_quorum": False, "removed": (), "ibp": "3.9", "metadata_version": (21, "3.9-IV0"),
            "zookeeper_release": "3.8.4", "features": {"metadata.version": 21}, "pem_key": True},
    "4.4": {"zookeeper": False, "kraft": True, "java": 17, "logging": _LOG4J2, "tools": _TOOLS_4, "quorum": "dynamic",
            "converts_quorum": True, "removed": REMOVED_IN_4, "ibp": None, "metadata_version": (33, "4.4-IV2"),
            "zookeeper_release": None, "pem_key": True,
            "features": {"metadata.version": 33, "eligible.leader.replicas.version": 1, "group.version": 1,
                         "share.version": 2, "streams.version": 1, "transaction.version": 2}},
}

METADATA_CHANGES = (23, 30, 32, 33)  # 4.0-IV1, 4.3-IV0, 4.4-IV1, 4.4-IV2

RELEASES = ("3.9.2", "4.4.0")

KNOWN_BAD = {
    "4.1.0": "Kafka Streams leaks memory (KAFKA-19748); take 4.1.1 or later",
    "4.2.0": "transactions break while brokers of two versions run side by side in a roll (KAFKA-20322); take 4.2.1 "
             "or later",
}


def line(version):
    """The release line of a release ('3.6.2' -> '3.6'), or None for a string that is not major.minor.patch."""
    parts = str(version).split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        return None
    return f"{int(parts[0])}.{int(parts[1])}"


def facts(version):
    """The table's entry for version's line; ValueError naming the lines the kit runs for any other."""
    if line(version) not in LINES:
        raise ValueError(f"Kafka {version} is not one the kit runs (lines {', '.join(LINES)})")
    return LINES[line(version)]


def new_quorum(version):
    """The quorum kind a new KRaft cluster of this release gets; static for a release the kit does not run, which
    version_refusals refuses before any host changes (the connection role's default must not fail before that)."""
    return LINES.get(line(version), {}).get("quorum", "static")


def java_major(version_output):
    """The major release of a `java -version` output ('openjdk version "17.0.15" ...' -> 17, '"1.8.0_392"' -> 8),
    or None when it names none."""
    for line in version_output.splitlines():
        if " version \"" in line:
            number = line.split('"')[1]
            parts = number.split(".")
            major = parts[1] if parts[0] == "1" and len(parts) > 1 else parts[0]
            digits = "".join(ch for ch in major if ch.isdigit())
            return int(digits) if digits else None
    return None


def version_refusals(version, metadata_mode, properties, java_versions):
    """Why the hosts of a run cannot run Kafka `version`, one refusal per cause; [] when they can.

    metadata_mode is the inventory's kafka_metadata_mode; properties the keys the inventory adds to the server's
    config (kafka_extra_properties / kafka_controller_extra_properties); java_versions {where: `java -version`
    output} of the JVMs that will run it (the host's, the Ansible controller's for Kafka's tools), '' where no Java
    is installed yet (the common role installs one)."""
    if version in KNOWN_BAD:
        return [refusal("version-known-bad", f"Kafka {version} is a known-bad release: {KNOWN_BAD[version]}. Set "
                                             "kafka_version to another release.")]
    if line(version) not in LINES:
        return [refusal("version-unknown", f"Kafka {version} is not one the kit runs (lines {', '.join(LINES)}): set "
                                           "kafka_version to a release of one of them (a new line is an entry of "
                                           "plugins/module_utils/kafka_versions.py).")]
    entry = facts(version)
    problems = []
    if metadata_mode != "kraft" and not entry["zookeeper"]:
        problems.append(refusal(
            "version-zookeeper-on-4",
            f"Kafka {version} has no ZooKeeper mode and this cluster's kafka_metadata_mode is {metadata_mode}: "
            "migrate it to KRaft on 3.9 first (playbooks/migrate_to_kraft.yml), then move to "
            f"{version}."))
    if metadata_mode == "kraft" and not entry["kraft"]:
        problems.append(refusal(
            "version-kraft-too-old",
            f"The kit runs KRaft on 3.9 and later, and kafka_version is {version}: upgrade the cluster in ZooKeeper "
            "mode to 3.9 first (playbooks/upgrade_kafka.yml), then migrate it (playbooks/migrate_to_kraft.yml)."))
    removed = sorted(set(properties) & set(entry["removed"]))
    if removed:
        problems.append(refusal(
            "version-removed-config",
            f"Kafka {version} no longer has {', '.join(removed)} and would not start with them: remove them from the "
            "inventory's extra properties."))
    for where, output in sorted(java_versions.items()):
        major = java_major(output) if output else None
        if output and (major is None or major < entry["java"]):
            problems.append(refusal(
                "version-java-too-old",
                f"Kafka {version} needs Java {entry['java']} or later; {where} runs "
                f"{'Java ' + str(major) if major else 'an unknown Java (' + output.strip()[:80] + ')'}: install "
                f"Java {entry['java']}+ there (common_java_package, kafka_java_bin)."))
    return problems


def newer_format_refusals(levels, version):
    """Why release version must not start on a replacement's metadata dirs: kafka-storage formatted one at a
    metadata.version level above the highest it knows (a newer release's tool; Kafka's 4.4 notes: storage formatted
    by a newer kafka-storage is not readable by older brokers). levels: {dir: the level its bootstrap checkpoint
    records}."""
    highest, name = facts(version)["metadata_version"]
    return [refusal("version-newer-format", (
        f"{path} was formatted at metadata.version level {level}, above the highest Kafka {version} runs ({name}, "
        f"level {highest}): a newer release's kafka-storage formatted it, and Kafka {version} cannot read it. Empty "
        "the dir (the playbook formats it with the cluster's release) and rerun."))
        for path, level in sorted(levels.items()) if level > highest]
