"""Prometheus's scrape targets from the inventory (module_utils/monitoring_targets.py), on hand-written inventories."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils.monitoring_targets import scrape_targets

JOBS = {"kafka_broker": {"kafka1": "kafka1.lab:9404", "kafka2": "kafka2.lab:9404"},
        "zookeeper": {"zk1": "10.0.0.11:9406"},
        "node": {"kafka1": "kafka1.lab:9100", "kafka2": "kafka2.lab:9100", "zk1": "10.0.0.11:9100"}}
PORTS = {"kafka_broker": 9093, "zookeeper": 2182}


def test_each_endpoint_is_labelled_with_its_host_and_each_listener_is_probed():
    targets = scrape_targets(JOBS, {}, {}, PORTS)
    assert targets["kafka_broker"] == [{"targets": ["kafka1.lab:9404"], "labels": {"host": "kafka1"}},
                                       {"targets": ["kafka2.lab:9404"], "labels": {"host": "kafka2"}}]
    assert targets["node"][2] == {"targets": ["10.0.0.11:9100"], "labels": {"host": "zk1"}}
    assert targets["blackbox"] == [
        {"targets": ["kafka1.lab:9093"], "labels": {"host": "kafka1", "kind": "kafka_broker"}},
        {"targets": ["kafka2.lab:9093"], "labels": {"host": "kafka2", "kind": "kafka_broker"}},
        {"targets": ["10.0.0.11:2182"], "labels": {"host": "zk1", "kind": "zookeeper"}}]


def test_a_replacement_takes_the_failed_hosts_endpoints_under_its_own_name_and_the_same_ports():
    targets = scrape_targets(JOBS, {"kafka2": "kafka4"}, {"kafka4": "kafka4.lab:0"}, PORTS)
    assert targets["kafka_broker"][1] == {"targets": ["kafka4.lab:9404"], "labels": {"host": "kafka4"}}
    assert targets["node"][1] == {"targets": ["kafka4.lab:9100"], "labels": {"host": "kafka4"}}
    assert {"targets": ["kafka4.lab:9093"], "labels": {"host": "kafka4", "kind": "kafka_broker"}} in targets["blackbox"]
    assert not any(t["labels"]["host"] == "kafka2" for job in targets.values() for t in job)
    assert targets["kafka_broker"][0]["labels"] == {"host": "kafka1"}  # the others as they were


def test_a_host_replaced_by_itself_keeps_its_endpoint():
    unchanged = scrape_targets(JOBS, {}, {}, PORTS)
    assert scrape_targets(JOBS, {"kafka2": "kafka2"}, {"kafka2": "other:0"}, PORTS) == unchanged
