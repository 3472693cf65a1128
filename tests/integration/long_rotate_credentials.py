"""rotate_credentials.yml's rotations that roll the cluster (several gated rolls each, about ten minutes together, so
not in make test: `make test-long` runs them; pytest collects long_*.py files only when named; make bench-rotation
times every kind under one canary). The kit's admin certificate: under a canary, its next generation is accepted,
used, and the old one is deleted and no longer a super user. The ZooKeeper login (ZooKeeper lab): under a canary,
through three gated rolls, the old login is refused afterwards, the new one works and the znodes' ACLs still name the
one user. No password on any command line meanwhile."""

import os
import shutil
import uuid

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.exceptions import AuthFailedError, ConnectionLoss, SessionClosedRequireSaslError
from kazoo.handlers.threading import KazooTimeoutError

from canary import Canary, ensure_topic
from canary.ledger import read_acked
from lab import config
from lab.cluster_settings import kafka_config, kazoo_client, load
from lab.command_lines import CommandLineWatch


def _canary_login():
    load.cache_clear()  # the settings file is written again: the kit's files may hold another login now
    return kafka_config(principal="canary")


def _creates_a_topic(conf):
    topic = f"admin-rotate-{uuid.uuid4().hex[:8]}"
    try:
        admin = AdminClient(conf | {"log_level": 0})  # kept: a future outlives no client (_DESTROY)
        admin.create_topics([NewTopic(topic, 1, 3)])[topic].result(30)
    except KafkaException as exc:
        return exc.args[0].name()
    AdminClient(kafka_config()).delete_topics([topic])
    return None


def test_the_admin_certificate_rotates_under_a_canary_and_the_old_one_is_no_super_user(run_playbook, tmp_path):
    current = config.PKI / "admin" / "current"
    before = int(os.readlink(current).removeprefix("g"))
    old = tmp_path / "old"
    shutil.copytree(current.resolve(), old)  # what someone who kept the old key holds
    old_conf = kafka_config() | {"ssl.certificate.location": str(old / "chain.pem"),
                                 "ssl.key.location": str(old / "key.pem")}
    assert _creates_a_topic(old_conf) is None
    checked = run_playbook("rotate_credentials.yml", "-e", "credentials=admin", "--check")
    assert checked.returncode == 0 and f"admin certificate: g{before} -> g{before + 1}" in checked.output
    assert not (config.PKI / "admin" / f"g{before + 1}").exists()  # check mode made nothing

    topic, ledger = f"canary-admin-{uuid.uuid4().hex[:6]}", tmp_path / "ledger"
    ensure_topic(kafka_config(), topic)
    canary = Canary(_canary_login(), topic, ledger, rate=200).start()
    try:
        rotated = run_playbook("rotate_credentials.yml", "-e", "credentials=admin")
    finally:
        unreported = canary.stop()
    assert rotated.returncode == 0, rotated.output[-3000:]
    assert unreported == 0 and canary.failed == 0 and len(read_acked(ledger)) == canary.sent
    assert os.readlink(current) == f"g{before + 1}" and not (config.PKI / "admin" / f"g{before}").exists()
    load.cache_clear()
    assert _creates_a_topic(kafka_config()) is None
    assert _creates_a_topic(old_conf) in ("TOPIC_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED")

    site = run_playbook("site.yml")
    assert site.returncode == 0 and all(" changed=0 " in line for line in site.stdout.splitlines() if " : ok=" in line)


def _zookeeper_answers(sasl_options):
    """The ACLs of /brokers/ids as a client with this login reads them, or None when ZooKeeper refuses the login (it
    closes the session of a failed SASL login: the start times out, or the first request loses its connection; the
    same call with the new login must answer, which tells a refusal from a network fault)."""
    zk = kazoo_client(sasl_options=sasl_options)
    try:
        zk.start(timeout=15)
    except KazooTimeoutError:
        return None
    try:
        return zk.get_acls("/brokers/ids")[0]
    except (ConnectionLoss, SessionClosedRequireSaslError, AuthFailedError):
        return None
    finally:
        zk.stop()
        zk.close()


@pytest.mark.zookeeper
def test_the_zookeeper_login_rotates_under_a_canary_the_acls_naming_the_same_user(run_playbook, tmp_path):
    old = load()["kazoo"]["sasl_options"]
    acls_before = _zookeeper_answers(old)
    assert acls_before and any(acl.id.scheme == "sasl" for acl in acls_before)
    checked = run_playbook("rotate_credentials.yml", "-e", "credentials=zookeeper", "--check")
    assert checked.returncode == 0 and "ZooKeeper login: g" in checked.output, checked.output[-3000:]

    topic, ledger = f"canary-zk-login-{uuid.uuid4().hex[:6]}", tmp_path / "ledger"
    ensure_topic(kafka_config(), topic)
    canary = Canary(_canary_login(), topic, ledger, rate=200).start()
    try:
        with CommandLineWatch(config.load_hosts()) as watch:  # the lab's passwords, the next one as it is made
            rotated = run_playbook("rotate_credentials.yml", "-e", "credentials=zookeeper")
    finally:
        unreported = canary.stop()
    assert rotated.returncode == 0, rotated.output[-3000:]
    assert watch.samples > 0 and watch.leaks == []
    assert unreported == 0 and canary.failed == 0 and len(read_acked(ledger)) == canary.sent
    load.cache_clear()
    new = load()["kazoo"]["sasl_options"]
    assert new["username"] != old["username"] and new["password"] != old["password"]
    assert _zookeeper_answers(old) is None  # the old login is refused
    acls_after = _zookeeper_answers(new)
    assert {(a.id.scheme, a.id.id) for a in acls_after} == {(a.id.scheme, a.id.id) for a in acls_before}

    site = run_playbook("site.yml")
    assert site.returncode == 0 and all(" changed=0 " in line for line in site.stdout.splitlines() if " : ok=" in line)
