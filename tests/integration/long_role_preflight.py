"""The preflight asserts of the kafka_broker and zookeeper roles on the deployed lab: each wrong setting is
refused with its message, and the refused run changes nothing on any host or in ZooKeeper. TLS files the
pki role would never issue (expired, not yet valid, from another CA) are made by the test.

Settings go in as extra vars; those that differ per host (ids swapped between two hosts, a smaller
ensemble group) as a second inventory laid over the lab's, as an operator's edited inventory would."""

import base64
import json

import certificates
import pytest
from lab_hosts import ssh_run
from unchanged import lab_state

from lab import config

INVENTORY = str(config.REPO / "inventories" / "lab")
PKI = config.PKI  # the lab's kafka_pki_dir


def _extra_vars(values):
    return ["-e", json.dumps(values)]


def _inventory(tmp_path, text):
    overlay = tmp_path / "overlay.yml"
    overlay.write_text(text)
    return ["-i", INVENTORY, "-i", str(overlay)]


SWAPPED_BROKER_IDS = "all:\n  hosts:\n    kafka1: {kafka_broker_id: 2}\n    kafka2: {kafka_broker_id: 1}\n"
SWAPPED_ZOOKEEPER_IDS = "all:\n  hosts:\n    zk1: {zookeeper_id: 2}\n    zk2: {zookeeper_id: 1}\n"
TWO_MEMBERS = "all:\n  children:\n    zk_pair:\n      hosts: {zk1: {}, zk2: {}}\n"
ONE_MEMBER = "all:\n  children:\n    zk_single:\n      hosts: {zk1: {}}\n"

