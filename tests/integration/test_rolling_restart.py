"""playbooks/rolling_restart.yml on the lab: every broker restarted once under load with nothing
lost and the controller last, paging nobody (its hosts silenced in Alertmanager while it ran); a refusal when a stop
would take partitions below min ISR; the roll ends at a broker that is not back; check mode touches nothing."""

import json
import time

import pytest
from lab_hosts import service_starts, ssh_run

from lab import receiver
from lab.monitoring import SILENCE_GRACE_S, alertmanager
from lab.traffic import AckedProducer, read_all

# The roll's silences outlast it by monitoring_silence_grace. An alert the silences missed during the roll notifies
# within an evaluation and Alertmanager's group_wait (roles/monitoring). That nothing notifies once the silences have
# ended is make test-alerts' (tests/drills/alerts.py: planned work, then the grace and more).
LATE_NOTIFICATION_S = 30


def test_check_mode_shows_the_plan_and_touches_nothing(run_playbook, brokers):
    before = service_starts(brokers, "kafka")
    proc = run_playbook("rolling_restart.yml", "--check")
    assert proc.returncode == 0
    assert "order now: " in proc.stdout and "safe-to-stop gate" in proc.stdout
    assert service_starts(brokers, "kafka") == before


@pytest.mark.zookeeper  # a KRaft broker is never the controller (kraft_rolling_restart.py: the quorum's leader last)
def test_roll_under_load_restarts_each_broker_once_loses_nothing_controller_last(
        run_playbook, brokers, bootstrap_servers, controller_not_last_by_id, topic, tmp_path):
    controller = controller_not_last_by_id
    before = service_starts(brokers, "kafka")
    started = time.time()
    producer = AckedProducer(bootstrap_servers, topic, rate=500)
    producer.start()
    try:
        proc = run_playbook("rolling_restart.yml", "-e", f"rolling_restart_report={tmp_path}/roll.json")
    finally:
        unreported = producer.stop()
    assert proc.returncode == 0
    ended = time.time()
    time.sleep(LATE_NOTIFICATION_S)
    # what began during the roll (an earlier test's fault may still resolve now)
    paged = [(a["alertname"], a["host"]) for a in receiver.alerts_since(started) if a["starts_at"] > started]
    assert paged == [], "a planned roll paged"
    # the roll's silences end the grace after it, not at their bound (an hour and more)
    silences = [silence for silence in alertmanager("/api/v2/silences") if silence["comment"].startswith("planned: ")
                and receiver.parse_time(silence["startsAt"]) > started]
    assert silences and all(receiver.parse_time(silence["endsAt"]) < ended + SILENCE_GRACE_S + 5
                            for silence in silences), silences
    assert unreported == 0 and producer.failed == []
    assert len(producer.acked) > 1000
    assert read_all(bootstrap_servers, topic, len(producer.acked)) == producer.acked

    after = service_starts(brokers, "kafka")
    assert all(after[name] != before[name] for name in before), "every broker's JVM was restarted"
    report = json.loads((tmp_path / "roll.json").read_text())
    assert sorted(report["order"]) == sorted(h.name for h in brokers)  # each exactly once
    assert report["brokers"][-1]["broker_id"] == controller  # the controller at the start went last


def test_roll_refuses_a_stop_that_would_leave_partitions_below_min_isr(
        run_playbook, run_module, brokers, bootstrap_servers, zookeeper_connect, topic):
    stopped, others = brokers[0], brokers[1:]
    ssh_run(stopped, "systemctl stop kafka")
    try:
        before = service_starts(others, "kafka")
        proc = run_playbook("rolling_restart.yml", "-e", json.dumps({
            "rolling_restart_brokers": [h.name for h in others], "rolling_restart_stop_timeout": 10}))
        assert proc.returncode != 0
        assert "refusing to stop broker" in proc.stdout
        assert f"{topic}[0-5]" in proc.stdout  # names the partitions that would fall below min ISR
        assert service_starts(others, "kafka") == before, "no other broker was stopped"
    finally:
        ssh_run(stopped, "systemctl start kafka")
        healthy = run_module("kafka_broker_wait_healthy", broker_id=1, wait_timeout=300,
                             bootstrap_servers=bootstrap_servers, zookeeper_connect=zookeeper_connect)
        assert not healthy["failed"], healthy.get("msg")


def test_roll_ends_at_a_broker_that_does_not_come_back(
        run_playbook, run_module, brokers, bootstrap_servers, zookeeper_connect):
    # kafka1 goes first, and its next start fails: its config now names a broker id its data is not.
    kafka1, others = brokers[0], brokers[1:]
    config = "/etc/kafka/server.properties"
    ssh_run(kafka1, f"cp -p {config} {config}.saved && echo broker.id=99 >> {config}")
    try:
        before = service_starts(others, "kafka")
        proc = run_playbook("rolling_restart.yml", "-e", json.dumps({
            "restart_first": ["kafka1"], "rolling_restart_healthy_timeout": 20}))
        assert proc.returncode != 0
        assert "broker 1 did not register" in proc.output  # in ZooKeeper, or with the KRaft controllers
        assert service_starts(others, "kafka") == before, "the roll went on past a broker that was not back"
    finally:
        ssh_run(kafka1, f"mv {config}.saved {config} && systemctl restart kafka")
        healthy = run_module("kafka_broker_wait_healthy", broker_id=1, wait_timeout=300,
                             bootstrap_servers=bootstrap_servers, zookeeper_connect=zookeeper_connect)
        assert not healthy["failed"], healthy.get("msg")
