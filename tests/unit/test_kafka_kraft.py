"""KRaft identity and quorum decisions (module_utils/kafka_kraft.py) on hand-written states."""

import pytest

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft as kk

# kafka-metadata-quorum describe --replication as Kafka 3.9 prints it (a static quorum: DirectoryId all A's).
REPLICATION = """NodeId	DirectoryId           	LogEndOffset	Lag	LastFetchTimestamp	LastCaughtUpTimestamp	Status
9001  	AAAAAAAAAAAAAAAAAAAAAA	2045        	0  	1764000000100     	1764000000100        	Leader
9002  	AAAAAAAAAAAAAAAAAAAAAA	2045        	0  	1764000000050     	1764000000050        	Follower
9003  	AAAAAAAAAAAAAAAAAAAAAA	1900        	145	1764000000020     	1763999990000        	Follower
1     	AAAAAAAAAAAAAAAAAAAAAA	2045        	0  	1764000000060     	1764000000060        	Observer
"""


def _rows(lags, leader=9001):
    return [{"node_id": node, "log_end_offset": 100 - lag, "lag": lag, "last_fetch_ms": 1, "last_caught_up_ms": 1,
             "status": "Leader" if node == leader else "Follower"} for node, lag in lags.items()]


def test_quorum_voters_in_inventory_order():
    endpoints = {"ctrl2": "ctrl2.example.com:9095", "ctrl1": "ctrl1.example.com:9095"}
    assert kk.quorum_voters(endpoints, {"ctrl1": 9001, "ctrl2": "9002"}) == (
        "9002@ctrl2.example.com:9095,9001@ctrl1.example.com:9095")
    assert kk.quorum_voters({}, {}) == ""
    with pytest.raises(ValueError, match="ctrl1"):
        kk.quorum_voters(endpoints, {"ctrl2": 9002})


FIX_IDS = ("give every controller its own kafka_controller_node_id, one no broker uses, now or as a spare's "
           "(e.g. 9001, 9002, 9003).")


def _node_ids(*messages):
    return [{"rule": "kraft-node-ids", "message": m} for m in messages]


def test_node_ids_clash_with_brokers_and_each_other():
    assert kk.node_id_refusals({"c1": 9001, "c2": 9002, "c3": 9003}, {"k1": 1, "k2": 2}) == []
    assert kk.node_id_refusals({"c1": 9001, "c2": 9001, "c3": 9003}, {}) == _node_ids(
        f"controllers c1, c2 share node id 9001: {FIX_IDS}")
    clash = kk.node_id_refusals({"c1": 2, "c2": 9002, "c3": 9003}, {"k1": 1, "k2": 2})
    assert clash == _node_ids(
        f"controller c1 has node id 2, the id of broker k2: brokers and controllers share one id space; {FIX_IDS}")
    assert kk.node_id_refusals({"c1": None, "c2": "x"}, {}) == _node_ids(
        f"controller c1 has no non-negative kafka_controller_node_id (got None): {FIX_IDS}",
        f"controller c2 has no non-negative kafka_controller_node_id (got 'x'): {FIX_IDS}")


def test_metadata_state():
    assert kk.metadata_state(False, False) == kk.NOT_FORMATTED
    assert kk.metadata_state(True, False) == kk.FORMATTED
    assert kk.metadata_state(True, True) == kk.STARTED


def _dir(state, cluster_id=None):
    return {"state": state, "cluster_id": cluster_id}


def test_a_new_quorum_is_formatted_whole():
    plan = kk.format_plan({"c1": _dir(kk.NOT_FORMATTED), "c2": _dir(kk.NOT_FORMATTED), "c3": _dir(kk.NOT_FORMATTED)})
    assert plan == {"cluster_id": None, "format": ["c1", "c2", "c3"], "refusals": []}
    plan = kk.format_plan({"c1": _dir(kk.NOT_FORMATTED)}, "Qk2jcnbvSySg1y1eyb2r3A")
    assert plan["cluster_id"] == "Qk2jcnbvSySg1y1eyb2r3A"


