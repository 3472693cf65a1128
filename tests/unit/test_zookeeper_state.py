"""ZooKeeper ensemble decisions on hand-written `srvr` answers."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import zookeeper_state

LEADER = """Zookeeper version: 3.8.4-9316c2a7a97e1666d8f4593f34dd6fc36ecc436c, built on 2024-02-12 22:16 UTC
Latency min/avg/max: 0/0.4/12
Received: 120
Sent: 119
Connections: 2
Outstanding: 0
Zxid: 0x10000002a
Mode: leader
Node count: 37
Proposal sizes last/min/max: 92/32/574
"""
FOLLOWER = LEADER.replace("Mode: leader", "Mode: follower").replace(
    "Proposal sizes last/min/max: 92/32/574\n", "")
NOT_SERVING = "This ZooKeeper instance is not currently serving requests\n"


def test_srvr_answer_is_parsed():
    assert zookeeper_state.parse_srvr(LEADER) == {
        "serving": True, "mode": "leader", "zxid": 0x10000002A, "node_count": 37}


def test_member_outside_a_quorum_or_down_is_not_serving():
    for answer in (NOT_SERVING, None, ""):
        assert zookeeper_state.parse_srvr(answer) == {
            "serving": False, "mode": None, "zxid": None, "node_count": None}


def test_healthy_ensemble_has_one_leader_and_restarts_it_last():
    state = zookeeper_state.ensemble({"zk2": LEADER, "zk1": FOLLOWER, "zk3": FOLLOWER})
    assert state["leader"] == "zk2" and state["has_leader"] and state["all_serving"]
    assert zookeeper_state.restart_order(state) == ["zk1", "zk3", "zk2"]


def test_ensemble_without_quorum_has_no_leader():
    state = zookeeper_state.ensemble({"zk1": NOT_SERVING, "zk2": None, "zk3": FOLLOWER})
    assert state["leader"] is None and not state["has_leader"]
    assert state["serving"] == ["zk3"] and not state["all_serving"]
    assert zookeeper_state.restart_order(state) == ["zk1", "zk2", "zk3"]


def test_standalone_member_counts_as_leader():
    state = zookeeper_state.ensemble({"zk1": LEADER.replace("Mode: leader", "Mode: standalone")})
    assert state["leader"] == "zk1"
