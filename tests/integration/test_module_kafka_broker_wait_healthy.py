"""kafka_broker_wait_healthy against the lab cluster."""


def test_healthy_broker_passes_at_once(run_module, bootstrap_servers, zookeeper_connect):
    result = run_module("kafka_broker_wait_healthy", broker_id=2, timeout=30,
                        bootstrap_servers=bootstrap_servers, zookeeper_connect=zookeeper_connect)
    assert not result.get("failed"), result.get("msg")
    assert result["progress"][0]["registered"] is True and result["progress"][0]["lagging"] == 0


def test_unknown_broker_times_out_naming_it(run_module, bootstrap_servers, zookeeper_connect):
    result = run_module("kafka_broker_wait_healthy", broker_id=9, timeout=4, poll_interval=1,
                        bootstrap_servers=bootstrap_servers, zookeeper_connect=zookeeper_connect)
    assert result["failed"] is True
    assert result["msg"].startswith("broker 9 is not registered in ZooKeeper after 4s")