def test_a_first_run_that_stopped_half_way_is_finished_with_the_same_id():
    plan = kk.format_plan({"c1": _dir(kk.FORMATTED, "X"), "c2": _dir(kk.NOT_FORMATTED), "c3": _dir(kk.NOT_FORMATTED)})
    assert plan == {"cluster_id": "X", "format": ["c2", "c3"], "refusals": []}


def test_a_running_quorum_is_left_as_it_is():
    plan = kk.format_plan({"c1": _dir(kk.STARTED, "X"), "c2": _dir(kk.STARTED, "X"), "c3": _dir(kk.STARTED, "X")}, "X")
    assert plan == {"cluster_id": "X", "format": [], "refusals": []}


def test_a_voter_that_lost_its_disk_is_not_formatted_by_a_deploy():
    plan = kk.format_plan({"c1": _dir(kk.STARTED, "X"), "c2": _dir(kk.NOT_FORMATTED), "c3": _dir(kk.STARTED, "X")})
    assert plan["format"] == [] and plan["cluster_id"] is None
    assert plan["refusals"] == [{"rule": "kraft-lost-voter", "message": (
        "c2 has an empty metadata dir while c1, c3 already ran the quorum: a deploy does not format a voter that lost "
        "its disk (docs/runbooks/replace-controller.md says how).")}]
    two = kk.format_plan({"c1": _dir(kk.STARTED, "X"), "c2": _dir(kk.NOT_FORMATTED), "c3": _dir(kk.NOT_FORMATTED)})
    assert two["refusals"][0]["message"].startswith("c2, c3 have an empty metadata dir while c1 already ran")


def test_other_clusters_and_unread_dirs_are_refused():
    assert kk.format_plan({"c1": _dir(kk.STARTED, "X"), "c2": _dir(kk.FORMATTED, "Y")})["refusals"] == [
        {"rule": "kraft-other-cluster-metadata",
         "message": "the controllers' metadata dirs hold different clusters: c1 X, c2 Y."}]
    assert kk.format_plan({"c1": _dir(kk.STARTED, "X")}, "Y")["refusals"] == [
        {"rule": "kraft-other-cluster-metadata",
         "message": "the controllers' metadata dirs hold cluster X (c1), but kafka_cluster_id is Y."}]
    plan = kk.format_plan({"c1": None, "c2": _dir(kk.NOT_FORMATTED)})
    assert plan["format"] == [] and plan["refusals"] == [
        {"rule": "kraft-unread-metadata-dir",
         "message": "the metadata dir of c1 was not read (is it reachable, or left out by --limit?)."}]
    # a run limited to a controller that ran formats nothing: the others need not be read
    assert kk.format_plan({"c1": None, "c2": _dir(kk.STARTED, "X")}) == {"cluster_id": "X", "format": [],
                                                                         "refusals": []}


def test_parse_quorum_replication():
    rows = kk.parse_quorum_replication(REPLICATION)
    assert [r["node_id"] for r in rows] == [9001, 9002, 9003, 1]
    assert rows[2] == {"node_id": 9003, "directory_id": "AAAAAAAAAAAAAAAAAAAAAA", "log_end_offset": 1900, "lag": 145,
                       "last_fetch_ms": 1764000000020, "last_caught_up_ms": 1763999990000, "status": "Follower"}
    assert kk.quorum_leader(rows) == 9001
    with pytest.raises(ValueError, match="NodeId"):
        kk.parse_quorum_replication("Error while describing the quorum")


def test_a_controller_stops_only_while_the_others_are_a_caught_up_majority():
    rows = kk.parse_quorum_replication(REPLICATION)
    # 9003 is 145 records behind: stopping 9003 leaves 9001 and 9002, a majority
    assert kk.controller_stop_refusals(rows, 9003, max_lag=10) == []
    # stopping 9002 would leave the leader and a lagging follower
    assert kk.controller_stop_refusals(rows, 9002, max_lag=10) == [{"rule": "kraft-controller-gate", "message": (
        "without node 9002, 1 voter(s) [9001] are caught up, fewer than the majority of 2 of the 3 voters "
        "(lagging: {9003: 145}).")}]
    assert kk.controller_stop_refusals(rows, 9002, max_lag=200) == []
    # brokers (observers) are no voters
    assert kk.controller_stop_refusals(rows, 1, max_lag=10) == [{"rule": "kraft-controller-gate",
                                                                 "message": "node 1 is not a voter of the quorum "
                                                                            "(voters [9001, 9002, 9003])."}]
    no_leader = [dict(r, status="Follower") for r in _rows({9001: 0, 9002: 0, 9003: 0})]
    assert kk.controller_stop_refusals(no_leader, 9001, 10) == [
        {"rule": "kraft-controller-gate", "message": "the quorum has no leader (voters [9001, 9002, 9003])."}]


