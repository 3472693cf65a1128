"""Broker hosts as site.yml leaves them."""

testinfra_hosts = ["ansible://kafka_broker"]


def _properties(host):
    lines = host.file("/etc/kafka/server.properties").content_string.splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_service_is_running_and_enabled(host):
    service = host.service("kafka")
    assert service.is_running and service.is_enabled


def test_listener_port_listens(host):
    assert host.socket("tcp://0.0.0.0:9092").is_listening


def test_identity_and_addresses_come_from_the_inventory(host):
    hostvars = host.ansible.get_variables()
    props = _properties(host)
    assert props["broker.id"] == str(hostvars["kafka_broker_id"])
    assert props["advertised.listeners"] == f"PLAINTEXT://{host.backend.get_hostname()}.kafkalab.test:9092"
    assert props["zookeeper.connect"] == "10.213.7.11:2181,10.213.7.12:2181,10.213.7.13:2181/kafka"
    assert props["log.dirs"] == "/var/lib/kafka/data"


def test_hardened_defaults_are_written(host):
    props = _properties(host)
    assert {k: props[k] for k in (
        "unclean.leader.election.enable", "min.insync.replicas", "default.replication.factor",
        "offsets.topic.replication.factor", "transaction.state.log.replication.factor",
        "transaction.state.log.min.isr", "auto.create.topics.enable", "controlled.shutdown.enable",
        "broker.id.generation.enable")} == {
        "unclean.leader.election.enable": "false", "min.insync.replicas": "2",
        "default.replication.factor": "3", "offsets.topic.replication.factor": "3",
        "transaction.state.log.replication.factor": "3", "transaction.state.log.min.isr": "2",
        "auto.create.topics.enable": "false", "controlled.shutdown.enable": "true",
        "broker.id.generation.enable": "false"}
    assert (int(props["message.max.bytes"]) <= int(props["replica.fetch.max.bytes"])
            <= int(props["socket.request.max.bytes"]))


def test_config_and_data_owners_and_modes(host):
    config = host.file("/etc/kafka/server.properties")
    assert (config.user, config.group, config.mode) == ("root", "kafka", 0o640)
    data = host.file("/var/lib/kafka/data")
    assert (data.user, data.group, data.mode) == ("kafka", "kafka", 0o750)
    meta = host.file("/var/lib/kafka/data/meta.properties")
    assert f"broker.id={host.ansible.get_variables()['kafka_broker_id']}" in meta.content_string


def test_data_dir_is_on_its_own_filesystem(host):
    assert host.mount_point("/var/lib/kafka").exists


def test_unit_starts_the_jvm_directly_with_safe_stop_settings(host):
    unit = host.file("/etc/systemd/system/kafka.service").content_string
    assert "kafka.Kafka /etc/kafka/server.properties" in unit
    assert "Restart=on-failure" in unit and "LimitNOFILE=100000" in unit
    assert "TimeoutStopSec=300" in unit
    java = host.process.get(comm="java")
    assert java.user == "kafka"
    assert "-Djava.net.preferIPv4Stack=true" in java.args
