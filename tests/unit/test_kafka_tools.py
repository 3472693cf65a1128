"""Parsing LogDirsCommand's answer and the bytes a rebuilt broker still has to copy."""

import contextlib
import json
import pathlib

import pytest

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_tools
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_tools import (
    bytes_to_copy,
    human_bytes,
    parse_log_dirs,
)


def _output(brokers):
    doc = {"version": 1, "brokers": [
        {"broker": b, "logDirs": [{"logDir": d, "error": None, "partitions": [
            {"partition": name, "size": size, "offsetLag": 0, "isFuture": future}
            for name, size, future in parts]}
            for d, parts in dirs.items()]} for b, dirs in brokers.items()]}
    return "Querying brokers for log directories information\nReceived log directory information from " \
           f"brokers 1,3\n{json.dumps(doc)}\n"


def test_parse_log_dirs_splits_topic_names_at_the_last_dash_and_keeps_a_moving_replica_once():
    text = _output({1: {"/d1": [("my-topic-0", 100, False), ("my-topic-12", 0, False)],
                        "/d2": [("my-topic-0", 40, True)]},
                    3: {"/d1": []}})
    assert parse_log_dirs(text) == {1: {("my-topic", 0): 100, ("my-topic", 12): 0}, 3: {}}


def test_parse_log_dirs_without_json_says_what_it_got():
    with pytest.raises(ValueError, match="no JSON"):
        parse_log_dirs("Exception in thread main\n")


PARTITIONS = [
    {"topic": "t", "partition": 0, "replicas": [1, 2, 3]},
    {"topic": "t", "partition": 1, "replicas": [3, 1]},      # broker 2 not a replica: not counted
    {"topic": "u", "partition": 0, "replicas": [2, 3, 1]},
]


def test_bytes_to_copy_takes_the_largest_other_replica_minus_its_own_copy():
    sizes = {1: {("t", 0): 1000, ("u", 0): 50}, 3: {("t", 0): 900, ("t", 1): 7777, ("u", 0): 60},
             2: {("t", 0): 400, ("u", 0): 80}}  # u-0: already larger than the others, nothing missing
    assert bytes_to_copy(PARTITIONS, sizes, 2) == (1060, 600)


def test_bytes_to_copy_of_an_empty_or_unknown_broker_is_everything():
    sizes = {1: {("t", 0): 1000}, 3: {("u", 0): 60}}
    assert bytes_to_copy(PARTITIONS, sizes, 2) == (1060, 1060)
    assert bytes_to_copy(PARTITIONS, {}, 2) == (0, 0)


@pytest.mark.parametrize("count, text", [(0, "0 B"), (1023, "1023 B"), (1536, "1.5 KiB"),
                                         (3 * 1024 ** 3, "3.0 GiB"), (5 * 1024 ** 5, "5120.0 TiB")])
def test_human_bytes(count, text):
    assert human_bytes(count) == text


def test_a_tool_reaches_zookeeper_with_the_modules_tls_and_login(tmp_path):
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nK\n-----END PRIVATE KEY-----\n")
    cert.write_text("-----BEGIN CERTIFICATE-----\nC\n-----END CERTIFICATE-----\n")
    params = {"zookeeper_tls": True, "zookeeper_ssl_ca_location": "/ca.pem",
              "zookeeper_ssl_certificate_location": str(cert), "zookeeper_ssl_key_location": str(key),
              "zookeeper_sasl_username": "kafka", "zookeeper_sasl_password": "pw"}
    with contextlib.ExitStack() as stack:
        args, jvm = kafka_tools.zookeeper_client_options(params, stack)
        assert args[0] == "--zk-tls-config-file"
        tls = dict(line.split("=", 1) for line in pathlib.Path(args[1]).read_text().splitlines())
        assert tls["zookeeper.ssl.client.enable"] == "true" and tls["zookeeper.ssl.truststore.location"] == "/ca.pem"
        keystore = pathlib.Path(tls["zookeeper.ssl.keystore.location"])
        assert keystore.read_text() == key.read_text() + cert.read_text()  # Java's PEM keystore: key, then chain
        assert oct(keystore.stat().st_mode & 0o777) == "0o600"
        login = pathlib.Path(jvm[0].split("=", 1)[1])
        assert 'username="kafka"' in login.read_text() and 'password="pw";' in login.read_text()
    assert not keystore.exists() and not login.exists()  # gone with the stack
    plain = {"zookeeper_tls": False, "zookeeper_sasl_username": None}
    assert kafka_tools.zookeeper_client_options(plain, contextlib.ExitStack()) == ([], [])