def test_five_voters_tolerate_two_behind():
    rows = _rows({9001: 0, 9002: 0, 9003: 0, 9004: 50, 9005: 0})
    assert kk.controller_stop_refusals(rows, 9005, max_lag=10) == []
    rows = _rows({9001: 0, 9002: 0, 9003: 50, 9004: 50, 9005: 0})
    assert kk.controller_stop_refusals(rows, 9005, max_lag=10) != []


def test_a_restarted_controller_rejoins_when_caught_up():
    rows = kk.parse_quorum_replication(REPLICATION)
    assert kk.controller_rejoined(rows, 9002, 10) is None
    assert kk.controller_rejoined(rows, 9003, 10) == "node 9003 is 145 record(s) behind the leader"
    assert kk.controller_rejoined(rows, 9004, 10) == "node 9004 is not back in the quorum (not listed)"
    assert kk.controller_rejoined(rows, 1, 10) == "node 1 is not back in the quorum (Observer)"


def test_the_leader_restarts_last():
    rows = _rows({9001: 0, 9002: 0, 9003: 0}, leader=9002)
    assert kk.controller_restart_order(rows, [9003, 9002, 9001]) == [9001, 9003, 9002]
    assert kk.controller_restart_order(rows, [9003]) == [9003]


def _mode_change(*args, **kwargs):
    refused = kk.mode_change_refusal(*args, **kwargs)
    assert refused["rule"] == "mode-change-by-migration-only"
    return refused["message"]


def test_a_deploy_does_not_switch_a_node_between_modes():
    assert kk.mode_change_refusal(None, "kraft") is None
    assert kk.mode_change_refusal("kraft", "kraft") is None
    assert _mode_change("zookeeper", "kraft") == (
        "it runs in ZooKeeper mode and kafka_metadata_mode is kraft: a ZooKeeper cluster moves to KRaft only through "
        "playbooks/migrate_to_kraft.yml.")
    assert _mode_change("kraft", "zookeeper").startswith(
        "it runs in KRaft mode (process.roles) and kafka_metadata_mode is zookeeper: set kafka_metadata_mode: kraft")
    # a migration under way is neither: a deploy would undo its step
    assert _mode_change("migrating", "zookeeper").startswith(
        "it runs with the settings of a migration to KRaft: go on with playbooks/migrate_to_kraft.yml")


def test_the_migrations_steps_change_modes_one_step_at_a_time():
    step = {"migration_step": True}
    for configured, wanted in (("zookeeper", "migrating"), ("migrating", "kraft"), ("kraft", "migrating"),
                               ("migrating", "zookeeper"), (None, "migration"), ("migration", "kraft")):
        assert kk.mode_change_refusal(configured, wanted, **step) is None
        assert kk.mode_change_refusal(configured, wanted) is not None  # a deploy never does
    # no step skips one, and none goes back from KRaft alone to a migration (finalize is final)
    for configured, wanted in (("zookeeper", "kraft"), ("kraft", "zookeeper"), ("kraft", "migration")):
        assert _mode_change(configured, wanted, **step) == (
            f"the migration's steps never take it from {configured} to {wanted}.")


STATUS = """ClusterId:              ZDz594TQToyIHFUs-ts4Sg
LeaderId:               9001
LeaderEpoch:            6
HighWatermark:          2045
MaxFollowerLag:         0
MaxFollowerLagTimeMs:   0
CurrentVoters:          [{"id": 9001, "directoryId": null, "endpoints": ["CONTROLLER://ctrl1.kafkalab.test:9095"]}]
CurrentObservers:       [{"id": 1, "directoryId": "Q1iDGLwK1zU4MDfa2sWuEg"}]
"""