# (rule, playbook, extra vars, overlay inventory, what the refusal says)
CASES = [
    ("broker id is a number", "kafka.yml", {"kafka_broker_id": "one"}, None,
     "kafka_broker_id of kafka1 must be a non-negative integer, got 'one'"),
    ("broker ids are unique", "kafka.yml", {"kafka_broker_id": 1}, None,
     "Every broker of group 'kafka_broker' needs its own kafka_broker_id"),
    ("replication factor within the brokers", "kafka.yml", {"kafka_default_replication_factor": 4}, None,
     "Group 'kafka_broker' has 3 broker(s), fewer than a replication factor"),
    ("min ISR below the replication factor", "kafka.yml", {"kafka_min_insync_replicas": 3}, None,
     "kafka_min_insync_replicas (3) must be at least 1 and below kafka_default_replication_factor (3)"),
    ("no unclean leader election", "kafka.yml", {"kafka_unclean_leader_election_enable": True}, None,
     "kafka_unclean_leader_election_enable is true"),
    ("consistent size limits", "kafka.yml", {"kafka_replica_fetch_max_bytes": 1000}, None,
     "Size limits must satisfy kafka_message_max_bytes (1048588) <= kafka_replica_fetch_max_bytes (1000)"),
    ("extra properties repeat no managed key", "kafka.yml",
     {"kafka_extra_properties": {"min.insync.replicas": "1"}}, None,
     "kafka_extra_properties repeats keys this role manages through their own variables: ['min.insync.replicas']"),
    ("an advertised name clients can reach", "kafka.yml", {"kafka_advertised_host": "0.0.0.0"}, None,
     "kafka_advertised_host (a name or address clients can reach, now '0.0.0.0')"),
    ("log dirs hold this broker's data", "kafka.yml", {}, SWAPPED_BROKER_IDS,
     "Refusing to configure broker 2 on kafka1: /var/lib/kafka/data holds the data of broker.id 1, not 2"),
    ("zookeeper ids from 1 to 255", "zookeeper.yml", {"zookeeper_id": 300}, None,
     "out of range: ['300', '300', '300']"),
    ("zookeeper ids are unique", "zookeeper.yml", {"zookeeper_id": 1}, None,
     "ids now: {'zk1': '1', 'zk2': '1', 'zk3': '1'}"),
    ("no even ensemble", "zookeeper.yml", {"zookeeper_group": "zk_pair"}, TWO_MEMBERS,
     "Group 'zk_pair' has 2 hosts: an even ensemble"),
    ("no single member", "zookeeper.yml", {"zookeeper_group": "zk_single"}, ONE_MEMBER,
     "Group 'zk_single' has a single host: no fault tolerance"),
    ("distinct zookeeper ports", "zookeeper.yml", {"zookeeper_peer_port": 2182}, None,
     "must be distinct ports (now [2182, 2182, 3888])"),
    ("the data dir's myid is this member's", "zookeeper.yml", {}, SWAPPED_ZOOKEEPER_IDS,
     "/var/lib/zookeeper/myid holds 1, but zookeeper_id is 2"),
    ("super users hold the members' principal", "kafka.yml", {"kafka_super_users": ["User:kafkaops-admin"]}, None,
     "kafka_super_users must hold the members' principal User:kafka-cluster"),
    ("no SCRAM user bears a super user's name", "kafka.yml",
     {"kafka_scram_users": [{"name": "kafkaops-admin", "password": "a-password-long-enough-1"}]}, None,
     "kafka_scram_users declares a SCRAM user 'kafkaops-admin', which is a super user"),
    ("an escape hatch may not set a security key unseen", "kafka.yml",
     {"kafka_extra_properties": {"listener.name.client.ssl.client.auth": "none"}}, None,
     "kafka_extra_properties sets listener.name.client.ssl.client.auth, which decides who gets in"),
    ("zookeeper's escape hatch neither", "zookeeper.yml", {"zookeeper_jvm_extra_opts": ["-Dzookeeper.skipACL=yes"]},
     None, "zookeeper_jvm_extra_opts sets -Dzookeeper.skipACL, which decides who gets in"),
    ("no older TLS unseen", "kafka.yml", {"kafka_tls_protocols": ["TLSv1.3", "TLSv1.2"]}, None,
     "kafka_tls_protocols offers TLSv1.2 besides TLSv1.3"),
    ("no published password", "kafka.yml",
     {"kafka_scram_users": [{"name": "app-weak", "password": "REPLACE-app-weak-password"}]}, None,
     "the password of SCRAM user app-weak is published"),
    # generation 0 (a credentials dir without a rotation's files, whatever the lab's rotations left in its own): the
    # inventory's zookeeper_sasl_password is the login in use
    ("the ZooKeeper login is set", "zookeeper.yml", {"zookeeper_sasl_password": "", "kafka_credentials_dir": "{empty}"},
     None, "must not be empty nor hold"),
    ("a certificate covering the advertised name", "kafka.yml",
     {"kafka_tls_cert_source": f"{PKI}/hosts/kafka2/cert.pem", "kafka_tls_key_source": f"{PKI}/hosts/kafka2/key.pem"},
     None, "the certificate of kafka1 does not cover DNS:kafka1.kafkalab.test (its names: DNS:kafka2.kafkalab.test"),
    ("a key that is the certificate's", "kafka.yml", {"kafka_tls_key_source": f"{PKI}/hosts/zk1/key.pem"}, None,
     "the private key of kafka1 is not the key of its certificate"),
    ("a certificate in its validity", "kafka.yml", {"kafka_tls_cert_source": "{expired}/cert",
                                                    "kafka_tls_key_source": "{expired}/key"}, None,
     "the certificate of kafka1 expired"),
    ("a certificate already valid", "kafka.yml", {"kafka_tls_cert_source": "{future}/cert",
                                                  "kafka_tls_key_source": "{future}/key"}, None,
     "the certificate of kafka1 is not valid before"),
    ("a PLAINTEXT listener only on purpose", "kafka.yml", {"kafka_plaintext_listener": True}, None,
     "Refusing to configure broker 1 on kafka1: [secure-default-off-on-purpose] kafka_plaintext_listener=true turns "
     "off a secure default: the PLAINTEXT listener lets anyone"),
    ("a plaintext quorum only on purpose", "zookeeper.yml", {"zookeeper_quorum_tls": False}, None,
     "Refusing to configure ZooKeeper member 1 on zk1: [secure-default-off-on-purpose] zookeeper_quorum_tls=false "
     "turns off a secure default: members replicate every znode to each other in clear"),
    ("PLAINTEXT removed while the brokers replicate over it", "kafka.yml", {"kafka_inter_broker_listener": "PLAINTEXT"},
     None, "kafka_inter_broker_listener=PLAINTEXT names no listener of this broker"),
    # the Kafka release, checked once before any host of the run changes (configure_and_roll.yml)
    ("a release without ZooKeeper mode, with a config it removed", "kafka.yml",
     {"kafka_version": "4.4.0", "kafka_extra_properties": {"log.message.format.version": "3.0"}}, None,
     "Refusing Kafka 4.4.0: [version-zookeeper-on-4] Kafka 4.4.0 has no ZooKeeper mode and this cluster's "
     "kafka_metadata_mode is zookeeper: migrate it to KRaft on 3.9 first (playbooks/migrate_to_kraft.yml), then move "
     "to 4.4.0. | [version-removed-config] Kafka 4.4.0 no longer has log.message.format.version"),
    ("a known-bad release", "kafka.yml", {"kafka_version": "4.2.0"}, None,
     "Refusing Kafka 4.2.0: [version-known-bad] Kafka 4.2.0 is a known-bad release: transactions break"),
    ("a certificate of the truststore's CA", "zookeeper.yml", {"zookeeper_tls_ca_source": "{another_ca}"}, None,
     "the certificate of zk1 was not issued by the CA of its truststore (commonName=Another CA"),
]


