"""A config change through site.yml restarts the brokers, and the ZooKeeper members, one at a time through
the same gates as the rolling restarts (the ZooKeeper leader last), while an acks=all producer writes
without a failed delivery or a lost message; a roll that failed is finished by the rerun (brokers and
ZooKeeper members)."""

import json

from confluent_kafka.admin import AdminClient, ConfigResource
from lab_hosts import service_starts, service_stop_and_start

from lab import faults
from lab.cluster_settings import kafka_config
from lab.traffic import AckedProducer, read_all


def _live(bootstrap_servers, broker_id, name):
    resource = ConfigResource(ConfigResource.Type.BROKER, str(broker_id))
    admin = AdminClient(kafka_config(bootstrap_servers))
    return admin.describe_configs([resource])[resource].result(30)[name].value


def test_config_change_rolls_brokers_through_the_gates(run_playbook, brokers, bootstrap_servers, topic):
    before = service_starts(brokers, "kafka")
    producer = AckedProducer(bootstrap_servers, topic, rate=300)
    producer.start()
    try:
        change = {"kafka_extra_properties": {"log.cleaner.threads": 2}}
        proc = run_playbook("site.yml", "-e", json.dumps(change))
    finally:
        unreported = producer.stop()
    try:
        assert proc.returncode == 0
        assert proc.stdout.count("Gate: wait until it may stop without a partition below min ISR") == 3
        after = service_starts(brokers, "kafka")
        assert all(after[name] != before[name] for name in before)
        assert [_live(bootstrap_servers, b, "log.cleaner.threads") for b in (1, 2, 3)] == ["2", "2", "2"]
        assert unreported == 0 and producer.failed == []
        assert read_all(bootstrap_servers, topic, len(producer.acked)) == producer.acked
    finally:
        assert run_playbook("kafka.yml").returncode == 0  # back to the configuration the other tests expect



def test_a_broker_roll_killed_midway_is_finished_by_the_rerun(run_playbook, kill_playbook_at, brokers):
    change = ["-e", json.dumps({"kafka_extra_properties": {"log.cleaner.threads": 3}})]
    before = service_starts(brokers, "kafka")
    # The controller dies (SIGKILL, its whole process group) once the first marked broker was started again.
    killed = kill_playbook_at("kafka.yml", change, "Gate: wait until it is registered and back in the ISR")
    try:
        midway = service_starts(brokers, "kafka")
        first = [name for name in before if midway[name] != before[name]]
        assert len(first) == 1, f"the killed run restarted {first}:\n{killed}"

        # The rerun writes no file (they were written): the brokers' marks say which still run on the old ones.
        rerun = run_playbook("kafka.yml", *change)
        assert rerun.returncode == 0
        assert rerun.output.count("Gate: wait until it may stop without a partition below min ISR") == 2
        after = service_starts(brokers, "kafka")
        assert after[first[0]] == midway[first[0]], "the rerun restarted the broker the killed run had restarted"
        assert all(after[name] != before[name] for name in before), "a marked broker was not restarted"
        assert "nothing to restart" in run_playbook("kafka.yml", *change).output
    finally:
        assert run_playbook("kafka.yml").returncode == 0  # back to the configuration the other tests expect


def test_zookeeper_config_change_rolls_members_one_at_a_time_the_leader_last(run_playbook, zookeeper_leader,
                                                                           zookeepers, bootstrap_servers, topic):
    leader = zookeeper_leader
    before = service_stop_and_start(zookeepers, "zookeeper")
    producer = AckedProducer(bootstrap_servers, topic, rate=300)
    producer.start()
    try:
        proc = run_playbook("site.yml", "-e", json.dumps({"zookeeper_max_client_cnxns": 61}))
    finally:
        unreported = producer.stop()
    try:
        assert proc.returncode == 0
        after = service_stop_and_start(zookeepers, "zookeeper")
        assert all(after[name][1] != before[name][1] for name in before), "a member was not restarted"
        # From the members' own stop and start times: each stopped only after the previous one started.
        order = sorted(after, key=lambda name: after[name][1])
        assert order[-1] == leader, f"restart order {order}, leader {leader}"
        for earlier, later in zip(order, order[1:], strict=False):
            assert after[earlier][1] <= after[later][0], f"{later} stopped before {earlier} was back"
        assert unreported == 0 and producer.failed == []
        assert read_all(bootstrap_servers, topic, len(producer.acked)) == producer.acked
    finally:
        assert run_playbook("zookeeper.yml").returncode == 0  # back to the configuration the other tests expect


def test_a_zookeeper_roll_that_failed_is_finished_by_the_rerun(run_playbook, run_module, settings, zookeepers):
    leader = run_module("zookeeper_ensemble_info", members=settings["zookeeper_members"])["leader"]
    paused = next(h for h in zookeepers if h.name != leader)
    change = ["-e", json.dumps({"zookeeper_max_client_cnxns": 62})]
    before = service_starts(zookeepers, "zookeeper")
    faults.pause(paused, "zookeeper")  # it answers nothing: the quorum gate before the first restart fails
    try:
        failed = run_playbook("zookeeper.yml", *change, "-e", "zookeeper_quorum_timeout=10")
    finally:
        faults.resume(paused, "zookeeper")
    try:
        assert failed.returncode != 0 and f"not serving: {paused.name}" in failed.output
        assert service_starts(zookeepers, "zookeeper") == before, "the failed run restarted a member"

        # The rerun writes no file (they were written): the members' marks say which still run on the old ones.
        rerun = run_playbook("zookeeper.yml", *change)
        assert rerun.returncode == 0
        after = service_stop_and_start(zookeepers, "zookeeper")
        assert all(after[name][1] != before[name][1] for name in before), "a marked member was not restarted"
        assert max(after, key=lambda name: after[name][1]) == leader
        assert run_playbook("zookeeper.yml", *change).output.count("nothing to restart") == 1
    finally:
        assert run_playbook("zookeeper.yml").returncode == 0  # back to the configuration the other tests expect