def test_parse_quorum_status():
    assert kk.parse_quorum_status(STATUS) == {"cluster_id": "ZDz594TQToyIHFUs-ts4Sg", "leader_id": 9001,
                                              "leader_epoch": 6, "high_watermark": 2045}
    with pytest.raises(ValueError, match="LeaderId"):
        kk.parse_quorum_status("org.apache.kafka.common.errors.TimeoutException")


def test_a_change_reached_every_broker_once_each_fetched_past_its_offset():
    rows = kk.parse_quorum_replication(REPLICATION)  # broker 1 at 2045
    assert kk.observers_behind(rows, 2045) == {}
    assert kk.observers_behind(rows, 2046) == {1: 2045}
    assert kk.observers_behind(rows, 0) == {}  # voters are not observers: 9003 behind does not count


def test_a_broker_listed_twice_after_its_disk_was_replaced_is_the_entry_that_fetched_last():
    # 3.9.2's describe --replication after replace_broker.yml gave broker 2 a new disk (make test-kraft-3.9)
    rows = [{"node_id": 2, "directory_id": "3Lbd7TqDpen1pAqOypHAnw", "log_end_offset": 8195, "lag": 0,
             "last_fetch_ms": 1795835705518, "last_caught_up_ms": 1795835705518, "status": "Observer"},
            {"node_id": 2, "directory_id": "_xYLwaJTBgdSNhQroLoNmQ", "log_end_offset": 7251, "lag": 944,
             "last_fetch_ms": 1795835422317, "last_caught_up_ms": 1795835421825, "status": "Observer"},
            {"node_id": 1, "directory_id": "pOx1QHNQF6Hc-lYmtIejzQ", "log_end_offset": 8195, "lag": 0,
             "last_fetch_ms": 1795835705518, "last_caught_up_ms": 1795835705518, "status": "Observer"}]
    assert kk.observers_behind(rows, 7945) == {}
    assert kk.observers_behind(list(reversed(rows)), 7945) == {}
    assert kk.observers_behind(rows[1:], 7945) == {2: 7251}  # without its live entry, broker 2 is behind


def test_a_config_names_its_quorum_by_voters_or_by_bootstrap_servers():
    assert kk.configured_quorum({"controller.quorum.voters": "9001@c1:9090"}) == "static"
    assert kk.configured_quorum({"controller.quorum.bootstrap.servers": "c1:9090,c2:9090"}) == "dynamic"
    assert kk.configured_quorum({"zookeeper.connect": "zk1:2181"}) is None


def test_a_quorum_that_ran_keeps_its_static_or_dynamic_voters():
    static = {h: {**_dir(kk.STARTED, "X"), "quorum": "static"} for h in ("c1", "c2", "c3")}
    plan = kk.format_plan(static, "", "dynamic")
    assert plan["format"] == [] and [r["rule"] for r in plan["refusals"]] == ["kraft-quorum-change"]
    assert "set kafka_controller_quorum: static" in plan["refusals"][0]["message"]
    assert "cannot be undone" in plan["refusals"][0]["message"]
    assert kk.format_plan(static, "", "static")["refusals"] == []
    assert "convert_quorum_to_dynamic.yml" in plan["refusals"][0]["message"]
    # the conversion's roll, once kraft.version is 1: the static configs become dynamic ones
    assert kk.format_plan(static, "", "dynamic", converted=True)["refusals"] == []
    assert [r["rule"] for r in kk.format_plan(dict.fromkeys(static, {**_dir(kk.STARTED, "X"), "quorum": "dynamic"}),
                                              "", "static", converted=True)["refusals"]] == ["kraft-quorum-change"]
    dynamic = {h: {**_dir(kk.STARTED, "X"), "quorum": "dynamic"} for h in ("c1", "c2", "c3")}
    assert "cannot become static" in kk.format_plan(dynamic, "", "static")["refusals"][0]["message"]
    # a new quorum takes what the inventory asks, whatever an earlier config said
    fresh = {"c1": {**_dir(kk.NOT_FORMATTED), "quorum": "static"}}
    assert kk.format_plan(fresh, "", "dynamic") == {"cluster_id": None, "format": ["c1"], "refusals": []}


