"""The keys server.properties.j2, controller.properties.j2 and zoo.cfg.j2 write are the keys the preflights keep
out of kafka_extra_properties / kafka_controller_extra_properties / zookeeper_extra_config (the lists are kept by
hand next to the templates)."""

import re

import yaml

from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import zookeeper_tls_properties
from scripts.role_variables_table import REPO

_KEY_LINE = re.compile(r"^([A-Za-z0-9_.]+)=", re.MULTILINE)


def _written_keys(template):
    return set(_KEY_LINE.findall((REPO / template).read_text()))


def test_every_key_server_properties_writes_is_managed():
    role_vars = yaml.safe_load((REPO / "roles/kafka_broker/vars/main.yml").read_text())
    managed = role_vars["_kafka_broker_managed_properties"]
    # The ZooKeeper TLS keys come from a filter, not from key= lines
    written = (_written_keys("roles/kafka_broker/templates/server.properties.j2")
               | set(zookeeper_tls_properties("k", "t")))
    assert written - set(managed) == set()


def test_every_key_zoo_cfg_writes_is_managed():
    preflight = yaml.safe_load((REPO / "roles/zookeeper/tasks/preflight.yml").read_text())
    managed = next(task["vars"]["_zookeeper_managed_keys"] for task in preflight
                   if "_zookeeper_managed_keys" in task.get("vars", {}))
    written = _written_keys("roles/zookeeper/templates/zoo.cfg.j2")
    assert written - set(managed) == set()


def test_every_key_controller_properties_writes_is_managed():
    role_vars = yaml.safe_load((REPO / "roles/kafka_controller/vars/main.yml").read_text())
    written = (_written_keys("roles/kafka_controller/templates/controller.properties.j2")
               | set(zookeeper_tls_properties("k", "t")))
    assert written - set(role_vars["_kafka_controller_managed_properties"]) == set()
