"""kafka_adoption_facts on the lab's hosts: it reads the broker and the ZooKeeper member the kit runs as adoption reads
a cluster it did not deploy (the process, its unit, config, release, log dirs), and a host that runs neither."""

from lab import config


def _process(result, kind):
    found = [p for p in result["processes"] if p["kind"] == kind]
    assert len(found) == 1, result["processes"]
    return found[0]


def test_reads_the_broker_the_kit_runs(run_module):
    result = run_module("kafka_adoption_facts", host="kafka1")
    assert not result.get("failed"), result.get("msg")
    assert result["changed"] is False and result["errors"] == []
    broker = _process(result, "broker")
    assert (broker["main"], broker["unit"], broker["config"], broker["release"]) == (
        "kafka.Kafka", "kafka.service", "/etc/kafka/server.properties", config.KAFKA_VERSION)
    assert broker["heap"] and broker["java"].endswith("java")
    server = result["server"]
    assert server.get("broker.id", server.get("node.id")) == "1"  # node.id on KRaft
    data = result["log_dirs"]["/var/lib/kafka/data"]
    assert data["cluster.id"] and data.get("broker.id", data.get("node.id")) == "1"


def test_reads_a_zookeeper_member_and_a_host_that_runs_neither(run_module, settings):
    member = run_module("kafka_adoption_facts", host="zk1")
    assert not member.get("failed"), member.get("msg")
    if settings["zookeeper_connect"]:
        zookeeper = _process(member, "zookeeper")
        assert (zookeeper["unit"], zookeeper["release"], member["myid"]) == (
            "zookeeper.service", config.KAFKA_VERSION, 1)
    else:  # a KRaft lab runs no ZooKeeper
        assert member["processes"] == [] and member["myid"] is None
    spare = run_module("kafka_adoption_facts", host="kafka4")
    assert (spare["processes"], spare["server"], spare["log_dirs"], spare["errors"]) == ([], None, {}, [])