def test_a_dynamic_quorum_s_first_voters_have_directory_ids_a_rerun_gives_again():
    endpoints = {"c1": "ctrl1.example.com:9090", "c2": "ctrl2.example.com:9090"}
    initial = kk.initial_controllers("Qk2jcnbvSySg1y1eyb2r3A", endpoints, {"c1": 9001, "c2": "9002"})
    first, second = initial.split(",")
    assert first.startswith("9001@ctrl1.example.com:9090:") and second.startswith("9002@ctrl2.example.com:9090:")
    ids = [voter.rsplit(":", 1)[1] for voter in (first, second)]
    assert all(len(i) == 22 and "=" not in i for i in ids) and ids[0] != ids[1]  # Kafka's Uuid, base64 unpadded
    assert kk.initial_controllers("Qk2jcnbvSySg1y1eyb2r3A", endpoints, {"c1": 9001, "c2": 9002}) == initial
    assert kk.directory_id("another-cluster-id0000", 9001) != ids[0]


def test_no_directory_id_starts_with_a_dash_which_a_command_line_reads_as_an_option():
    # the 4.4 lab's cluster: voter 9001 got -HpH34LCVle11zT2tnFOKA, and remove-controller refused its argument
    assert not kk.directory_id("KywY0VHBQTKLaZzs9kevEQ", 9001).startswith("-")
    assert kk.directory_id("KywY0VHBQTKLaZzs9kevEQ", 9002) == "A4T8eB79UHyHir37fUn65g"  # others unchanged
    assert not any(kk.directory_id("KywY0VHBQTKLaZzs9kevEQ", n).startswith("-") for n in range(5000))


def _quorum(dirs, lags, leader=9001, observers=()):
    """Rows of a dynamic quorum: voters {node id: directory id} with lags {node id: lag}, observers (id, dir)."""
    rows = [{"node_id": node, "directory_id": d, "log_end_offset": 100 - lags.get(node, 0), "lag": lags.get(node, 0),
             "last_fetch_ms": 1, "last_caught_up_ms": 1, "status": "Leader" if node == leader else "Follower"}
            for node, d in dirs.items()]
    return rows + [{"node_id": node, "directory_id": d, "log_end_offset": 100, "lag": 0, "last_fetch_ms": 1,
                    "last_caught_up_ms": 1, "status": "Observer"} for node, d in observers]


VOTERS = {9001: "dir-9001-aaaaaaaaaaaaa", 9002: "dir-9002-aaaaaaaaaaaaa", 9003: "dir-9003-aaaaaaaaaaaaa"}
EMPTY = {"state": kk.NOT_FORMATTED, "cluster_id": None, "directory_id": None, "running": False}


def test_a_lost_voter_is_removed_then_the_new_disk_formatted_started_and_added():
    plan = kk.replace_controller_plan(_quorum(VOTERS, {9003: 9000}), 9003, EMPTY, "X", 10)
    assert plan == {"steps": ["remove", "format", "start", "add", "wait"],
                    "remove": {"node_id": 9003, "directory_id": "dir-9003-aaaaaaaaaaaaa"}, "voters": [9001, 9002, 9003],
                    "refusals": []}


def test_a_rerun_resumes_where_the_replacement_stopped():
    two = {9001: VOTERS[9001], 9002: VOTERS[9002]}
    formatted = {"state": kk.FORMATTED, "cluster_id": "X", "directory_id": "new-9003-aaaaaaaaaaaaa", "running": False}
    assert kk.replace_controller_plan(_quorum(two, {}), 9003, formatted, "X", 10)["steps"] == ["start", "add", "wait"]
    observer = dict(formatted, state=kk.STARTED, running=True)
    rows = _quorum(two, {}, observers=[(9003, "new-9003-aaaaaaaaaaaaa")])
    assert kk.replace_controller_plan(rows, 9003, observer, "X", 10)["steps"] == ["add", "wait"]
    rows = _quorum({**two, 9003: "new-9003-aaaaaaaaaaaaa"}, {9003: 50})
    assert kk.replace_controller_plan(rows, 9003, observer, "X", 10) == {
        "steps": ["wait"], "remove": None, "voters": [9001, 9002, 9003], "refusals": []}


