"""The lab boots what the lab inventory says."""

import pytest

from lab import config


def test_lab_hosts_come_from_the_inventory():
    hosts = {h.name: h for h in config.load_hosts()}
    assert sorted(hosts) == ["kafka1", "kafka2", "kafka3", "kafka4", "zk1", "zk2", "zk3"]
    assert hosts["kafka4"].groups == ("kafka_spare",)
    assert [h.has_disk for h in hosts.values()].count(True) == 4
    assert not hosts["zk1"].has_disk


def test_bridge_takes_the_first_address_of_the_hosts_network():
    assert config.bridge_address(config.load_hosts()) == "10.213.7.1/24"


def test_hosts_outside_one_network_are_refused(tmp_path):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("all:\n  children:\n    zookeeper:\n      hosts:\n"
                         "        a: {ansible_host: 10.0.0.5}\n        b: {ansible_host: 10.0.1.5}\n")
    with pytest.raises(SystemExit, match="outside 10.0.0.0/24"):
        config.bridge_address(config.load_hosts(inventory))
