"""Security that is really on (the lab is secured by default, as any cluster the roles deploy), and no password alone
makes anyone a super user (docs/design/least-privilege.md): no port of a broker lets a PLAINTEXT client in; the
super users (the members, the kit's admin) have no SCRAM credential, so no password logs in as them on the CLIENT
listener; their listeners take certificates of the cluster's CA alone, and a certificate of that CA without the
member or admin marker is nobody; a SCRAM user can do nothing the inventory has not granted it, then exactly that;
the kit's canary and validator do their jobs and nothing else; ZooKeeper has no plaintext port and refuses a
session with a certificate and no login."""

import json
import pathlib
import socket
import time
import uuid

import certificates
import pytest
from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic, ResourceType
from kazoo.exceptions import SessionClosedRequireSaslError
from kazoo.handlers.threading import KazooTimeoutError

from lab import config
from lab.cluster_settings import kafka_config, kazoo_client, user_config
from lab.command_lines import CommandLineWatch
from lab.machines import run_on
from lab.traffic import creates_a_topic

CLIENT_PORT, REPLICATION_PORT = 9093, 9091  # the roles' defaults
SUPER_USERS = ("kafka-cluster", "kafkaops-admin")  # the connection role's kafka_member/admin_principal


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
        for port in (CLIENT_PORT, REPLICATION_PORT):
            outcome = _listed({"bootstrap.servers": f"{broker.fqdn}:{port}", "security.protocol": "PLAINTEXT"},
                              timeout=3)  # a TLS port never answers a PLAINTEXT request: it ends only in the timeout
            assert isinstance(outcome, KafkaException), f"{broker.name}:{port} answered PLAINTEXT: {outcome}"
        with pytest.raises(ConnectionRefusedError):  # no PLAINTEXT listener (9092) unless asked for
            socket.create_connection((broker.address, 9092), timeout=5).close()
    assert isinstance(_listed(kafka_config()), set)  # the same brokers let the kit's admin in


def test_a_wrong_scram_password_is_refused():
    errors = []
    outcome = _listed(kafka_config(principal="canary") | {"sasl.password": "not-the-password"}, errors=errors)
    assert isinstance(outcome, KafkaException) and "_AUTHENTICATION" in errors, (outcome, errors)


def test_no_password_logs_in_as_a_super_user_on_the_client_listener():
    """The super users have no SCRAM credential at all (the store serves every SASL listener): no password, the ones
    an earlier layout of the lab gave them included, logs in as them."""
    admin = AdminClient(kafka_config())
    described = admin.describe_user_scram_credentials(list(SUPER_USERS))
    for future in described.values():
        with pytest.raises(KafkaException, match="RESOURCE_NOT_FOUND"):
            future.result(15)
    for name in SUPER_USERS:
        old = pathlib.Path(config.SECRETS / name)
        for password in [uuid.uuid4().hex] + ([old.read_text().strip()] if old.is_file() else []):
            errors = []
            outcome = _listed(kafka_config(principal="canary") | {"sasl.username": name, "sasl.password": password},
                              errors=errors)
            assert isinstance(outcome, KafkaException) and "_AUTHENTICATION" in errors, (name, outcome, errors)


def _certificate_conf(cert, key, port, brokers):
    conf = kafka_config(",".join(f"{b.fqdn}:{port}" for b in brokers))
    return conf | {"ssl.certificate.location": cert, "ssl.key.location": key}


