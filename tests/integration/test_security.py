"""Security that is really on (the lab is secured by default, as any cluster the roles deploy): no port of a
broker lets a PLAINTEXT client in, a wrong SCRAM password is refused, an authenticated user can do nothing
the inventory has not granted it, then exactly what kafka_access.yml grants; a certificate from another CA
is refused by the brokers and by ZooKeeper, which has no plaintext port and lets no anonymous client change
Kafka's znodes."""

import json
import socket
import uuid

import certificates
import pytest
from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType
from kazoo.exceptions import NoAuthError
from kazoo.handlers.threading import KazooTimeoutError

from lab.cluster_settings import kafka_config, kazoo_client

SECURED_PORTS = (9093, 9094)  # CLIENT and BROKER listeners (the kafka_broker role's defaults)


def _listed(conf, timeout=8, errors=None):
    """The topics a client with this configuration can list, or the KafkaException it gets; the client's
    error reports (KafkaError names) are appended to errors."""
    reports = errors if errors is not None else []
    admin = AdminClient(conf | {"error_cb": lambda error: reports.append(error.name()), "log_level": 0})
    try:
        return set(admin.list_topics(timeout=timeout).topics)
    except KafkaException as exc:
        admin.poll(1)  # serves the error reports
        return exc


def test_no_broker_port_lets_a_plaintext_client_in(brokers):
    for broker in brokers:
        for port in SECURED_PORTS:
            outcome = _listed({"bootstrap.servers": f"{broker.fqdn}:{port}", "security.protocol": "PLAINTEXT"})
            assert isinstance(outcome, KafkaException), f"{broker.name}:{port} answered PLAINTEXT: {outcome}"
        with pytest.raises(ConnectionRefusedError):  # no PLAINTEXT listener (9092) unless asked for
            socket.create_connection((broker.address, 9092), timeout=5).close()
    assert isinstance(_listed(kafka_config()), set)  # the same brokers let the kit's admin in


def test_a_wrong_scram_password_is_refused():
    errors = []
    outcome = _listed(kafka_config() | {"sasl.password": "not-the-password"}, errors=errors)
    assert isinstance(outcome, KafkaException) and "_AUTHENTICATION" in errors, (outcome, errors)


def _as_user(name, password):
    return kafka_config() | {"sasl.username": name, "sasl.password": password}


def _attempts(conf, topic):
    """{action: None if allowed, else the error} for produce, consume, describe configs and delete."""
    outcomes = {}
    producer = Producer(conf | {"acks": "all", "message.timeout.ms": 10000})
    reports = []
    producer.produce(topic, b"v", on_delivery=lambda err, msg: reports.append(err))
    producer.flush(15)
    outcomes["produce"] = reports[0] if reports and reports[0] else None
    consumer = Consumer(conf | {"group.id": f"{topic}-group", "auto.offset.reset": "earliest"})
    try:
        consumer.subscribe([topic])
        msg = None
        for _ in range(15):
            msg = consumer.poll(1)
            if msg is not None:
                break
        outcomes["consume"] = None if msg is not None and msg.error() is None else (msg.error() if msg else "no record")
    finally:
        consumer.close()
    admin = AdminClient(conf)
    resource = ConfigResource(ResourceType.TOPIC, topic)
    try:
        admin.describe_configs([resource])[resource].result(15)
        outcomes["describe_configs"] = None
    except KafkaException as exc:
        outcomes["describe_configs"] = exc.args[0].name()
    try:
        admin.delete_topics([topic], operation_timeout=15)[topic].result(30)
        outcomes["delete"] = None
    except KafkaException as exc:
        outcomes["delete"] = exc.args[0].name()
    return outcomes


def test_a_user_can_do_nothing_until_the_inventory_grants_it(run_playbook):
    name, password = f"app-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    topic = f"{name}-topic"  # the user deletes it in the end, once allowed
    admin = AdminClient(kafka_config())
    admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=3)])[topic].result(30)
    user = [{"name": name, "password": password}]
    grants = [{"principal": f"User:{name}", "resource_type": "topic", "resource_name": topic, "operation": op}
              for op in ("write", "read", "describe_configs", "delete")]
    grants.append({"principal": f"User:{name}", "resource_type": "group", "resource_name": f"{topic}-group",
                   "operation": "read"})

    def access(**declared):
        run = run_playbook("kafka_access.yml", "-e", json.dumps(declared))
        assert run.returncode == 0, run.output[-3000:]
        assert password not in run.stdout + run.stderr  # the new user's password is in no output
        return run

    access(kafka_scram_users=user)
    try:
        denied = _attempts(_as_user(name, password), topic)
        assert all(denied.values()), f"allowed without an ACL: {[a for a, e in denied.items() if not e]}"
        assert "TOPIC_AUTHORIZATION_FAILED" in str(denied["produce"]), denied
        assert denied["describe_configs"] == denied["delete"] == "TOPIC_AUTHORIZATION_FAILED", denied

        access(kafka_acls=grants)
        assert _attempts(_as_user(name, password), topic) == {
            "produce": None, "consume": None, "describe_configs": None, "delete": None}
    finally:
        access(kafka_acls_absent=grants, kafka_scram_users_absent=[{"name": name}])
        if topic in admin.list_topics(timeout=30).topics:
            admin.delete_topics([topic])[topic].result(30)


def test_a_certificate_from_another_ca_is_refused_by_the_brokers_and_by_zookeeper(tmp_path, settings, brokers):
    """(On a KRaft lab: by the brokers; kraft_deploy.py tests the controllers' listener.)"""
    # The BROKER listener wants a certificate from the cluster's CA besides the SCRAM login: with the kit's own
    # login it lets in the kit's certificate and refuses one from another CA.
    connection = settings["connection"]  # the kit's certificate, issued by the cluster's CA
    own = connection["zookeeper_ssl_certificate_location"], connection["zookeeper_ssl_key_location"]
    foreign = certificates.issue(tmp_path, "intruder", certificates.another_ca(tmp_path), ["intruder"])
    for broker in brokers:
        replication_port = kafka_config(f"{broker.fqdn}:9094")
        assert isinstance(_listed(replication_port | {"ssl.certificate.location": own[0],
                                                      "ssl.key.location": own[1]}), set)
        outcome = _listed(replication_port | {"ssl.certificate.location": foreign[0], "ssl.key.location": foreign[1]})
        assert isinstance(outcome, KafkaException), f"{broker.name}:9094 let in another CA's certificate"
    if settings["zookeeper_connect"]:
        zk = kazoo_client(certfile=foreign[0], keyfile=foreign[1])
        with pytest.raises(KazooTimeoutError):
            zk.start(timeout=10)
        zk.close()


@pytest.mark.zookeeper
def test_zookeeper_has_no_plaintext_port_and_an_anonymous_client_cannot_change_kafkas_znodes(settings):
    for member in settings["zookeeper_members"].values():
        address = member.rsplit(":", 1)[0]
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((address, 2181), timeout=5).close()
    zk = kazoo_client(sasl_options=None)  # TLS with the kit's certificate, but no login
    zk.start(timeout=15)
    try:
        assert zk.exists("/brokers/ids")  # reading is open, as Kafka sets it
        with pytest.raises(NoAuthError):
            zk.create("/intruder", b"x")
        with pytest.raises(NoAuthError):
            zk.set("/config/changes", b"x")
        with pytest.raises(NoAuthError):
            zk.delete("/controller")
    finally:
        zk.stop()
        zk.close()