def test_a_static_quorum_another_clusters_disk_and_the_last_caught_up_majority_are_refused():
    static = {node: kk.STATIC_DIRECTORY_ID for node in VOTERS}
    plan = kk.replace_controller_plan(_quorum(static, {}), 9003, EMPTY, "X", 10)
    assert [r["rule"] for r in plan["refusals"]] == ["kraft-replace-static"] and plan["steps"] == []
    assert "docs/runbooks/replace-controller.md" in plan["refusals"][0]["message"]
    other = dict(EMPTY, state=kk.FORMATTED, cluster_id="Y", directory_id="d")
    plan = kk.replace_controller_plan(_quorum(VOTERS, {}), 9003, other, "X", 10)
    assert [r["rule"] for r in plan["refusals"]] == ["kraft-replace-other-cluster"]
    # 9002 lags: without 9003 only the leader is caught up, 1 of the 2 voters left
    plan = kk.replace_controller_plan(_quorum(VOTERS, {9002: 500, 9003: 9000}), 9003, EMPTY, "X", 10)
    assert plan["refusals"] == [{"rule": "kraft-replace-majority", "message": (
        "without node 9003, 1 voter(s) [9001] are caught up, fewer than the majority of 2 of the 2 voters left "
        "(lagging: {9002: 500}): bring them back first.")}]
    no_leader = [dict(r, status="Follower") for r in _quorum(VOTERS, {})]
    assert [r["rule"] for r in kk.replace_controller_plan(no_leader, 9003, EMPTY, "X", 10)["refusals"]] == [
        "kraft-replace-majority"]


def test_a_replacement_disk_another_rule_refuses_stops_the_plan():
    newer = {"rule": "version-newer-format", "message": "/m was formatted at metadata.version level 33, ..."}
    formatted = dict(EMPTY, state=kk.FORMATTED, cluster_id="X", directory_id="d", refusals=[newer])
    plan = kk.replace_controller_plan(_quorum(VOTERS, {}), 9003, formatted, "X", 10)
    assert plan["refusals"] == [newer] and plan["steps"] == []


def test_a_failed_voter_whose_host_still_runs_it_is_fenced_only_when_told():
    plan = kk.replace_controller_plan(_quorum(VOTERS, {}), 9003, EMPTY, "X", 10, failed_running=True)
    assert [r["rule"] for r in plan["refusals"]] == ["kraft-replace-failed-running"] and plan["steps"] == []
    assert "fence_failed_host=true" in plan["refusals"][0]["message"]
    plan = kk.replace_controller_plan(_quorum(VOTERS, {}), 9003, EMPTY, "X", 10, failed_running=True, fence=True)
    assert plan["steps"] == ["fence", "remove", "format", "start", "add", "wait"] and plan["refusals"] == []


def test_a_joining_controller_alone_is_formatted_with_the_quorum_s_id():
    others_unread = {"c1": None, "c2": None, "k4": _dir(kk.NOT_FORMATTED)}
    assert kk.format_plan(others_unread, "X", "dynamic", joining="k4") == {
        "cluster_id": "X", "format": ["k4"], "refusals": []}
    assert kk.format_plan({"k4": _dir(kk.STARTED, "X")}, "X", "dynamic", joining="k4")["format"] == []
    assert [r["rule"] for r in kk.format_plan({"k4": _dir(kk.FORMATTED, "Y")}, "X", "dynamic",
                                              joining="k4")["refusals"]] == ["kraft-replace-other-cluster"]
    for quorum, cluster_id in (("static", "X"), ("dynamic", "")):
        assert [r["rule"] for r in kk.format_plan(others_unread, cluster_id, quorum, joining="k4")["refusals"]] == [
            "kraft-replace-static"]