def _made_files(tmp_path, values):
    """values with the placeholders of files the test makes: {expired}/cert, {future}/key, {another_ca}, and {empty}
    (an empty directory)."""
    names = ["kafka1.kafkalab.test", "kafka2.kafkalab.test", "kafka3.kafkalab.test"]
    made = {"{another_ca}": certificates.another_ca(tmp_path)[0], "{empty}": str(tmp_path / "empty")}
    (tmp_path / "empty").mkdir()
    for stem, start, days in (("expired", -40, 30), ("future", 2, 30)):
        cert, key = certificates.issue(tmp_path, stem, certificates.LAB_CA, names, start, days)
        made.update({f"{{{stem}}}/cert": cert, f"{{{stem}}}/key": key})
    return {name: made.get(value, value) if isinstance(value, str) else value for name, value in values.items()}


@pytest.mark.parametrize("rule, playbook, values, overlay, refusal", CASES, ids=[c[0] for c in CASES])
def test_a_wrong_setting_is_refused_before_anything_changes(
        run_playbook, settings, tmp_path, rule, playbook, values, overlay, refusal):
    before = lab_state(settings)
    values = _made_files(tmp_path, values)
    args = (_inventory(tmp_path, overlay) if overlay else []) + (_extra_vars(values) if values else [])
    proc = run_playbook(playbook, *args)
    assert proc.returncode != 0
    assert refusal in proc.output
    assert lab_state(settings) == before


# The release refusals once more with --check, what make rule-removal runs: without its rule, a run would go on to
# deploy that release on the lab; a check run changes nothing either way.
RELEASE_CASES = [c for c in CASES if c[4].startswith("Refusing Kafka")]


@pytest.mark.parametrize("rule, playbook, values, overlay, refusal", RELEASE_CASES, ids=[c[0] for c in RELEASE_CASES])
def test_a_release_refusal_stops_a_check_run_too(run_playbook, rule, playbook, values, overlay, refusal):
    proc = run_playbook(playbook, *_extra_vars(values), "--check")
    assert proc.returncode != 0
    assert refusal in proc.output, proc.output[-3000:]


JAVA7_ON_KAFKA1 = "all:\n  hosts:\n    kafka1: {kafka_java_bin: /tmp/java7}\n"


@pytest.mark.parametrize("check", [[], ["--check"]], ids=["run", "check"])
def test_a_java_below_the_releases_on_one_host_is_refused_naming_it(run_playbook, settings, tmp_path, check):
    """kafka1's kafka_java_bin is a Java 7 (a script answering -version as one): 3.9.2 needs 8, so the run stops
    before any host changes, naming kafka1 (--check too: what make rule-removal runs)."""
    kafka1 = config.host("kafka1")
    script = base64.b64encode(b'#!/bin/sh\necho \'java version "1.7.0_80"\' >&2\n').decode()
    ssh_run(kafka1, f"echo {script} | base64 -d > /tmp/java7 && chmod 0755 /tmp/java7")
    try:
        before = lab_state(settings)
        proc = run_playbook("kafka.yml", *_inventory(tmp_path, JAVA7_ON_KAFKA1), *check)
        assert proc.returncode != 0
        assert "[version-java-too-old] Kafka 3.9.2 needs Java 8 or later; kafka1 runs Java 7" in proc.output, \
            proc.output[-3000:]
        assert lab_state(settings) == before
    finally:
        ssh_run(kafka1, "rm -f /tmp/java7")
