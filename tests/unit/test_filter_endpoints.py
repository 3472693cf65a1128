"""The endpoints filter: how the connection role derives every client's addresses from the inventory."""

from ansible_collections.kafkaops.toolkit.plugins.filter.endpoints import endpoints

HOSTVARS = {
    "kafka1": {"ansible_host": "10.0.0.21", "kafka_advertised_host": "kafka1.example.com"},
    "kafka2": {"ansible_host": "10.0.0.22", "kafka_port": 9093},
    "kafka3": {},
}


def test_the_first_defined_host_variable_wins_then_the_inventory_name():
    found = endpoints(["kafka1", "kafka2", "kafka3"], HOSTVARS, 9092, ["kafka_advertised_host", "ansible_host"],
                      "kafka_port")
    assert found == {"kafka1": "kafka1.example.com:9092", "kafka2": "10.0.0.22:9093", "kafka3": "kafka3:9092"}
    assert list(found) == ["kafka1", "kafka2", "kafka3"]  # inventory order


def test_addresses_by_default_and_one_port_for_all():
    assert endpoints(["kafka1", "kafka2"], HOSTVARS, "2181") == {"kafka1": "10.0.0.21:2181", "kafka2": "10.0.0.22:2181"}
