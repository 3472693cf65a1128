"""The version table and its refusals (module_utils/kafka_versions), on hand-written inputs."""

import pathlib

import pytest

from plugins.module_utils import kafka_versions as kv

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
JAVA_17 = 'openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)\n'
JAVA_8 = 'openjdk version "1.8.0_392"\nOpenJDK Runtime Environment (build 1.8.0_392-b08)\n'
JAVA_11 = 'openjdk version "11.0.21" 2023-10-17\n'


def rules(problems):
    return [p["rule"] for p in problems]


def test_java_major_reads_the_old_and_the_new_numbering():
    assert kv.java_major(JAVA_17) == 17
    assert kv.java_major(JAVA_8) == 8
    assert kv.java_major('java version "21" 2023-09-19 LTS\n') == 21
    assert kv.java_major("bash: java: command not found") is None


def test_every_line_has_every_fact():
    keys = {"zookeeper", "kraft", "java", "logging", "tools", "quorum", "converts_quorum", "removed", "ibp",
            "metadata_version", "zookeeper_release", "features", "pem_key"}
    for name, entry in kv.LINES.items():
        assert set(entry) == keys, name
        assert entry["logging"]["name"] in ("log4j", "log4j2")
        assert (REPO / "roles" / "kafka_broker" / "templates" / f"{entry['logging']['file']}.j2").is_file()
        assert (REPO / "roles" / "kafka_controller" / "templates" / f"{entry['logging']['file']}.j2").is_file()
        assert entry["quorum"] in ("static", "dynamic")
        assert isinstance(entry["converts_quorum"], bool)
        assert "jmx" in entry["tools"]
        assert {"storage", "metadata_quorum"} <= set(entry["tools"]) or not entry["kraft"]
        assert ("zk_security_migrator" in entry["tools"]) == entry["zookeeper"]
        assert (entry["ibp"] == name) == entry["zookeeper"]
        assert (entry["zookeeper_release"] is None) != entry["zookeeper"]
        level, version = entry["metadata_version"]  # test_kafka_tools.py shows the level is the release's own format
        assert isinstance(level, int) and version.startswith(name + "-IV")
    # ordered by release, each line's metadata.version above the one before (the order upgrades go)
    assert [entry["metadata_version"][0] for entry in kv.LINES.values()] == sorted(
        entry["metadata_version"][0] for entry in kv.LINES.values())


def test_a_release_s_facts_are_its_line_s_and_the_built_releases_are_lines_of_the_table():
    assert kv.line("3.6.2") == "3.6" and kv.line("10.0.1") == "10.0"
    assert [kv.line(v) for v in ("3.6", "3.6.2-rc1", "", None, "a.b.c")] == [None] * 5
    assert kv.facts("3.6.0") is kv.facts("3.6.2") is kv.LINES["3.6"]
    assert all(kv.line(release) in kv.LINES for release in kv.RELEASES)
    assert kv.facts("2.8.2")["ibp"] == "2.8" and kv.facts("2.8.2")["zookeeper_release"] == "3.5.9"


def test_4_x_is_kraft_only_on_java_17_with_log4j2_and_without_zookeeper_s_tools():
    entry = kv.facts("4.4.0")
    assert (entry["zookeeper"], entry["java"], entry["logging"]["name"], entry["quorum"]) == (False, 17, "log4j2",
                                                                                               "dynamic")
    assert "zk_security_migrator" not in entry["tools"]
    named_in_the_upgrade_notes = {"zookeeper.connect", "inter.broker.protocol.version", "broker.id.generation.enable",
                                  "reserved.broker.max.id", "control.plane.listener.name", "log.message.format.version"}
    assert named_in_the_upgrade_notes <= set(entry["removed"])


def test_an_unknown_release_names_the_lines_the_kit_runs():
    with pytest.raises(ValueError, match=r"lines 2\.8, 3\.0, .*, 3\.9, 4\.4\)"):
        kv.facts("2.7.2")
    for unknown in ("2.7.2", "4.5.0", "3.9"):
        assert rules(kv.version_refusals(unknown, "zookeeper", [], {})) == ["version-unknown"]
    assert kv.version_refusals("3.8.1", "zookeeper", [], {}) == []


def test_kraft_before_3_9_is_refused_and_zookeeper_mode_from_3_0_is_not():
    problems = kv.version_refusals("3.6.2", "kraft", [], {})
    assert rules(problems) == ["version-kraft-too-old"]
    assert "upgrade_kafka.yml" in problems[0]["message"] and "migrate_to_kraft.yml" in problems[0]["message"]
    assert kv.version_refusals("3.0.2", "zookeeper", [], {"kafka1": JAVA_8}) == []
    assert kv.version_refusals("3.9.2", "kraft", [], {}) == []


def test_a_known_bad_release_is_refused_by_name():
    problems = kv.version_refusals("4.2.0", "kraft", [], {})
    assert rules(problems) == ["version-known-bad"]
    assert "KAFKA-20322" in problems[0]["message"]


def test_zookeeper_mode_on_4_x_says_to_migrate_on_3_9_first():
    problems = kv.version_refusals("4.4.0", "zookeeper", [], {})
    assert rules(problems) == ["version-zookeeper-on-4"]
    assert "migrate_to_kraft.yml" in problems[0]["message"]
    assert kv.version_refusals("4.4.0", "kraft", [], {}) == []
    assert kv.version_refusals("3.9.2", "zookeeper", [], {}) == []


def test_a_removed_config_among_the_extra_properties_is_named():
    problems = kv.version_refusals("4.4.0", "kraft", ["num.io.threads", "log.message.format.version"], {})
    assert rules(problems) == ["version-removed-config"]
    assert "log.message.format.version" in problems[0]["message"]
    assert "num.io.threads" not in problems[0]["message"]
    assert kv.version_refusals("3.9.2", "kraft", ["log.message.format.version"], {}) == []


def test_java_below_the_release_is_refused_where_it_runs_and_a_missing_java_is_not():
    problems = kv.version_refusals("4.4.0", "kraft", [], {"kafka1": JAVA_11, "localhost": JAVA_17, "kafka2": ""})
    assert rules(problems) == ["version-java-too-old"]
    assert "kafka1 runs Java 11" in problems[0]["message"]
    assert kv.version_refusals("3.9.2", "zookeeper", [], {"kafka1": JAVA_8}) == []
    assert rules(kv.version_refusals("4.4.0", "kraft", [], {"kafka1": "garbage"})) == ["version-java-too-old"]


def test_a_new_cluster_s_quorum_kind_is_the_release_s_and_static_for_one_the_kit_does_not_run():
    # the connection role's default: it must not fail before the refusal names the release
    assert [kv.new_quorum(v) for v in ("3.9.2", "4.4.0", "4.2.0", "9.9.9")] == ["static", "dynamic", "static", "static"]


def test_the_releases_that_read_a_pem_key_only_encrypted_are_2_8_to_3_2():
    # make test-adopt's 2.8.2 round: the taken-over broker exited, "PEM key store is specified, but key password is
    # not specified" (kafka-clients up to 3.2.3 has the check, 3.3.2 not): the kafka_broker role gives them the key
    # encrypted and ssl.key.password, and no release is refused for it
    assert [v for v in kv.LINES if not kv.LINES[v]["pem_key"]] == ["2.8", "3.0", "3.1", "3.2"]
    assert kv.version_refusals("2.8.2", "zookeeper", [], {}) == []
