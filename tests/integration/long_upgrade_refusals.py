"""The refusals of upgrade_kafka.yml and rollback_upgrade.yml on the lab (make test-long: the ZooKeeper lab of 3.9.2):
each cause made real, the run (and its --check) refused with the rule's id, changing nothing (unchanged.lab_state:
every host's services, config files and data dirs, the znodes, the throttles) and recording no upgrade. The refusals
a real upgrade reaches (upgrade-protocol-raised, rollback-upgrade-irreversible) are tests/drills/journey.py's (make
journey) and tests/drills/upgrade_kraft.py's (make test-upgrade)."""

import pathlib

import pytest
from lab_hosts import ssh_run
from test_recovery_playbooks import _conn, _wait_healthy
from unchanged import lab_state

from lab import config

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
