"""Throttle plans for rebuilding one broker, on hand-written partitions and configs."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_throttle as kt

PARTITIONS = [
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 3]},
    {"topic": "orders", "partition": 1, "replicas": [2, 3, 4]},
    {"topic": "orders", "partition": 10, "replicas": [3, 1, 2]},
    {"topic": "audit", "partition": 0, "replicas": [2, 1]},
]


def test_parse_replicas():
    assert kt.parse_replicas("0:1, 1:2,") == {"0:1", "1:2"}
    assert kt.parse_replicas("*") == {"*"}
    assert kt.parse_replicas(None) == set() and kt.parse_replicas("") == set()


def test_rebuild_throttles_the_broker_as_follower_and_its_peers_as_leaders():
    wanted = kt.wanted_throttles(PARTITIONS, 1)
    assert kt.plan_throttle(wanted, {}, {}) == {
        "topics": {
            "audit": {kt.FOLLOWER_REPLICAS: ["0:1"], kt.LEADER_REPLICAS: ["0:2"]},
            "orders": {kt.FOLLOWER_REPLICAS: ["0:1", "10:1"],
                       kt.LEADER_REPLICAS: ["0:2", "0:3", "10:2", "10:3"]},
        },
        "brokers": {1: [kt.FOLLOWER_RATE], 2: [kt.LEADER_RATE], 3: [kt.LEADER_RATE]},
    }


def test_existing_throttles_are_merged_not_repeated_and_star_is_left_alone():
    wanted = kt.wanted_throttles(PARTITIONS, 1)
    topic_configs = {"orders": {kt.FOLLOWER_REPLICAS: "0:1,5:4", kt.LEADER_REPLICAS: "*"}}
    broker_configs = {2: {kt.LEADER_RATE: "5000000"}, 3: {kt.LEADER_RATE: None}}
    assert kt.plan_throttle(wanted, topic_configs, broker_configs) == {
        "topics": {
            "audit": {kt.FOLLOWER_REPLICAS: ["0:1"], kt.LEADER_REPLICAS: ["0:2"]},
            "orders": {kt.FOLLOWER_REPLICAS: ["10:1"]},
        },
        "brokers": {1: [kt.FOLLOWER_RATE], 3: [kt.LEADER_RATE]},
    }


def test_a_broker_without_replicas_needs_no_throttle():
    plan = kt.plan_throttle(kt.wanted_throttles(PARTITIONS, 9), {}, {})
    assert kt.is_empty(plan)


def test_removal_takes_away_only_what_was_added_and_is_still_there():
    added = {"topics": {"orders": {kt.FOLLOWER_REPLICAS: ["0:1", "10:1"], kt.LEADER_REPLICAS: ["0:2"]},
                        "gone": {kt.FOLLOWER_REPLICAS: ["0:1"]}},
             "brokers": {1: [kt.FOLLOWER_RATE]}}
    topic_configs = {"orders": {kt.FOLLOWER_REPLICAS: "0:1,5:4", kt.LEADER_REPLICAS: "0:2,7:3"}}
    assert kt.plan_removal(added, topic_configs, {1: {kt.FOLLOWER_RATE: "1000"}}) == {
        "topics": {"orders": {kt.FOLLOWER_REPLICAS: ["0:1"], kt.LEADER_REPLICAS: ["0:2"]}},
        "brokers": {1: [kt.FOLLOWER_RATE]},
        "delete": {},
    }


def test_removal_deletes_a_list_it_would_leave_empty():
    added = {"topics": {"orders": {kt.FOLLOWER_REPLICAS: ["0:1", "10:1"], kt.LEADER_REPLICAS: ["0:2"]}},
             "brokers": {}}
    topic_configs = {"orders": {kt.FOLLOWER_REPLICAS: "0:1,10:1", kt.LEADER_REPLICAS: "0:2,7:3"}}
    assert kt.plan_removal(added, topic_configs, {}) == {
        "topics": {"orders": {kt.LEADER_REPLICAS: ["0:2"]}}, "brokers": {},
        "delete": {"orders": [kt.FOLLOWER_REPLICAS]}}
    assert kt.is_empty(kt.plan_removal({"topics": {}, "brokers": {}}, topic_configs, {}))
    # a second removal finds nothing of its own left
    assert kt.is_empty(kt.plan_removal(added, {"orders": {kt.FOLLOWER_REPLICAS: "5:4"}}, {1: {}}))


def test_describe_names_rates_by_kind_and_counts_topics():
    plan = {"brokers": {"3": [kt.FOLLOWER_RATE], "1": [kt.LEADER_RATE], "2": [kt.LEADER_RATE]},
            "topics": {"a": {}, "b": {}}, "delete": {"b": [], "c": []}}
    assert kt.describe(plan) == ("follower rate on broker(s) 3; leader rate on broker(s) 1,2; "
                                 "throttled replicas on 3 topic(s)")
    assert kt.describe({"topics": {}, "brokers": {}}) == "nothing"


def test_merge_joins_an_earlier_record_with_this_runs_additions():
    record = {"topics": {"t": {kt.LEADER_REPLICAS: ["0:2"]}}, "brokers": {"2": [kt.LEADER_RATE]}}
    new = {"topics": {"t": {kt.LEADER_REPLICAS: ["10:1", "0:2"]}, "u": {kt.FOLLOWER_REPLICAS: ["0:3"]}},
           "brokers": {3: [kt.FOLLOWER_RATE]}}
    assert kt.merge(record, new) == {
        "topics": {"t": {kt.LEADER_REPLICAS: ["0:2", "10:1"]}, "u": {kt.FOLLOWER_REPLICAS: ["0:3"]}},
        "brokers": {2: [kt.LEADER_RATE], 3: [kt.FOLLOWER_RATE]},
    }
    assert kt.merge({}, None) == {"topics": {}, "brokers": {}}


PLAN = {"topics": {"t": {kt.FOLLOWER_REPLICAS: ["0:2"], kt.LEADER_REPLICAS: ["0:1", "0:3"]}},
        "brokers": {1: [kt.LEADER_RATE], 2: [kt.FOLLOWER_RATE], 3: [kt.LEADER_RATE]}}


def test_a_stopped_brokers_rates_are_set_through_zookeeper():
    assert kt.defer_stopped(PLAN, live={1, 3}, can_set_stopped=True) == (PLAN, [])


def test_on_kraft_a_stopped_brokers_rates_wait_until_it_runs_and_the_rest_is_planned():
    plan, deferred = kt.defer_stopped(PLAN, live={1, 3}, can_set_stopped=False)
    assert deferred == [2]
    assert plan == {"topics": PLAN["topics"], "brokers": {1: [kt.LEADER_RATE], 3: [kt.LEADER_RATE]}}
    assert kt.defer_stopped(PLAN, live={1, 2, 3}, can_set_stopped=False) == (PLAN, [])


def test_on_kraft_a_removal_keeps_the_record_while_a_recorded_broker_is_stopped():
    assert kt.stopped_to_clear(PLAN, live={1, 3}, can_set_stopped=False) == [2]
    assert kt.stopped_to_clear(PLAN, live={1, 2, 3}, can_set_stopped=False) == []
    assert kt.stopped_to_clear(PLAN, live={1, 3}, can_set_stopped=True) == []