def test_the_replacement_plan_in_words_names_each_step_left():
    plan = kk.replace_controller_plan(_quorum(VOTERS, {9003: 9000}), 9003, EMPTY, "X", 10)
    lines = kk.replace_controller_lines(plan, 9003, "ctrl3", "kafka4")
    assert lines[0] == "voters now: [9001, 9002, 9003]"
    assert [line.split(":")[0] for line in lines[1:]] == ["remove", "format", "start", "add", "wait"]
    assert "dir-9003-aaaaaaaaaaaaa" in lines[1] and "kafka4" in lines[2]


def test_a_controller_running_on_an_emptied_dir_is_formatted_and_started_again():
    running_empty = dict(EMPTY, running=True)
    plan = kk.replace_controller_plan(_quorum(VOTERS, {9003: 9000}), 9003, running_empty, "X", 10)
    assert plan["steps"] == ["remove", "format", "start", "add", "wait"]


def test_a_replacement_dir_of_another_node_is_refused():
    other_node = dict(EMPTY, state=kk.STARTED, cluster_id="X", identity=["/m holds the data of node.id 9002, not 9003"])
    plan = kk.replace_controller_plan(_quorum(VOTERS, {}), 9003, other_node, "X", 10)
    assert plan["refusals"] == [{"rule": "kraft-replace-other-cluster", "message": (
        "the replacement's metadata dir: /m holds the data of node.id 9002, not 9003.")}]


STATIC = {node: kk.STATIC_DIRECTORY_ID for node in VOTERS}


def test_a_static_quorum_is_converted_only_when_confirmed_then_rolled():
    hosts = ["ctrl1", "kafka1"]
    plan = kk.convert_quorum_plan(_quorum(STATIC, {}), True, False, hosts, 10)
    assert [r["rule"] for r in plan["refusals"]] == ["convert-needs-confirm"]
    assert plan["steps"] == ["feature", "roll"]  # shown, and refused: the plan says what cannot be undone
    assert "confirm_irreversible=true" in plan["refusals"][0]["message"]
    # --check only shows the plan: no confirmation needed to see it
    assert kk.convert_quorum_plan(_quorum(STATIC, {}), True, False, hosts, 10, check_mode=True)["refusals"] == []
    plan = kk.convert_quorum_plan(_quorum(STATIC, {}), True, True, hosts, 10)
    assert plan == {"steps": ["feature", "roll"], "voters": [9001, 9002, 9003], "kraft_version": 0, "refusals": []}
    assert "CANNOT BE UNDONE" in kk.convert_quorum_lines(plan, hosts)[1]
    # a rerun after the feature step: the roll alone, and no confirmation needed; then nothing
    assert kk.convert_quorum_plan(_quorum(VOTERS, {}), True, False, hosts, 10)["steps"] == ["roll"]
    assert kk.convert_quorum_plan(_quorum(VOTERS, {}), True, False, [], 10)["steps"] == []


def test_a_conversion_is_refused_on_3_9_and_with_a_lagging_voter():
    plan = kk.convert_quorum_plan(_quorum(STATIC, {9002: 500}), False, True, ["ctrl1"], 10)
    assert [r["rule"] for r in plan["refusals"]] == ["convert-release", "convert-voters-caught-up"]
    assert "{9002: 500}" in plan["refusals"][1]["message"]


def test_static_voters_are_those_without_a_directory_id():
    assert kk.static_voters(_quorum(STATIC, {})) == [9001, 9002, 9003]
    assert kk.static_voters(_quorum(VOTERS, {}, observers=[(1, kk.STATIC_DIRECTORY_ID)])) == []


def test_the_quorum_is_dynamic_once_its_leader_knows_every_voter_by_its_directory_id():
    assert kk.quorum_kraft_version(_quorum(STATIC, {})) == 0
    half = {**VOTERS, 9003: kk.STATIC_DIRECTORY_ID}  # one voter not yet known by its directory id
    assert kk.quorum_kraft_version(_quorum(half, {})) == 0
    assert kk.quorum_kraft_version(_quorum(VOTERS, {}, observers=[(1, kk.STATIC_DIRECTORY_ID)])) == 1
