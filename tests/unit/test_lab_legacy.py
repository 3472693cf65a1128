"""The cluster `python -m lab legacy-deploy` writes, read back as adoption reads a host (kafka_adoption)."""

import shlex

import pytest

from lab import legacy
from lab.config import Host
from lab.shell import LabError
from plugins.module_utils import kafka_adoption

JARS = ["kafka_2.13-3.6.2.jar", "zookeeper-3.8.4.jar", "kafka-clients-3.6.2.jar"]
ZK = [Host("zk1", "10.0.0.11", ("zookeeper",)), Host("zk2", "10.0.0.12", ("zookeeper",))]


def exec_start(unit_text):
    line = next(x for x in unit_text.splitlines() if x.startswith("ExecStart="))
    return shlex.split(line[len("ExecStart="):])


@pytest.mark.parametrize(("kind", "expected"), [("kafka", "broker"), ("zookeeper", "zookeeper")])
def test_the_units_run_what_kafkas_scripts_run_and_adoption_reads_them(kind, expected):
    argv = exec_start(legacy.unit("3.6.2", kind, JARS))
    assert argv[argv.index("-cp") + 1].split(":")[0] == "/opt/kafka_2.13-3.6.2/bin/../libs/kafka-clients-3.6.2.jar"
    seen = kafka_adoption.read_java_process(argv)
    assert (seen["kind"], seen["release"], seen["zookeeper_release"]) == (expected, "3.6.2", "3.8.4")
    assert seen["config"] == "/opt/kafka_2.13-3.6.2/config/" + (
        "server.properties" if kind == "kafka" else "zookeeper.properties")


def test_the_broker_is_open_and_advertised_by_name_and_zookeeper_lists_its_members():
    props = legacy.server_properties(2, Host("kafka2", "10.0.0.22", ("kafka_broker",)), ZK)
    assert "advertised.listeners=PLAINTEXT://kafka2.kafkalab.test:9092\n" in props
    assert "zookeeper.connect=zk1.kafkalab.test:2181,zk2.kafkalab.test:2181\n" in props
    assert "log.dirs=/var/lib/kafka/kafka-logs\n" in props and "authorizer" not in props
    assert "server.2=zk2.kafkalab.test:2888:3888" in legacy.zookeeper_properties(ZK)


def test_a_release_without_zookeeper_mode_is_refused():
    with pytest.raises(LabError, match="2.8.x to 3.9.x, not 4.4.0"):
        legacy.deploy("4.4.0")
