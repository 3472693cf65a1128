"""Broker hosts as site.yml leaves them."""

from lab.cluster_settings import load

testinfra_hosts = ["ansible://kafka_broker"]


def _properties(host):
    lines = host.file("/etc/kafka/server.properties").content_string.splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_service_is_running_and_enabled(host):
    service = host.service("kafka")
    assert service.is_running and service.is_enabled


def test_the_secured_listeners_listen_and_no_plaintext_one(host):
    assert host.socket("tcp://0.0.0.0:9093").is_listening  # CLIENT, SASL_SSL
    assert host.socket("tcp://0.0.0.0:9091").is_listening  # REPLICATION, SSL with client certificates
    assert not host.socket("tcp://0.0.0.0:9092").is_listening


def test_identity_and_addresses_come_from_the_inventory(host):
    hostvars = host.ansible.get_variables()
    props = _properties(host)
    assert props["broker.id"] == str(hostvars["kafka_broker_id"])
    name = f"{host.backend.get_hostname()}.kafkalab.test"
    assert props["advertised.listeners"] == f"CLIENT://{name}:9093,REPLICATION://{name}:9091"
    assert props["listener.security.protocol.map"] == "CLIENT:SASL_SSL,REPLICATION:SSL"
    assert props["zookeeper.connect"] == "10.213.7.11:2182,10.213.7.12:2182,10.213.7.13:2182/kafka"  # TLS
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


def test_security_is_on(host):
    props = _properties(host)
    assert props["authorizer.class.name"] == "kafka.security.authorizer.AclAuthorizer"
    assert props["allow.everyone.if.no.acl.found"] == "false"
    assert props["super.users"] == "User:kafka-cluster;User:kafkaops-admin"
    assert props["sasl.enabled.mechanisms"] == "SCRAM-SHA-512,SCRAM-SHA-256"  # a login rotates to the other one
    assert props["inter.broker.listener.name"] == "REPLICATION"
    assert props["ssl.client.auth"] == "required"  # the SSL listener; the SASL_SSL one asks for none (KIP-684)
    assert props["ssl.principal.mapping.rules"].startswith("RULE:^CN=[-.:a-zA-Z0-9]+,OU=kafkaops-member,O=kafka$/")
    assert "sasl.mechanism.inter.broker.protocol" not in props


def test_config_key_and_data_owners_and_modes(host):
    def owner_mode(path):
        found = host.file(path)
        return found.user, found.group, found.mode
    # root owns what the broker reads; the broker reads it through its group and cannot change it
    assert owner_mode("/etc/kafka/server.properties") == ("root", "kafka", 0o640)
    assert owner_mode("/etc/kafka/jaas.conf") == ("root", "kafka", 0o640)  # the ZooKeeper login
    assert owner_mode("/etc/kafka/tls/keystore.pem") == ("root", "kafka", 0o640)  # the private key
    password = load()["kazoo"]["sasl_options"]["password"]  # the kit's own ZooKeeper login, of the generation in use
    assert password in host.file("/etc/kafka/jaas.conf").content_string
    assert password not in host.file("/etc/kafka/server.properties").content_string
    assert "ScramLoginModule required\n" not in host.file("/etc/kafka/jaas.conf").content_string  # no member login
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
