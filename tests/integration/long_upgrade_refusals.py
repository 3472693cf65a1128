"""The refusals of upgrade_kafka.yml and rollback_upgrade.yml on the lab (make test-long: the ZooKeeper lab of 3.9.2):
each cause made real, the run (and its --check) refused with the rule's id, changing nothing (unchanged.lab_state:
every host's services, config files and data dirs, the znodes, the throttles) and recording no upgrade. The refusals
a real upgrade reaches (upgrade-protocol-raised, rollback-upgrade-irreversible) are tests/drills/journey.py's (make
journey) and tests/drills/upgrade_kraft.py's (make test-upgrade)."""

import pathlib
import time

import pytest
from confluent_kafka import Producer
from lab_hosts import ssh_run
from test_recovery_playbooks import _conn, _wait_healthy
from unchanged import lab_state

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_connection, kafka_identity
from lab import config, faults
from lab.cluster_settings import kafka_config

RECORDS = pathlib.Path.home() / ".kafkaops" / "upgrades"  # playbooks/vars/upgrade.yml's upgrade_record_dir


def _records():
    return sorted(p.name for p in RECORDS.glob("*.json")) if RECORDS.is_dir() else []


def _refused(run_playbook, settings, rule, playbook, *args):
    """The run and its --check, each refused with rule and changing nothing; the run's output."""
    before, records = lab_state(settings), _records()
    for check in (["--check"], []):
        proc = run_playbook(playbook, *args, *check)
        assert proc.returncode != 0 and f"[{rule}]" in proc.output, proc.output[-3000:]
        assert lab_state(settings) == before and _records() == records
    return proc.output


def test_a_rollback_with_no_upgrade_recorded_is_refused(run_playbook, settings):
    output = _refused(run_playbook, settings, "rollback-upgrade-nothing-recorded", "rollback_upgrade.yml")
    assert "Refusing to roll the upgrade back" in output and "there is nothing to roll back" in output


def test_an_older_release_is_refused(run_playbook, settings):
    output = _refused(run_playbook, settings, "upgrade-downgrade", "upgrade_kafka.yml", "-e", "kafka_version=3.6.2")
    assert "the cluster runs 3.9.2 and kafka_version is 3.6.2, an older release" in output


@pytest.fixture
def kafka3_stopped(bootstrap_servers, zookeeper_connect, run_module):
    host = config.host("kafka3")
    ssh_run(host, "systemctl stop kafka")
    yield host
    ssh_run(host, "systemctl start kafka")
    _wait_healthy(run_module, _conn(bootstrap_servers, zookeeper_connect), 3)


def test_a_node_that_does_not_run_is_refused(run_playbook, settings, kafka3_stopped):
    output = _refused(run_playbook, settings, "upgrade-node-down", "upgrade_kafka.yml", "-e", "kafka_version=3.9.2")
    assert "kafka3 does not run: an upgrade rolls a cluster whose every node runs" in output


def _replication_port(host):
    """The port of the listener the brokers replicate over (inter.broker.listener.name), from host's broker config."""
    props = kafka_identity.parse_properties(ssh_run(host, "cat /etc/kafka/server.properties"))
    return kafka_connection.listeners(props)[props["inter.broker.listener.name"]][1]


@pytest.fixture
def follower_cut_off(bootstrap_servers, zookeeper_connect, run_module, topic):
    """A broker that is not the controller kept running and registered, its fetches to the other brokers dropped until
    partitions it follows (topic's, RF 3) leave their ISR (under-replicated); then let through and back in every ISR.
    Its id."""
    conn = _conn(bootstrap_servers, zookeeper_connect)

    def info():
        result = run_module("kafka_cluster_info", **conn)
        assert not result["failed"], result.get("msg")
        return result
    broker_id = next(b for b in (3, 2) if b != info()["controller_id"])
    host = config.host(f"kafka{broker_id}")
    others = [config.host(f"kafka{b}") for b in (1, 2, 3) if b != broker_id]
    faults.block_to(host, others, _replication_port(host))
    try:
        # a follower at the leader's end stays in sync however long it does not fetch: the leaders must move on
        # (acks=1 and no idempotence: nothing waits for the follower, nor for a transaction coordinator it may lead)
        producer = Producer(kafka_config(bootstrap_servers) | {"acks": "1", "enable.idempotence": False})
        for partition in range(6):
            producer.produce(topic, b"ahead of the follower", partition=partition)
        assert producer.flush(60) == 0, "records to the topic not acknowledged"
        deadline = time.monotonic() + 180  # replica.lag.time.max.ms (30 s by default), then the ISR change
        while not info()["under_replicated"]:
            assert time.monotonic() < deadline, f"no partition under-replicated 180 s after kafka{broker_id}'s cut"
            time.sleep(5)
        yield broker_id
    finally:
        faults.connect(host)
        _wait_healthy(run_module, conn, broker_id)


def test_under_replicated_partitions_are_refused(run_playbook, settings, follower_cut_off):
    output = _refused(run_playbook, settings, "upgrade-under-replicated", "upgrade_kafka.yml",
                      "-e", "kafka_version=3.9.2")
    assert "partition(s) are under-replicated" in output and "an upgrade starts from a healthy cluster" in output