def test_only_the_marked_certificates_of_the_clusters_ca_are_super_users(tmp_path, brokers):
    """On the REPLICATION listener: a member's certificate (a broker's own) and the admin's may create a topic; the
    certificate the pki role gives the controller machine for ZooKeeper (the cluster's CA, no marker) gets in but may
    do nothing; one of another CA does not get in."""
    pki = config.PKI / "hosts"
    member = _certificate_conf(str(pki / "kafka1/cert.pem"), str(pki / "kafka1/key.pem"), REPLICATION_PORT, brokers)
    unmarked = _certificate_conf(str(pki / "localhost/cert.pem"), str(pki / "localhost/key.pem"), REPLICATION_PORT,
                                 brokers)
    foreign = certificates.issue(tmp_path, "intruder", certificates.another_ca(tmp_path), ["intruder"])
    assert creates_a_topic(member, "security") is None
    assert creates_a_topic(kafka_config(), "security") is None
    assert creates_a_topic(unmarked, "security") in ("TOPIC_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED")
    assert isinstance(_listed(_certificate_conf(*foreign, REPLICATION_PORT, brokers)), KafkaException)


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
        denied = _attempts(user_config(name, password), topic)
        assert all(denied.values()), f"allowed without an ACL: {[a for a, e in denied.items() if not e]}"
        assert "TOPIC_AUTHORIZATION_FAILED" in str(denied["produce"]), denied
        assert denied["describe_configs"] == denied["delete"] == "TOPIC_AUTHORIZATION_FAILED", denied

        access(kafka_acls=grants)
        assert _attempts(user_config(name, password), topic) == {
            "produce": None, "consume": None, "describe_configs": None, "delete": None}
    finally:
        access(kafka_acls_absent=grants, kafka_scram_users_absent=[{"name": name}])
        if topic in admin.list_topics(timeout=30).topics:
            admin.delete_topics([topic])[topic].result(30)


def test_no_password_is_on_a_command_line_while_a_user_is_made_and_deleted(run_playbook):
    """kafka_access.yml hands the password to the module in its arguments file, never on a command line (ps shows
    every user's): watched on every lab host and here, with the lab's own passwords."""
    name, password = f"app-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    hosts = config.load_hosts()
    with CommandLineWatch(hosts, lambda: {"the control's": password}) as control:  # the watch sees one
        run_on(hosts[0], f"sh -c 'sleep 3; true {password}'")
    # (this machine's ps also lists the lab hosts' processes: it may see the same one)
    assert {leak[1] for leak in control.leaks} == {"the password the control's"}
    assert hosts[0].name in {leak[0] for leak in control.leaks}
    with CommandLineWatch(hosts, lambda: config.secrets() | {"the new user's": password}) as watch:
        for declared in ({"kafka_scram_users": [{"name": name, "password": password}]},
                         {"kafka_scram_users_absent": [{"name": name}]}):
            run = run_playbook("kafka_access.yml", "-e", json.dumps(declared))
            assert run.returncode == 0, run.output[-3000:]
    assert watch.samples > 0 and watch.leaks == []


def _produce(conf, topic):
    reports = []
    producer = Producer(conf | {"acks": "all", "message.timeout.ms": 10000})
    producer.produce(topic, b"v", on_delivery=lambda err, msg: reports.append(err))
    producer.flush(15)
    return reports[0].name() if reports and reports[0] else None


def _read_one(conf, topic, group):
    consumer = Consumer(conf | {"group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False})
    try:
        consumer.subscribe([topic])
        for _ in range(20):
            msg = consumer.poll(1)
            if msg is not None:
                return None if msg.error() is None else msg.error().name()
        return "no record"
    finally:
        consumer.close()


def _altered(conf, topic):
    resource = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)])
    try:
        admin = AdminClient(conf)
        admin.incremental_alter_configs([resource])[resource].result(15)
        return None
    except KafkaException as exc:
        return exc.args[0].name()


def test_the_canary_and_the_validator_do_their_jobs_and_nothing_else(settings):
    canary, validator = kafka_config(principal="canary"), kafka_config(principal="validator")
    ours, other = f"canary-security-{uuid.uuid4().hex[:8]}", f"app-security-{uuid.uuid4().hex[:8]}"
    admin = AdminClient(kafka_config())
    for topic in (ours, other):
        admin.create_topics([NewTopic(topic, 3, 3)])[topic].result(30)
    try:
        assert _produce(kafka_config(), other) is None
        # the canary writes and reads its own topics
        assert _produce(canary, ours) is None
        assert _read_one(canary, ours, f"canary-{uuid.uuid4().hex[:6]}") is None
        # and may not create, delete, alter, nor read another topic
        assert creates_a_topic(canary, "canary-new") == "TOPIC_AUTHORIZATION_FAILED"
        with pytest.raises(KafkaException, match="TOPIC_AUTHORIZATION_FAILED"):
            canary_admin = AdminClient(canary)
            canary_admin.delete_topics([ours], operation_timeout=15)[ours].result(30)
        assert _altered(canary, ours) == "TOPIC_AUTHORIZATION_FAILED"
        assert _read_one(canary, other, f"canary-{uuid.uuid4().hex[:6]}") == "TOPIC_AUTHORIZATION_FAILED"
        # the validator reads every topic and may write to none, nor create or alter one
        assert _read_one(validator, other, f"kafkaops-validator-{uuid.uuid4().hex[:6]}") is None
        assert _produce(validator, ours) == "TOPIC_AUTHORIZATION_FAILED"
        assert creates_a_topic(validator, "canary-new") == "TOPIC_AUTHORIZATION_FAILED"
        assert _altered(validator, other) == "TOPIC_AUTHORIZATION_FAILED"
    finally:
        admin.delete_topics([ours, other])


