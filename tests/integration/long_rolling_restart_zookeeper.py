"""playbooks/rolling_restart_zookeeper.yml on the lab: followers first, the leader last, the quorum
and the brokers healthy afterwards; check mode touches nothing."""

from lab_hosts import service_starts, ssh_run


def _ensemble(run_module, settings):
    result = run_module("zookeeper_ensemble_info", members=settings["zookeeper_members"])
    assert not result["failed"], result.get("msg")
    return result


def test_check_mode_shows_the_plan_and_touches_nothing(run_playbook, zookeepers):
    before = service_starts(zookeepers, "zookeeper")
    proc = run_playbook("rolling_restart_zookeeper.yml", "--check")
    assert proc.returncode == 0 and "followers first, leader" in proc.stdout
    assert service_starts(zookeepers, "zookeeper") == before


def test_roll_restarts_every_member_once_the_leader_last(run_playbook, run_module, zookeepers, settings,
                                                          zookeeper_leader, bootstrap_servers, zookeeper_connect):
    leader = zookeeper_leader
    before = service_starts(zookeepers, "zookeeper")
    proc = run_playbook("rolling_restart_zookeeper.yml")
    assert proc.returncode == 0
    after = service_starts(zookeepers, "zookeeper")
    assert all(after[name] != before[name] for name in before)
    assert max(after, key=lambda name: after[name][1]) == leader
    assert _ensemble(run_module, settings)["has_leader"] is True
    cluster = run_module("kafka_cluster_info", bootstrap_servers=bootstrap_servers,
                         zookeeper_connect=zookeeper_connect)
    assert cluster["summary"]["live_brokers"] == [1, 2, 3] and cluster["summary"]["offline"] == 0


def test_roll_refuses_to_restart_a_member_while_another_is_down(run_playbook, run_module, zookeepers, settings):
    leader = _ensemble(run_module, settings)["leader"]
    down = next(h for h in zookeepers if h.name != leader)
    others = [h for h in zookeepers if h is not down]
    ssh_run(down, "systemctl stop zookeeper")
    try:
        before = service_starts(others, "zookeeper")
        proc = run_playbook("rolling_restart_zookeeper.yml", "-e", "zookeeper_quorum_timeout=10")
        assert proc.returncode != 0
        assert f"not serving: {down.name}" in proc.output
        assert service_starts(others, "zookeeper") == before, "a member was restarted with another one down"
    finally:
        ssh_run(down, "systemctl start zookeeper")
        healthy = run_module("zookeeper_ensemble_info", members=settings["zookeeper_members"], wait_timeout=120)
        assert not healthy["failed"], healthy.get("msg")
