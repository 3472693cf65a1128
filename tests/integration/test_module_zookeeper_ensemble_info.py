"""zookeeper_ensemble_info against the lab ensemble."""


def _members(zookeepers, port=2181):
    return {h.name: f"{h.address}:{port}" for h in zookeepers}


def test_reports_one_leader_two_followers_and_the_leader_last(run_module, zookeepers):
    result = run_module("zookeeper_ensemble_info", members=_members(zookeepers))
    assert not result["failed"], result.get("msg")
    modes = sorted(node["mode"] for node in result["nodes"].values())
    assert modes == ["follower", "follower", "leader"]
    assert result["has_leader"] is True and result["nodes"][result["leader"]]["mode"] == "leader"
    assert result["restart_order"][-1] == result["leader"]
    assert all(node["zxid"] > 0 for node in result["nodes"].values())


def test_a_member_that_does_not_answer_fails_the_wait(run_module, zookeepers):
    members = dict(_members(zookeepers), zk9="10.213.7.99:2181")
    result = run_module("zookeeper_ensemble_info", members=members, request_timeout=1, wait_timeout=2,
                        poll_interval=1)
    assert result["failed"] is True
    assert "not serving: zk9" in result["msg"]
