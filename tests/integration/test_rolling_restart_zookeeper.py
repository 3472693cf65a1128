"""playbooks/rolling_restart_zookeeper.yml on the lab: followers first, the leader last, the quorum
and the brokers healthy afterwards; check mode touches nothing."""

from lab_hosts import service_starts


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
                                                          bootstrap_servers, zookeeper_connect):
    leader = _ensemble(run_module, settings)["leader"]
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