# kafka-features describe as 3.9.2's tool prints it (tab-separated; a level it does not know as "UNKNOWN 33") and as
# 4.4.0's does (padded with spaces), against the same 3.9-IV0 cluster on the lab
FEATURES_39 = (
    "Feature: kraft.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 0\tEpoch: 1707\n"
    "Feature: metadata.version\tSupportedMinVersion: 3.3-IV3\tSupportedMaxVersion: UNKNOWN 33\t"
    "FinalizedVersionLevel: 3.9-IV0\tEpoch: 1707\n"
    "Feature: transaction.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 2\tFinalizedVersionLevel: 0\t"
    "Epoch: 1707\n")
FEATURES = (
    "Feature: kraft.version                             SupportedMinVersion: 0                SupportedMaxVersion: 1"
    "                FinalizedVersionLevel: 0                Epoch: 1702\n"
    "Feature: metadata.version                          SupportedMinVersion: 3.3-IV3          SupportedMaxVersion: "
    "4.4-IV2          FinalizedVersionLevel: 4.4-IV2          Epoch: 1702\n"
    "Feature: transaction.version                       SupportedMinVersion: 0                SupportedMaxVersion: 2"
    "                FinalizedVersionLevel: 2                Epoch: 1702\n")


def test_parse_features_reads_numbered_and_named_levels_of_both_releases_tools():
    assert kafka_tools.parse_features(FEATURES) == {"kraft.version": 0, "metadata.version": "4.4-IV2",
                                                    "transaction.version": 2}
    assert kafka_tools.parse_features(FEATURES_39) == {"kraft.version": 0, "metadata.version": "3.9-IV0",
                                                       "transaction.version": 0}
    # 3.9.2's tool against a cluster finalized at 4.4-IV2, a name it does not know (a rollback's read, on the lab)
    unknown = "Feature: metadata.version\tSupportedMinVersion: 3.3-IV3\tSupportedMaxVersion: UNKNOWN 33\t" \
              "FinalizedVersionLevel: UNKNOWN 33\tEpoch: 2210\n"
    assert kafka_tools.parse_features(unknown) == {"metadata.version": 33}
    with pytest.raises(ValueError, match="no Feature line"):
        kafka_tools.parse_features("Error while describing features\n")


def test_parse_version_mapping_reads_each_features_level():
    mapping = "metadata.version=21 (3.9-IV0)\nkraft.version=1\ntransaction.version=0\n"  # 4.4.0's, for 3.9-IV0
    assert kafka_tools.parse_version_mapping(mapping) == {"metadata.version": 21, "kraft.version": 1,
                                                          "transaction.version": 0}
    with pytest.raises(ValueError, match="no metadata.version"):
        kafka_tools.parse_version_mapping("Unknown metadata.version 3.9-IV9\n")


def test_feature_levels_turn_metadata_versions_name_into_its_level(monkeypatch):
    monkeypatch.setattr(kafka_tools, "read_features", lambda home, conf, timeout: dict(
        kafka_tools.parse_features(FEATURES)))
    asked = []

    def run_tool(home, main_class, args, timeout):
        asked.append(args)
        return "metadata.version=33 (4.4-IV2)\nkraft.version=1\n"
    monkeypatch.setattr(kafka_tools, "run_tool", run_tool)
    assert kafka_tools.read_feature_levels("/opt/kafka", {}, 30) == {
        "kraft.version": 0, "metadata.version": 33, "transaction.version": 2}
    assert asked == []  # 4.4-IV2 is a line's own: the version table knows it
    monkeypatch.setattr(kafka_tools, "read_features", lambda home, conf, timeout: {"metadata.version": "4.0-IV3"})
    monkeypatch.setattr(kafka_tools, "run_tool", lambda home, main_class, args, timeout: asked.append(args) or (
        "metadata.version=25 (4.0-IV3)\n"))
    assert kafka_tools.read_feature_levels("/opt/kafka", {}, 30) == {"metadata.version": 25}
    assert asked == [["version-mapping", "--release-version", "4.0-IV3"]]