# Where the roles' audit logs are (the kafka_broker and kafka_controller roles' service log dirs)
AUDIT_LOGS = {"kafka_broker": "/var/log/kafka/kafka-authorizer.log*",
              "kafka_controller": "/var/log/kafka-controller/kafka-authorizer.log*"}


def _audit_lines(hosts, since):
    """The hosts' audit lines logged since then ("[YYYY-MM-DD HH:MM:SS,mmm] ..."; the lab hosts share this clock),
    lower-cased: ZooKeeper mode's AclAuthorizer spells an operation "Create", KRaft's StandardAuthorizer "CREATE"."""
    lines = []
    for host in hosts:
        log = AUDIT_LOGS["kafka_controller" if "kafka_controller" in host.groups else "kafka_broker"]
        lines += [line.lower() for line in run_on(host, f"cat {log}").splitlines() if line[1:20] >= since]
    return lines


def test_the_audit_log_holds_the_super_users_changes_and_the_denials_not_the_reads_and_writes(brokers, controllers,
                                                                                                settings):
    since = time.strftime("%Y-%m-%d %H:%M:%S")
    topic = f"audit-{uuid.uuid4().hex[:8]}"
    admin = AdminClient(kafka_config())  # the kit's admin, a super user
    admin.create_topics([NewTopic(topic, 1, 3)])[topic].result(30)
    try:
        for _ in range(30):  # every broker knows it before it is altered
            if _altered(kafka_config(), topic) is None:
                break
            time.sleep(1)
        assert _altered(kafka_config(), topic) is None
        assert _produce(kafka_config(), topic) is None
        assert _read_one(kafka_config(), topic, f"audit-{uuid.uuid4().hex[:6]}") is None
        assert _produce(kafka_config(principal="validator"), topic) == "TOPIC_AUTHORIZATION_FAILED"
        # On KRaft the brokers forward creations and config changes to the controllers, which authorize them
        kept = _audit_lines(brokers + (controllers if settings["metadata_mode"] == "kraft" else []), since)
        by_admin = [line for line in kept if f"user:{SUPER_USERS[1]} is allowed" in line]
        # the creation is allowed on the cluster (CREATE there covers every topic), the alteration on the topic
        assert any("peration = create " in line and "request = createtopics" in line for line in by_admin), kept
        assert any("peration = alter" in line and "config" in line and topic in line for line in by_admin), kept
        assert any("user:kafkaops-validator is denied" in line and "peration = write " in line for line in kept), kept
        for allowed_read_or_write in ("write", "read", "describe"):
            assert not any("is allowed" in line and f"peration = {allowed_read_or_write} " in line
                           for line in kept), kept
    finally:
        admin.delete_topics([topic])


@pytest.mark.zookeeper
def test_zookeeper_has_no_plaintext_port_and_refuses_a_certificate_without_a_login(settings, tmp_path):
    for member in settings["zookeeper_members"].values():
        address = member.rsplit(":", 1)[0]
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((address, 2181), timeout=5).close()
    # TLS with the kit's own certificate, the cluster's CA's, but no login: the session is closed at once
    zk = kazoo_client(sasl_options=None)
    with pytest.raises((KazooTimeoutError, SessionClosedRequireSaslError)):
        zk.start(timeout=15)
    zk.stop()
    zk.close()
    # a certificate of another CA does not get as far
    foreign = certificates.issue(tmp_path, "intruder", certificates.another_ca(tmp_path), ["intruder"])
    zk = kazoo_client(certfile=foreign[0], keyfile=foreign[1])
    with pytest.raises(KazooTimeoutError):
        zk.start(timeout=10)
    zk.stop()
    zk.close()
    # with the login it works (the kit's own client)
    zk = kazoo_client()
    zk.start(timeout=15)
    try:
        assert zk.exists("/brokers/ids")
    finally:
        zk.stop()
        zk.close()
