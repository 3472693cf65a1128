"""playbooks/rolling_restart.yml on the KRaft lab (make test-kraft): the brokers through the same gates as on
ZooKeeper (test_rolling_restart.py), then the controllers one at a time, the quorum's leader last, each back as a
caught-up voter before the next stops; nothing lost under load; check mode touches nothing; a controller host
that dies mid roll stops the run, named."""

import re
import time

from lab_hosts import quorum, service_starts

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft
from lab import config, machines
from lab.cli import up
from lab.traffic import AckedProducer, read_all

NODE_IDS = {"ctrl1": 9001, "ctrl2": 9002, "ctrl3": 9003}

RESTART_TASK = r"TASK \[kafkaops.toolkit.roll : Restart the controller: (ctrl\d)\]"  # the roll role's task


def _leader(controllers):
    return next(r["node_id"] for r in kafka_kraft.parse_quorum_replication(quorum(controllers[0]))
                if r["status"] == "Leader")


def test_check_mode_shows_both_plans_and_touches_nothing(run_playbook, brokers, controllers):
    before = (service_starts(brokers, "kafka"), service_starts(controllers, "kafka-controller"))
    proc = run_playbook("rolling_restart.yml", "--check")
    assert proc.returncode == 0, proc.output[-3000:]
    assert "order now: " in proc.output and "safe-to-stop gate" in proc.output
    assert "restart (rolling restart): ctrl1, ctrl2, ctrl3" in proc.output
    assert (service_starts(brokers, "kafka"), service_starts(controllers, "kafka-controller")) == before


def test_roll_under_load_restarts_every_broker_and_controller_once_the_quorum_leader_last(
        run_playbook, brokers, controllers, bootstrap_servers, topic):
    leader = _leader(controllers)
    before = (service_starts(brokers, "kafka"), service_starts(controllers, "kafka-controller"))
    producer = AckedProducer(bootstrap_servers, topic, rate=300)
    producer.start()
    try:
        proc = run_playbook("rolling_restart.yml")
    finally:
        unreported = producer.stop()
    assert proc.returncode == 0, proc.output[-3000:]
    assert unreported == 0 and producer.failed == []
    assert read_all(bootstrap_servers, topic, len(producer.acked)) == producer.acked

    after = (service_starts(brokers, "kafka"), service_starts(controllers, "kafka-controller"))
    assert all(after[0][h] != before[0][h] for h in before[0]), "every broker's JVM was restarted"
    assert all(after[1][h] != before[1][h] for h in before[1]), "every controller's JVM was restarted"
    order = re.findall(RESTART_TASK, proc.output)
    assert sorted(order) == ["ctrl1", "ctrl2", "ctrl3"], order  # each exactly once
    assert NODE_IDS[order[-1]] == leader, f"the leader at the start, {leader}, did not go last: {order}"
    rows = kafka_kraft.parse_quorum_replication(quorum(controllers[0]))
    assert all(kafka_kraft.controller_rejoined(rows, node, 10) is None for node in NODE_IDS.values())


def test_a_controller_host_that_dies_mid_roll_stops_the_run_naming_it(playbook_at, controllers):
    rejoin_gate = "TASK [kafkaops.toolkit.roll : Gate: the controller is a caught-up voter again: "
    proc, log = playbook_at("rolling_restart.yml", ("-e", '{"rolling_restart_brokers": []}'), rejoin_gate)
    restarting = re.findall(RESTART_TASK, log.read_text())[-1]
    victim = next(h for h in controllers if h.name != restarting)
    reader = config.host(restarting)
    machines.power_off(victim)  # while another controller is coming back
    try:
        proc.wait(timeout=600)
        head = log.read_text().split("PLAY RECAP")[0]
        assert proc.returncode != 0, head[-3000:]
        assert f"{victim.name} does not answer over SSH; the roll stops here" in head, head[-3000:]
    finally:
        up(config.load_hosts())  # its controller starts at boot
    deadline = time.monotonic() + 180
    while any(kafka_kraft.controller_rejoined(kafka_kraft.parse_quorum_replication(quorum(reader)), node, 10)
              for node in NODE_IDS.values()):
        assert time.monotonic() < deadline, "a controller is not a caught-up voter again 180 s after the host came back"
        time.sleep(5)
