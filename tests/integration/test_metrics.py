"""Metrics on every node and the monitoring host (roles jmx_exporter, node_exporter, monitoring; monitoring.yml through
site.yml): each endpoint serves TLS 1.3 with the host's certificate to the scrape login only, Prometheus
scrapes every node the inventory names and loads the kit's rules, nothing fires on a healthy cluster, and
Alertmanager's notifications reach the receiver the inventory names (the lab's: lab/receiver.py); a rule file that
promtool rejects stops site.yml before anything changes; the lag exporter reads a group's lag as its own principal."""

import datetime
import json
import ssl
import time
import uuid

import pytest
import yaml
from confluent_kafka import Consumer, Producer, TopicPartition
from lab_hosts import service_starts

from lab import config, receiver
from lab.cluster_settings import kafka_config
from lab.machines import run_on
from lab.monitoring import alertmanager, get, monitoring_host, prometheus, scrape

# What each kind of node serves that the alert rules read (tests/unit/test_alert_rules.py checks every name)
EXPECTED = {"kafka_broker": "kafka_server_replicamanager_underreplicatedpartitions",
            "kafka_controller": "kafka_server_raft_metrics_current_state",
            "zookeeper": "zookeeper_state",
            "node": "node_systemd_unit_state"}
RULE_FILE = config.REPO / "roles" / "monitoring" / "files" / "rules" / "kafka-alerts.yml"


def _endpoints(settings):
    metrics = settings["metrics"]
    kinds = {**metrics["targets"], "node": metrics["node_targets"]}
    return [(kind, host, endpoint) for kind, targets in kinds.items() for host, endpoint in targets.items()]


def _wait(check, timeout=90):
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(3)


def test_every_node_serves_its_metrics_to_the_scrape_login(settings):
    endpoints = _endpoints(settings)
    assert {kind for kind, _, _ in endpoints} >= {"kafka_broker", "node"}
    for kind, host, endpoint in endpoints:
        status, text = scrape(endpoint)
        assert status == 200, f"{host} ({kind}, {endpoint}) answered {status}"
        assert EXPECTED[kind] in text, f"{host} ({kind}) serves no {EXPECTED[kind]}"


def test_an_endpoint_refuses_no_login_a_wrong_password_and_tls_1_2(settings):
    for kind, host, endpoint in _endpoints(settings):
        assert scrape(endpoint, username="")[0] == 401, f"{host} ({kind}) serves without a login"
        assert scrape(endpoint, password="not-" + uuid.uuid4().hex)[0] == 401, f"{host} ({kind}) took a wrong password"
        with pytest.raises(ssl.SSLError):
            scrape(endpoint, tls_max=ssl.TLSVersion.TLSv1_2)


def test_prometheus_scrapes_every_node_of_the_inventory(settings):
    wanted = {(kind, host) for kind, host, _ in _endpoints(settings)}

    def healthy():
        targets = prometheus("/api/v1/targets")["activeTargets"]
        return {(t["labels"]["job"], t["labels"]["host"]) for t in targets if t["health"] == "up"} >= wanted

    assert _wait(healthy), prometheus("/api/v1/targets")["activeTargets"]
    probes = [t for t in prometheus("/api/v1/targets")["activeTargets"] if t["labels"]["job"] == "blackbox"]
    assert probes and all(t["health"] == "up" for t in probes), probes


def test_prometheus_has_every_rule_and_nothing_fires_on_a_healthy_cluster():
    wanted = {rule["alert"] for group in yaml.safe_load(RULE_FILE.read_text())["groups"] for rule in group["rules"]
              if "alert" in rule}
    loaded = {rule["name"] for group in prometheus("/api/v1/rules")["groups"] for rule in group["rules"]
              if rule["type"] == "alerting"}
    assert wanted <= loaded, f"not loaded: {sorted(wanted - loaded)}"
    alerts = prometheus("/api/v1/alerts")["alerts"]
    assert not alerts, [(a["labels"]["alertname"], a["labels"].get("host"), a["state"]) for a in alerts]


def test_alertmanager_notifies_the_receiver_the_inventory_names():
    name = f"KitTestNotification{uuid.uuid4().hex[:8]}"
    now = datetime.datetime.now(datetime.timezone.utc)
    alertmanager("/api/v2/alerts", [{"labels": {"alertname": name, "severity": "warning", "host": "test"},
                                     "annotations": {"summary": "a test of the notification path"},
                                     "startsAt": now.isoformat(),
                                     "endsAt": (now + datetime.timedelta(minutes=2)).isoformat()}])

    def came():
        return [n for n in receiver.received()
                if any(a["labels"]["alertname"] == name for a in n["payload"]["alerts"])]

    notifications = _wait(came, timeout=60)
    assert notifications, f"no notification of {name} reached {receiver.NOTIFICATIONS}"
    assert notifications[0]["payload"]["status"] == "firing"


def test_a_rule_file_promtool_rejects_stops_site_yml_before_anything_changes(run_playbook, brokers, tmp_path):
    bad = tmp_path / "bad-rules.yml"
    bad.write_text("groups:\n  - name: broken\n    rules:\n      - alert: Broken\n        expr: up ==\n")
    before = service_starts(brokers, "kafka")
    proc = run_playbook("site.yml", "-e", json.dumps({"monitoring_extra_rule_files": [str(bad)]}))
    assert proc.returncode != 0
    assert "Run promtool check rules" in proc.output and "extra-bad-rules.yml" in proc.output
    recap = proc.stdout.split("PLAY RECAP")[-1]
    assert not any(h.name in recap for h in brokers), f"the run went on past the check: {recap}"
    assert service_starts(brokers, "kafka") == before
    assert "extra-bad-rules.yml" not in run_on(monitoring_host(), "ls /etc/prometheus/rules")


def test_the_lag_exporter_serves_a_groups_lag_read_as_its_own_principal(topic):
    producer = Producer(kafka_config())
    for n in range(10):
        producer.produce(topic, value=b"%d" % n, partition=0)
    assert producer.flush(30) == 0
    group = f"lag-test-{uuid.uuid4().hex[:8]}"
    consumer = Consumer(kafka_config() | {"group.id": group, "enable.auto.commit": False})
    consumer.commit(offsets=[TopicPartition(topic, 0, 4)], asynchronous=False)  # 6 records behind
    consumer.close()
    wanted = f'kafka_consumergroup_lag{{group="{group}",partition="0",topic="{topic}"}} 6.0'
    text = _wait(lambda: (lambda served: served if wanted in served else "")(get(9308, "/metrics")), timeout=60)
    assert wanted in text, text[-2000:]
    assert "kafka_consumergroup_lag_read_failed 0.0" in text
