"""Broker hosts of a KRaft cluster as site.yml leaves them (kafka_metadata_mode: kraft), on the lab's release."""

from lab import config
from plugins.module_utils import kafka_versions

testinfra_hosts = ["ansible://kafka_broker"]
RELEASE = kafka_versions.facts(config.KAFKA_VERSION)


def _properties(host, path):
    lines = host.file(path).content_string.splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_service_is_running_and_the_secured_listeners_listen(host):
    assert host.service("kafka").is_running
    assert host.socket("tcp://0.0.0.0:9093").is_listening  # CLIENT, SASL_SSL
    assert host.socket("tcp://0.0.0.0:9091").is_listening  # REPLICATION, SSL with client certificates
    assert not host.socket("tcp://0.0.0.0:9092").is_listening
    assert not host.socket("tcp://0.0.0.0:9090").is_listening  # a broker serves no CONTROLPLANE listener


def test_a_kraft_broker_with_the_same_policy_and_no_zookeeper(host):
    props = _properties(host, "/etc/kafka/server.properties")
    assert props["process.roles"] == "broker"
    assert props["node.id"] == str(host.ansible.get_variables()["kafka_broker_id"])
    assert "broker.id" not in props
    assert props["controller.listener.names"] == "CONTROLPLANE"
    assert props["listener.security.protocol.map"] == "CLIENT:SASL_SSL,REPLICATION:SSL,CONTROLPLANE:SSL"
    assert props["authorizer.class.name"] == "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
    assert (props["default.replication.factor"], props["min.insync.replicas"]) == ("3", "2")
    assert not any(key.startswith("zookeeper.") for key in props)
    assert "AclAuthorizer" not in host.file("/etc/kafka/server.properties").content_string


def test_the_log_dir_is_formatted_with_the_quorums_cluster_id(host):
    meta = _properties(host, "/var/lib/kafka/data/meta.properties")
    props = _properties(host, "/etc/kafka/server.properties")
    assert meta["node.id"] == str(host.ansible.get_variables()["kafka_broker_id"])
    if RELEASE["quorum"] == "dynamic":
        assert props["controller.quorum.bootstrap.servers"].startswith("ctrl1.kafkalab.test:9090")
    else:
        assert props["controller.quorum.voters"].startswith("9001@ctrl1.kafkalab.test:9090")
    assert len(meta["cluster.id"]) == 22


def test_the_release_logs_to_its_own_files(host):
    config_file = f"/etc/kafka/{RELEASE['logging']['file']}"
    assert host.file(config_file).exists
    assert RELEASE["logging"]["option"] + config_file in host.file("/etc/systemd/system/kafka.service").content_string
    assert "started (kafka.server.KafkaRaftServer)" in host.file("/var/log/kafka/server.log").content_string
    assert host.file("/var/log/kafka/state-change.log").exists
    # the deploy's ACL and SCRAM changes are authorized by the controllers the brokers forward them to
    # (test_security.py reads both's audit lines)
    assert host.file("/var/log/kafka/kafka-authorizer.log").exists
