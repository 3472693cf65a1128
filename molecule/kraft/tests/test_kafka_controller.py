"""KRaft controller hosts as site.yml leaves them (kafka_metadata_mode: kraft), on the lab's release."""

from lab import config
from plugins.module_utils import kafka_versions

testinfra_hosts = ["ansible://kafka_controller"]
RELEASE = kafka_versions.facts(config.KAFKA_VERSION)


def _properties(host, path):
    lines = host.file(path).content_string.splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_service_is_running_and_enabled(host):
    service = host.service("kafka-controller")
    assert service.is_running and service.is_enabled


def test_only_the_secured_controller_listener_listens_and_no_jmx(host):
    # JMX is off unless asked for (or while the controller migrates from ZooKeeper)
    assert host.socket("tcp://0.0.0.0:9090").is_listening
    for port in (9091, 9092, 9093, 9999):
        assert not host.socket(f"tcp://0.0.0.0:{port}").is_listening
        assert not host.socket(f"tcp://127.0.0.1:{port}").is_listening
    assert not host.file("/etc/kafka-controller/jmxremote.password").exists


def test_identity_quorum_and_security_come_from_the_inventory(host):
    hostvars = host.ansible.get_variables()
    props = _properties(host, "/etc/kafka-controller/controller.properties")
    assert props["process.roles"] == "controller"
    assert props["node.id"] == str(hostvars["kafka_controller_node_id"])
    if RELEASE["quorum"] == "dynamic":  # the voters are in the metadata log; the config names where to ask
        assert "controller.quorum.voters" not in props
        assert props["controller.quorum.bootstrap.servers"] == (
            "ctrl1.kafkalab.test:9090,ctrl2.kafkalab.test:9090,ctrl3.kafkalab.test:9090")
        # the endpoint it registers as a voter: its name, not the bind address
        assert props["advertised.listeners"] == f"CONTROLPLANE://{hostvars['inventory_hostname']}.kafkalab.test:9090"
    else:
        assert props["controller.quorum.voters"] == (
            "9001@ctrl1.kafkalab.test:9090,9002@ctrl2.kafkalab.test:9090,9003@ctrl3.kafkalab.test:9090")
    assert props["listener.security.protocol.map"] == "CONTROLPLANE:SSL"
    assert props["ssl.client.auth"] == "required"
    assert not any(key.startswith("sasl.") for key in props)
    assert props["authorizer.class.name"] == "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
    assert props["allow.everyone.if.no.acl.found"] == "false"
    # the controllers create topics and elect leaders: the cluster's topic policy
    assert (props["default.replication.factor"], props["min.insync.replicas"]) == ("3", "2")
    assert props["unclean.leader.election.enable"] == "false"
    assert not any(key.startswith("zookeeper.") for key in props)


def test_the_metadata_dir_is_formatted_for_this_node(host):
    meta = _properties(host, "/var/lib/kafka-controller/metadata/meta.properties")
    assert meta["node.id"] == str(host.ansible.get_variables()["kafka_controller_node_id"])
    assert meta["version"] == "1"
    assert host.file("/var/lib/kafka-controller/metadata/__cluster_metadata-0").is_directory


def test_root_owns_the_secrets_and_the_controller_reads_them_through_its_group(host):
    for path in ("/etc/kafka-controller/jaas.conf", "/etc/kafka-controller/tool.properties",
                 "/etc/kafka-controller/tls/keystore.pem", "/etc/kafka-controller/controller.properties"):
        f = host.file(path)
        assert (f.user, f.group, f.mode) == ("root", "kafka", 0o640), path


def test_the_release_logs_to_its_own_files(host):
    logs = "/var/log/kafka-controller"
    config_file = f"/etc/kafka-controller/{RELEASE['logging']['file']}"
    assert host.file(config_file).exists
    unit = host.file("/etc/systemd/system/kafka-controller.service").content_string
    assert RELEASE["logging"]["option"] + config_file in unit
    assert "started (kafka.server.KafkaRaftServer)" in host.file(f"{logs}/server.log").content_string
    assert host.file(f"{logs}/controller.log").size > 0
    assert host.file(f"{logs}/kafka-authorizer.log").size > 0  # the deploy's ACL and SCRAM changes
