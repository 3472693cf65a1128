"""migrate_to_kraft.yml's precheck on the secured ZooKeeper lab (make test-migration): each refusal the issue names,
each proving that nothing changed (every host's services, config files and data dirs, the controllers' included,
and the brokers' znodes), and that /migration was not written. A faulty state is made for each (a config line, a
stopped member, a foreign metadata dir) and taken back after."""

import json
import uuid

import pytest
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic, ResourceType
from lab_hosts import ssh_run
from unchanged import lab_state

from lab import config
from lab.cluster_settings import kafka_config, kazoo_client


def _refused(run_playbook, settings, rule, refusal, *args):
    """The run is refused with rule's refusal (its id, then the start of its message) and changes nothing."""
    before = lab_state(settings)
    # up to the first step only: a run that wrongly went on (tests/rule_removal.py) stops there
    run = run_playbook("migrate_to_kraft.yml", "-e", "migration_until=controllers", *args)
    assert run.returncode != 0, run.output[-3000:]
    assert "Refusing to migrate to KRaft: [" in run.output and f"[{rule}] {refusal}" in run.output \
        and "Nothing changed." in run.output, run.output[-3000:]
    assert lab_state(settings) == before
    assert _migration_znode(settings) is None
    return run


def _migration_znode(settings):
    zk = kazoo_client(settings["zookeeper_connect"], timeout=10)
    zk.start(timeout=30)
    try:
        return zk.get("/migration")[0] if zk.exists("/migration") else None
    finally:
        zk.stop()
        zk.close()


@pytest.fixture
def server_properties_line():
    """Append a line to a broker's server.properties (the broker keeps running on the old file); taken back."""
    edited = []

    def append(name, line):
        host = config.host(name)
        ssh_run(host, f"cp -p /etc/kafka/server.properties /root/server.properties.saved && "
                      f"echo '{line}' >> /etc/kafka/server.properties")
        edited.append(host)
    yield append
    for host in edited:
        ssh_run(host, "mv /root/server.properties.saved /etc/kafka/server.properties")


@pytest.mark.parametrize("broker, line, rule, refusal", [
    ("kafka3", "reserved.broker.max.id=2", "migration-generated-broker-ids",
     "broker ids above reserved.broker.max.id (2) were generated ([3])"),
    ("kafka2", "inter.broker.protocol.version=3.8", "migration-needs-3-9-protocol",
     "inter.broker.protocol.version is not 3.9 on {'kafka2': '3.8'}"),
])
def test_a_broker_config_the_migration_cannot_take_is_refused(run_playbook, settings, server_properties_line,
                                                               broker, line, rule, refusal):
    server_properties_line(broker, line)
    _refused(run_playbook, settings, rule, refusal)


def test_unclean_leader_election_is_refused(run_playbook, settings):
    topic = f"unclean-{uuid.uuid4().hex[:6]}"
    admin = AdminClient(kafka_config())
    admin.create_topics([NewTopic(topic, 1, 3)])[topic].result(30)
    resource = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("unclean.leader.election.enable", "true", incremental_operation=AlterConfigOpType.SET)])
    admin.incremental_alter_configs([resource])[resource].result(30)
    try:
        _refused(run_playbook, settings, "migration-unclean-election", f"unclean leader election is on: topic {topic}")
    finally:
        admin.delete_topics([topic])[topic].result(30)


def test_under_replicated_partitions_are_refused(run_playbook, settings, run_module, topic):
    """topic: partitions on every broker (a fresh lab may have none)."""
    kafka3 = config.host("kafka3")
    ssh_run(kafka3, "systemctl stop kafka")  # a controlled shutdown: it leaves every ISR at once
    try:
        run = _refused(run_playbook, settings, "migration-under-replicated", "")
        assert "partition(s) are under-replicated: " in run.output, run.output[-3000:]
    finally:
        ssh_run(kafka3, "systemctl start kafka")
        healthy = run_module("kafka_broker_wait_healthy", broker_id=3, wait_timeout=300)
        assert not healthy["failed"], healthy.get("msg")


