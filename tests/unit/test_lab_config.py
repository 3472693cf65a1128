"""The lab boots what the lab inventory says."""

import pathlib
import re

import pytest
import yaml

from lab import config, names


def test_lab_hosts_come_from_the_inventory():
    hosts = {h.name: h for h in config.load_hosts()}
    assert sorted(hosts) == ["ctrl1", "ctrl2", "ctrl3", "kafka1", "kafka2", "kafka3", "kafka4", "mon1", "zk1", "zk2",
                             "zk3"]
    assert hosts["kafka4"].groups == ("kafka_spare",)
    assert hosts["mon1"].groups == ("monitoring",)
    assert [h.has_disk for h in hosts.values()].count(True) == 4
    assert not hosts["zk1"].has_disk and not hosts["ctrl1"].has_disk


def test_bridge_takes_the_first_address_of_the_hosts_network():
    assert config.bridge_address(config.load_hosts()) == "10.213.7.1/24"


def test_hosts_outside_one_network_are_refused(tmp_path):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("all:\n  children:\n    zookeeper:\n      hosts:\n"
                         "        a: {ansible_host: 10.0.0.5}\n        b: {ansible_host: 10.0.1.5}\n")
    with pytest.raises(SystemExit, match="outside 10.0.0.0/24"):
        config.bridge_address(config.load_hosts(inventory))


def test_brokers_advertise_the_names_the_lab_resolves():
    group_vars = yaml.safe_load((config.REPO / "inventories/lab/group_vars/all.yml").read_text())
    assert group_vars["kafka_advertised_host"] == "{{ inventory_hostname }}." + config.DOMAIN
    assert config.load_hosts()[0].fqdn == "zk1." + config.DOMAIN


def test_the_controllers_hosts_block_is_written_once_and_removed_exactly(tmp_path):
    etc_hosts = tmp_path / "hosts"
    original = "127.0.0.1 localhost\n10.0.0.9 other  # kept\n"
    etc_hosts.write_text(original)
    hosts = config.load_hosts()
    names.add_to_controller(hosts, etc_hosts)
    names.add_to_controller(hosts, etc_hosts)  # a second `lab up` keeps one block
    text = etc_hosts.read_text()
    assert text.startswith(original) and text.count(names.BEGIN) == 1
    assert "10.213.7.21 kafka1.kafkalab.test kafka1" in text.splitlines()
    names.remove_from_controller(etc_hosts)
    assert etc_hosts.read_text() == original


def test_a_password_or_a_private_key_in_a_log_is_named_not_shown():
    from scripts.check_no_secrets import leaks
    secrets = {"kafka-broker": "s3cretA", "kafkaops-admin": "s3cretB"}
    assert leaks("ok: [kafka1] => (item=(censored due to no_log))", secrets) == []
    assert leaks("password=s3cretB\n-----BEGIN PRIVATE KEY-----", secrets) == [
        "the password kafkaops-admin", "a private key"]


def test_the_lab_runs_one_release_of_the_version_table_and_its_inventory_the_same():
    from plugins.module_utils import kafka_versions
    inventory = (config.REPO / "inventories" / "lab" / "group_vars" / "all.yml").read_text()
    inventory_default = re.search(r"KAFKAOPS_LAB_KAFKA_VERSION'\) \| default\('([^']+)'", inventory).group(1)
    lab_default = re.search(r'"KAFKAOPS_LAB_KAFKA_VERSION"\) or "([^"]+)"', pathlib.Path(config.__file__).read_text())
    assert lab_default.group(1) == inventory_default
    assert inventory_default in kafka_versions.RELEASES
