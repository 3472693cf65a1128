"""kafka_cluster_info against the lab cluster."""


def test_reports_controller_brokers_and_healthy_partitions(run_module, settings, bootstrap_servers,
                                                           zookeeper_connect):
    result = run_module("kafka_cluster_info", bootstrap_servers=bootstrap_servers,
                        zookeeper_connect=zookeeper_connect)
    assert not result.get("failed"), result.get("msg")
    assert result["changed"] is False
    summary = result["summary"]
    assert summary["live_brokers"] == [1, 2, 3]
    assert summary["controller_id"] in (1, 2, 3)
    assert len(summary["cluster_id"]) == 22  # Kafka's base64 UUID
    assert summary["under_replicated"] == summary["offline"] == summary["under_min_isr"] == 0
    # Brokers advertise the names of inventories/lab (kafka_advertised_host), not the addresses.
    # (The port is the first listener a broker registered, CLIENT in ZooKeeper mode; the kit's admin uses REPLICATION.)
    advertised = sorted(b["host"] for b in result["brokers"].values())
    assert advertised == sorted(endpoint.rsplit(":", 1)[0] for endpoint in settings["brokers"].values())
    assert all(b["host"].endswith(".kafkalab.test") for b in result["brokers"].values())


def test_unreachable_cluster_fails_with_what_to_check(run_module):
    result = run_module("kafka_cluster_info", bootstrap_servers="10.213.7.99:9092",
                        zookeeper_connect="10.213.7.99:2181/kafka", request_timeout=3)
    assert result["failed"] is True
    assert "Check that brokers and ZooKeeper are reachable" in result["msg"]