def test_an_unhealthy_zookeeper_is_refused(run_playbook, settings, run_module):
    zk3 = config.host("zk3")
    ssh_run(zk3, "systemctl stop zookeeper")
    try:
        _refused(run_playbook, settings, "migration-zookeeper-unhealthy", "ZooKeeper is unhealthy: zk3 not serving")
    finally:
        ssh_run(zk3, "systemctl start zookeeper")
        ensemble = run_module("zookeeper_ensemble_info", members=settings["zookeeper_members"], wait_timeout=120)
        assert not ensemble["failed"], ensemble.get("msg")


@pytest.mark.parametrize("extra, rule, refusal", [
    ({"kafka_controller_group": "no_such_group"}, "migration-no-controllers", "the inventory has no KRaft controllers"),
    ({"kafka_controller_node_id": 2}, "kraft-node-ids",
     "controller ctrl1, ctrl2, ctrl3 has node id 2, the id of broker kafka2"),
])
def test_missing_or_clashing_controllers_are_refused(run_playbook, settings, extra, rule, refusal):
    _refused(run_playbook, settings, rule, refusal, "-e", json.dumps(extra))


def test_a_controller_dir_of_another_cluster_is_refused(run_playbook, settings, controllers):
    ctrl1 = controllers[0]
    existed = ssh_run(ctrl1, "test -d /var/lib/kafka-controller && echo yes || echo no").strip() == "yes"
    ssh_run(ctrl1, "mkdir -p /var/lib/kafka-controller/metadata && printf "
                   "'version=1\\ncluster.id=AnotherClusterXXXXXXXX\\nnode.id=9001\\ndirectory.id=Dg7Wc0p5QkWZ6wbmUvXw0A\\n'"
                   " > /var/lib/kafka-controller/metadata/meta.properties")
    try:
        _refused(run_playbook, settings, "migration-other-cluster-metadata",
                 "the metadata dir of controller ctrl1 holds cluster AnotherClusterXXXXXXXX")
    finally:
        ssh_run(ctrl1, "rm -f /var/lib/kafka-controller/metadata/meta.properties" if existed
                else "rm -rf /var/lib/kafka-controller")


def test_a_migration_znode_left_by_an_earlier_migration_is_refused(run_playbook, settings):
    zk = kazoo_client(settings["zookeeper_connect"], timeout=10)
    zk.start(timeout=30)
    left = {"version": 0, "kraft_metadata_offset": 42, "kraft_controller_id": 9001, "kraft_metadata_epoch": 1,
            "kraft_controller_epoch": 1}
    zk.create("/migration", json.dumps(left).encode())
    try:
        before = lab_state(settings)
        run = run_playbook("migrate_to_kraft.yml")
        assert run.returncode != 0 and "[migration-stale-znode] /migration holds" in run.output \
            and "KAFKA-17146" in run.output, \
            run.output[-3000:]
        assert lab_state(settings) == before
        assert json.loads(zk.get("/migration")[0]) == left
    finally:
        zk.delete("/migration")
        zk.stop()
        zk.close()


def test_an_empty_migration_znode_is_no_refusal_and_check_mode_keeps_it(run_playbook, settings):
    """Kafka's ZooKeeper security migration tool leaves an empty /migration (KAFKA-19480): the plan does not refuse
    it, and check mode leaves it (the run deletes it before the controllers start)."""
    zk = kazoo_client(settings["zookeeper_connect"], timeout=10)
    zk.start(timeout=30)
    zk.create("/migration", b"")
    try:
        before = lab_state(settings)
        run = run_playbook("migrate_to_kraft.yml", "--check")
        assert run.returncode == 0 and "next: controllers" in run.output, run.output[-3000:]
        assert lab_state(settings) == before and zk.exists("/migration")
    finally:
        zk.delete("/migration")
        zk.stop()
        zk.close()
