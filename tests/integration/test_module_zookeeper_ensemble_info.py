"""zookeeper_ensemble_info against the lab ensemble."""


def test_reports_one_leader_two_followers_and_the_leader_last(run_module, settings):
    result = run_module("zookeeper_ensemble_info", members=settings["zookeeper_members"])
    assert not result["failed"], result.get("msg")
    modes = sorted(node["mode"] for node in result["nodes"].values())
    assert modes == ["follower", "follower", "leader"]
    assert result["has_leader"] is True and result["nodes"][result["leader"]]["mode"] == "leader"
    assert result["restart_order"][-1] == result["leader"]
    assert all(node["zxid"] > 0 for node in result["nodes"].values())


def test_a_member_that_does_not_answer_fails_the_wait(run_module, settings):
    members = dict(settings["zookeeper_members"], zk9="10.213.7.99:2181")  # an address no host has
    result = run_module("zookeeper_ensemble_info", members=members, request_timeout=1, wait_timeout=2,
                        poll_interval=1)
    assert result["failed"] is True
    assert "not serving: zk9" in result["msg"]
