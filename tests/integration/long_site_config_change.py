"""A config change through site.yml restarts the ZooKeeper members (the leader last) and the brokers one at a time
through the same gates as the rolling restarts, while an acks=all producer writes without a failed delivery or a
lost message; a broker roll killed midway and a ZooKeeper roll that failed are finished by the rerun.

Two rolls of each kind in all: the first test changes both kinds' configuration in one site.yml run, the second
takes them back to the inventory's through a killed broker roll and a failed member roll and their reruns. That a
roll is finished is read from the hosts: no restart mark is left (what a rerun's roll would act on)."""

import json

from confluent_kafka.admin import AdminClient, ConfigResource
from lab_hosts import service_starts, service_stop_and_start, ssh_run

from ansible_collections.kafkaops.toolkit.plugins.module_utils.service_restart import restart_pending
from lab import faults
from lab.cluster_settings import kafka_config
from lab.traffic import AckedProducer, read_all

CHANGE = ["-e", json.dumps({"kafka_extra_properties": {"log.cleaner.threads": 2}, "zookeeper_max_client_cnxns": 61})]
SAFE_TO_STOP_GATE = "Gate: wait until it may stop without a partition below min ISR"
MARKS = {"kafka": "/etc/kafka/restart-pending", "zookeeper": "/etc/zookeeper/restart-pending"}  # the lab's paths


def _marked(hosts, unit):
    """The hosts where a rerun's roll would restart unit: its mark is newer than the running process (the roles' rule,
    service_restart.restart_pending, on what the service role reads)."""
    marked = []
    for h in hosts:
        mark, since = ssh_run(h, f"stat -c %.9Y {MARKS[unit]} 2>/dev/null || echo none; "
                                 f"systemctl show {unit} --property=ExecMainStartTimestamp --timestamp=unix --value"
                              ).split()
        if restart_pending(False, False, None if mark == "none" else mark, since):
            marked.append(h.name)
    return marked


def _live(bootstrap_servers, broker_id, name):
    resource = ConfigResource(ConfigResource.Type.BROKER, str(broker_id))
    admin = AdminClient(kafka_config(bootstrap_servers))
    return admin.describe_configs([resource])[resource].result(30)[name].value


def test_a_config_change_rolls_members_leader_last_then_brokers_through_the_gates(
        run_playbook, zookeeper_leader, zookeepers, brokers, bootstrap_servers, topic):
    members_before = service_stop_and_start(zookeepers, "zookeeper")
    brokers_before = service_starts(brokers, "kafka")
    producer = AckedProducer(bootstrap_servers, topic, rate=300)
    producer.start()
    try:
        proc = run_playbook("site.yml", *CHANGE)
    finally:
        unreported = producer.stop()
    assert proc.returncode == 0, proc.output[-3000:]

    members_after = service_stop_and_start(zookeepers, "zookeeper")
    assert all(members_after[n][1] != members_before[n][1] for n in members_before), "a member was not restarted"
    # From the members' own stop and start times: each stopped only after the previous one started.
    order = sorted(members_after, key=lambda name: members_after[name][1])
    assert order[-1] == zookeeper_leader, f"restart order {order}, leader {zookeeper_leader}"
    for earlier, later in zip(order, order[1:], strict=False):
        assert members_after[earlier][1] <= members_after[later][0], f"{later} stopped before {earlier} was back"

    assert proc.stdout.count(SAFE_TO_STOP_GATE) == 3
    brokers_after = service_starts(brokers, "kafka")
    assert all(brokers_after[n] != brokers_before[n] for n in brokers_before), "a broker was not restarted"
    assert [_live(bootstrap_servers, b, "log.cleaner.threads") for b in (1, 2, 3)] == ["2", "2", "2"]

    assert unreported == 0 and producer.failed == []
    assert read_all(bootstrap_servers, topic, len(producer.acked)) == producer.acked


def test_rolls_killed_or_failed_midway_are_finished_by_the_rerun(run_playbook, kill_playbook_at, run_module, settings,
                                                                 brokers, zookeepers, bootstrap_servers):
    # The first test leaves CHANGE deployed (both kinds, in one run); alone, this test deploys it first.
    if [_live(bootstrap_servers, b, "log.cleaner.threads") for b in (1, 2, 3)] != ["2", "2", "2"]:
        assert run_playbook("site.yml", *CHANGE).returncode == 0
    finished = False
    try:
        # Brokers, back to the inventory's configuration. The controller dies (SIGKILL, its whole process group)
        # once the first marked broker was started again.
        before = service_starts(brokers, "kafka")
        killed = kill_playbook_at("kafka.yml", [], "Gate: wait until it is registered and back in the ISR")
        midway = service_starts(brokers, "kafka")
        first = [name for name in before if midway[name] != before[name]]
        assert len(first) == 1, f"the killed run restarted {first}:\n{killed}"
        assert sorted(_marked(brokers, "kafka")) == sorted(set(before) - set(first)), "the marks left by the kill"
        # The rerun writes no file (they were written): the brokers' marks say which still run on the old ones.
        rerun = run_playbook("kafka.yml")
        assert rerun.returncode == 0
        assert rerun.output.count(SAFE_TO_STOP_GATE) == 2
        after = service_starts(brokers, "kafka")
        assert after[first[0]] == midway[first[0]], "the rerun restarted the broker the killed run had restarted"
        assert all(after[name] != before[name] for name in before), "a marked broker was not restarted"
        assert _marked(brokers, "kafka") == [], "a broker is still marked after the rerun"

        # Members, back to the inventory's configuration. A follower answers nothing: the quorum gate before the
        # first restart fails.
        leader = run_module("zookeeper_ensemble_info", members=settings["zookeeper_members"])["leader"]
        paused = next(h for h in zookeepers if h.name != leader)
        before = service_starts(zookeepers, "zookeeper")
        faults.pause(paused, "zookeeper")
        try:
            failed = run_playbook("zookeeper.yml", "-e", "zookeeper_quorum_timeout=10")
        finally:
            faults.resume(paused, "zookeeper")
        assert failed.returncode != 0 and f"not serving: {paused.name}" in failed.output
        assert service_starts(zookeepers, "zookeeper") == before, "the failed run restarted a member"
        assert sorted(_marked(zookeepers, "zookeeper")) == sorted(before), "the failed run's marks"
        rerun = run_playbook("zookeeper.yml")
        assert rerun.returncode == 0
        after = service_stop_and_start(zookeepers, "zookeeper")
        assert all(after[name][1] != before[name][1] for name in before), "a marked member was not restarted"
        assert max(after, key=lambda name: after[name][1]) == leader
        assert _marked(zookeepers, "zookeeper") == [], "a member is still marked after the rerun"
        finished = True
    finally:
        if not finished:  # the configuration the other tests expect (the reruns above restored it when they passed)
            assert run_playbook("site.yml").returncode == 0
