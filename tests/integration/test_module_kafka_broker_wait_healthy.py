"""kafka_broker_wait_healthy against the lab cluster (a stopped broker: long_modules_with_a_broker_down.py)."""


def test_healthy_broker_passes_at_once(run_module, bootstrap_servers, zookeeper_connect):
    result = run_module("kafka_broker_wait_healthy", broker_id=2, wait_timeout=30,
                        bootstrap_servers=bootstrap_servers, zookeeper_connect=zookeeper_connect)
    assert not result["failed"], result.get("msg")
    assert result["done"] is True and result["registered"] is True and result["lagging"] == []


def test_single_check_of_an_unknown_broker_reports_without_failing(run_module, bootstrap_servers,
                                                                   zookeeper_connect):
    result = run_module("kafka_broker_wait_healthy", broker_id=9, wait_timeout=0,
                        bootstrap_servers=bootstrap_servers, zookeeper_connect=zookeeper_connect)
    assert not result["failed"]
    assert result["done"] is False and result["registered"] is False


def test_unknown_broker_times_out_naming_it(run_module, bootstrap_servers, zookeeper_connect):
    result = run_module("kafka_broker_wait_healthy", broker_id=9, wait_timeout=4, poll_interval=1,
                        bootstrap_servers=bootstrap_servers, zookeeper_connect=zookeeper_connect)
    assert result["failed"] is True
    assert result["msg"].startswith("broker 9 did not register in ZooKeeper")