def test_parse_metadata_level_reads_the_feature_level_record_of_metadata_version():
    dump = (  # DumpLogSegments --cluster-metadata-decoder of a 4.4 bootstrap snapshot, shortened
        'Dumping /tmp/x.checkpoint\n'
        '| offset: 1 CreateTime: 1795782358397 keySize: 4 valueSize: 5 sequence: -1 headerKeys: [] KRaftVersion '
        '{"version":0,"kRaftVersion":1}\n'
        '| offset: 3 CreateTime: 1795782358455 keySize: -1 valueSize: 23 sequence: -1 headerKeys: [] payload: '
        '{"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"transaction.version","featureLevel":2}}\n'
        '| offset: 4 CreateTime: 1795782358455 keySize: -1 valueSize: 23 sequence: -1 headerKeys: [] payload: '
        '{"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":33}}\n')
    assert kafka_tools.parse_metadata_level(dump) == 33
    assert kafka_tools.parse_metadata_level("Dumping /tmp/x.checkpoint\n") is None


def _format(release, directory):
    """A controller's metadata dir as the release's kafka-storage formats it by default (4.x: a dynamic voter)."""
    from lab import config
    directory.mkdir()
    quorum = ("controller.quorum.bootstrap.servers=localhost:19090" if release.startswith("4.")
              else "controller.quorum.voters=1@localhost:19090")
    properties = directory / "c.properties"
    properties.write_text("process.roles=controller\nnode.id=1\ncontroller.listener.names=CONTROLLER\n"
                          f"listeners=CONTROLLER://localhost:19090\n{quorum}\nlog.dirs={directory}/meta\n")
    libs = config.kafka_libs(release)
    assert libs.is_dir(), f"{libs} missing: run make setup"
    import subprocess
    subprocess.run(["java", "-cp", f"{libs}/*", "kafka.tools.StorageTool", "format", "-t", "AAAAAAAAAAAAAAAAAAAAAQ",
                    "-c", str(properties), *(["--standalone"] if release.startswith("4.") else [])],
                   capture_output=True, check=True, timeout=120)
    return str(libs.parent), str(directory / "meta")


def test_each_releases_format_level_is_its_table_entry_and_an_older_release_refuses_a_newer_format(tmp_path):
    # The table's level is what the release's own kafka-storage formats at, read back by each release's own
    # DumpLogSegments (either may be kafka_tools_home); a release refuses only a format above its own level.
    from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_identity, kafka_versions
    formatted = {release: _format(release, tmp_path / release) for release in kafka_versions.RELEASES}
    for release, (_, meta_dir) in formatted.items():
        dirs = kafka_identity.report([kafka_identity.read_meta(meta_dir)], 1)
        expected = kafka_versions.facts(release)["metadata_version"][0]
        for tools_home, _ in formatted.values():
            assert kafka_tools.read_metadata_levels(tools_home, dirs, 60) == {meta_dir: expected}
        for cluster_release in kafka_versions.RELEASES:
            facts = kafka_versions.facts(cluster_release)
            refused = kafka_versions.newer_format_refusals({meta_dir: expected}, cluster_release)
            assert [r["rule"] for r in refused] == (
                ["version-newer-format"] if expected > facts["metadata_version"][0] else [])
        # what the plan modules call: the levels read, then the same decision
        assert kafka_tools.newer_format_refusals(tools_home, dirs, "3.9.2", 60) == \
            kafka_versions.newer_format_refusals({meta_dir: expected}, "3.9.2")
        with pytest.raises(RuntimeError, match=f"cannot read the metadata.version {meta_dir} was formatted at: "
                                               "kafka_tools_home .* must be a Kafka distribution"):
            kafka_tools.newer_format_refusals(str(tmp_path / "no-tools"), dirs, release, 60)
    assert kafka_versions.newer_format_refusals(
        {"/d": kafka_versions.facts("4.4.0")["metadata_version"][0]}, "3.9.2")[0]["message"].startswith(
        "/d was formatted at metadata.version level 33, above the highest Kafka 3.9.2 runs (3.9-IV0, level 21)")
