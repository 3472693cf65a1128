"""The modules' own logic, with the cluster faked at read_cluster_state / the AdminClient / the
four-letter words (their integration tests run them against the lab)."""

import importlib.util
import io
import json
from concurrent.futures import Future
from contextlib import redirect_stdout

import pytest
from ansible.module_utils import basic

from ansible_collections.kafkaops.toolkit.plugins.module_utils import (
    kafka_tools,
    zookeeper_state,
)
from lab.config import REPO

CONN = {"bootstrap_servers": "k1:9092", "zookeeper_connect": "zk1:2181/kafka"}


def _state(partitions, brokers=(1, 2, 3), controller=1):
    return {"cluster_id": "c1", "controller_id": controller, "brokers": {b: {} for b in brokers},
            "min_insync": {"t": 2},
            "partitions": [{"topic": "t", "partition": n, "leader": lead, "replicas": reps, "isr": isr}
                           for n, (lead, reps, isr) in enumerate(partitions)]}


def _set_args(monkeypatch, args):
    monkeypatch.setattr(basic, "_ANSIBLE_ARGS", json.dumps({"ANSIBLE_MODULE_ARGS": args}).encode())
    monkeypatch.setattr(basic, "_ANSIBLE_PROFILE", "legacy")


def done(value=None, error=None):
    """A finished future, as a fake AdminClient's answer: its value, or the error it raises."""
    future = Future()
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)
    return future


def run_module(name, args, monkeypatch, state=None, check_mode=False, **fakes):
    """Run plugins/modules/<name>.py's main() with args (and its functions named in fakes replaced);
    returns its JSON result."""
    spec = importlib.util.spec_from_file_location(name, REPO / "plugins" / "modules" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for attribute, fake in fakes.items():
        monkeypatch.setattr(module, attribute, fake)
    if state is not None:
        fake = state if callable(state) else (lambda: state)
        monkeypatch.setattr(module, "read_cluster_state", lambda params: fake())
    _set_args(monkeypatch, dict(args, _ansible_check_mode=check_mode))
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        module.main()
    return json.loads(out.getvalue())


def test_cluster_info_orders_restarts_and_counts(monkeypatch):
    state = _state([(1, [1, 2, 3], [1, 2, 3]), (2, [2, 3, 1], [2, 3])], controller=2)
    result = run_module("kafka_cluster_info", dict(CONN, restart_candidates=[1, 2, 3]), monkeypatch, state)
    assert result["restart_order"] == [1, 3, 2]  # broker 1 lags in t-1, the controller goes last
    assert result["summary"]["under_replicated"] == 1 and result["under_replicated"] == ["t-1"]


def test_cluster_info_failure_says_what_to_check(monkeypatch):
    def unreachable():
        raise RuntimeError("Connection time-out")
    result = run_module("kafka_cluster_info", CONN, monkeypatch, unreachable)
    assert result["failed"] is True
    assert result["msg"].startswith("cannot read the cluster state from k1:9092 / zk1:2181/kafka: Connection")


def test_safe_to_stop_names_the_blocking_partitions(monkeypatch):
    state = _state([(1, [1, 2, 3], [1, 2]), (2, [2, 3, 1], [2, 3, 1])])
    result = run_module("kafka_broker_safe_to_stop", dict(CONN, broker_id=2), monkeypatch, state)
    assert result["safe"] is False and result["done"] is False and result["blocking"] == ["t-0"]
    assert result["remaining"] == 1
    assert result["timeout_msg"].startswith("refusing to stop broker 2: 1 partition(s) would fall below "
                                            "min.insync.replicas: t[0].")


def test_safe_to_stop_picks_the_next_broker_of_a_roll_from_the_same_read(monkeypatch):
    # Broker 3 lags in t-1 (restarted first), the controller (2) goes last; the check is for the one picked.
    state = _state([(1, [1, 2, 3], [1, 2, 3]), (1, [1, 2, 3], [1, 2])], controller=2)
    args = dict(CONN, restart_candidates=[1, 2, 3])
    result = run_module("kafka_broker_safe_to_stop", args, monkeypatch, state)
    assert result["broker_id"] == 3 and result["controller_id"] == 2 and result["safe"] is True
    result = run_module("kafka_broker_safe_to_stop", dict(CONN, restart_candidates=[1, 2]), monkeypatch, state)
    assert result["broker_id"] == 1 and result["safe"] is False and result["blocking"] == ["t-1"]
    result = run_module("kafka_broker_safe_to_stop", dict(args, restart_first=[2]), monkeypatch, state)
    assert result["broker_id"] == 2


def test_safe_to_stop_warns_about_a_replication_factor_not_above_min_isr(monkeypatch):
    warned = []  # recorded at the call: how Ansible carries warnings depends on what else is loaded
    monkeypatch.setattr(basic.AnsibleModule, "warn", lambda self, msg: warned.append(msg))
    state = _state([(1, [1, 2], [1, 2])])
    result = run_module("kafka_broker_safe_to_stop", dict(CONN, broker_id=1), monkeypatch, state)
    assert result["safe"] is True and result["rf_not_above_min_isr"] == ["t-0"]
    assert warned == ["broker 1: these partitions fall below min.insync.replicas whenever any replica stops "
                      "(replication factor too low): t[0]"]


def test_wait_healthy_reports_lagging_partitions(monkeypatch):
    state = _state([(1, [1, 2, 3], [1, 3]), (3, [3, 2, 1], [3, 1]), (1, [1, 3, 2], [1, 3, 2])])
    result = run_module("kafka_broker_wait_healthy", dict(CONN, broker_id=2), monkeypatch, state)
    assert result["done"] is False and result["lagging"] == ["t-0", "t-1"] and result["remaining"] == 2
    assert result["progress"] == "broker 2: 2 partition(s) still catching up: t[0-1]"


def test_wait_healthy_of_an_unregistered_broker_has_no_eta(monkeypatch):
    result = run_module("kafka_broker_wait_healthy", dict(CONN, broker_id=2), monkeypatch,
                        _state([], brokers=(1, 3)))
    assert result["registered"] is False and result["remaining"] is None
    assert "did not register in ZooKeeper" in result["timeout_msg"]


def test_wait_healthy_with_kafka_tools_counts_the_bytes_still_to_copy(monkeypatch):
    state = _state([(1, [1, 2, 3], [1, 3]), (3, [3, 2, 1], [3, 1, 2])])
    asked = []

    def sizes(home, bootstrap, brokers, timeout):
        asked.append((home, brokers))
        mib = 1024 ** 2
        return {1: {("t", 0): 3 * mib, ("t", 1): mib}, 2: {("t", 0): mib, ("t", 1): mib},
                3: {("t", 0): 2 * mib, ("t", 1): mib}}
    monkeypatch.setattr(kafka_tools, "read_log_dir_sizes", sizes)
    args = dict(CONN, broker_id=2, kafka_tools_home="/k")
    result = run_module("kafka_broker_wait_healthy", args, monkeypatch, state)
    assert asked == [("/k", [1, 2, 3])]
    assert result["remaining"] == result["bytes_missing"] == 2 * 1024 ** 2  # the ETA follows the bytes
    assert result["progress"] == "broker 2: 1 partition(s) still catching up: t[0]"
    assert result["copy_progress"] == "; 2.0 MiB of 4.0 MiB still to copy"  # kept by the action plugin


def test_wait_healthy_reads_no_sizes_before_the_broker_registered(monkeypatch):
    monkeypatch.setattr(kafka_tools, "read_log_dir_sizes", lambda *a: pytest.fail("read the sizes"))
    result = run_module("kafka_broker_wait_healthy", dict(CONN, broker_id=2, kafka_tools_home="/k"), monkeypatch,
                        _state([], brokers=(1, 3)))
    assert result["registered"] is False and "bytes_missing" not in result


def _no_election(params, plan):
    raise AssertionError("check mode must not elect")


def test_leader_election_check_mode_plans_and_changes_nothing(monkeypatch):
    state = _state([(2, [1, 2, 3], [1, 2, 3]), (2, [2, 3, 1], [2, 3, 1]), (3, [1, 2, 3], [3, 2])])
    result = run_module("kafka_leader_election", CONN, monkeypatch, state, check_mode=True,
                        elect=_no_election)
    # t-2's preferred replica (1) is out of sync: no election can move its leader there
    assert (result["changed"], result["plan"], result["not_preferred"]) == (True, ["t-0"], ["t-0", "t-2"])


def test_leader_election_reports_moved_leaders(monkeypatch):
    states = iter([_state([(2, [1, 2, 3], [1, 2, 3])]), _state([(1, [1, 2, 3], [1, 2, 3])])])
    elected = []

    def fake_elect(params, plan):
        elected.extend(plan)
        return {}
    result = run_module("kafka_leader_election", CONN, monkeypatch, lambda: next(states), elect=fake_elect)
    assert elected == ["t-0"]
    assert (result["changed"], result["moved"], result["not_preferred"]) == (True, ["t-0"], [])


def test_leader_election_with_nothing_to_move_is_unchanged(monkeypatch):
    state = _state([(1, [1, 2, 3], [1, 2, 3])])
    result = run_module("kafka_leader_election", CONN, monkeypatch, state, elect=_no_election)
    assert result["changed"] is False and result["plan"] == []


def test_zookeeper_ensemble_info_without_quorum(monkeypatch):
    answers = {"10.0.0.1": "Zxid: 0x5\nMode: follower\nNode count: 4\n", "10.0.0.2": None,
               "10.0.0.3": "This ZooKeeper instance is not currently serving requests\n"}
    monkeypatch.setattr(zookeeper_state, "four_letter_word", lambda host, port, timeout, tls: answers[host])
    members = {"zk1": "10.0.0.1:2181", "zk2": "10.0.0.2:2181", "zk3": "10.0.0.3:2181"}
    result = run_module("zookeeper_ensemble_info", {"members": members}, monkeypatch)
    assert result["has_leader"] is False and result["done"] is False and result["remaining"] == 2
    assert result["progress"] == "ensemble: no leader; not serving: zk2, zk3"


def test_zookeeper_ensemble_info_fails_at_once_on_a_member_that_does_not_resolve(monkeypatch):
    monkeypatch.setattr(zookeeper_state, "four_letter_word", lambda host, port, timeout, tls: "Mode: follower\n")
    members = {"zk1": "127.0.0.1:2181", "zk9": "no-such-member.invalid:2181"}
    result = run_module("zookeeper_ensemble_info", {"members": members}, monkeypatch)
    assert result["failed"] is True and not result.get("retryable")
    assert result["msg"].startswith("ZooKeeper members: no-such-member.invalid does not resolve")


def test_throttle_records_are_found_by_their_file_names_only(tmp_path):
    from ansible_collections.kafkaops.toolkit.plugins.modules.kafka_replication_throttle import records_of
    folder = tmp_path / "cluster-a"
    folder.mkdir()
    for name in ("broker-1.json", "broker-12.json", "broker-2.json.tmp", "broker-x.json", "notes.txt"):
        (folder / name).write_text("{}")
    assert records_of(str(tmp_path), "cluster-a", None) == {1: str(folder / "broker-1.json"),
                                                             12: str(folder / "broker-12.json")}
    assert records_of(str(tmp_path), "cluster-a", 12) == {12: str(folder / "broker-12.json")}
    assert records_of(str(tmp_path), "cluster-b", None) == {}


def test_throttle_removal_waits_until_the_running_brokers_no_longer_show_the_rates(monkeypatch):
    # Broker 3 applies the removal on its second read; broker 2 is stopped (not waited for).
    from ansible_collections.kafkaops.toolkit.plugins.modules import kafka_replication_throttle as module
    reads = []

    def read_configs(admin, zk, live, topics, brokers, timeout):
        reads.append(dict(brokers))
        return {}, {3: {"follower.replication.throttled.rate": "1048576"} if len(reads) == 1 else {}}
    monkeypatch.setattr(module, "read_configs", read_configs)
    monkeypatch.setattr(module.time, "sleep", lambda seconds: None)
    plan = {"brokers": {3: ["follower.replication.throttled.rate"], 2: ["leader.replication.throttled.rate"]}}
    module.wait_removed(None, None, {1, 3}, plan, timeout=30)
    assert reads == [{3: ["follower.replication.throttled.rate"]}] * 2


def test_throttle_removal_fails_when_a_rate_still_acts_after_the_timeout(monkeypatch):
    from ansible_collections.kafkaops.toolkit.plugins.modules import kafka_replication_throttle as module
    monkeypatch.setattr(module, "read_configs",
                        lambda *a: ({}, {3: {"follower.replication.throttled.rate": "1048576"}}))
    monkeypatch.setattr(module.time, "sleep", lambda seconds: None)
    with pytest.raises(RuntimeError, match=r"still act on broker\(s\) \[3\] after 0s"):
        module.wait_removed(None, None, {3}, {"brokers": {3: ["follower.replication.throttled.rate"]}}, timeout=0)


def _features(monkeypatch, levels):
    """kafka_tools' feature calls faked over a dict of levels; returns the upgrades asked for."""
    asked = []
    monkeypatch.setattr(kafka_tools, "read_feature_levels", lambda home, conf, timeout: dict(levels))

    def upgrade(home, conf, raise_, timeout, dry_run=False):
        asked.append(dict(raise_))
        levels.update(raise_)
    monkeypatch.setattr(kafka_tools, "upgrade_features", upgrade)
    return asked


FEATURE = dict(CONN, kafka_tools_home="/opt/kafka", features={"kraft.version": 1})


def test_feature_upgrades_once_and_never_lowers(monkeypatch):
    asked = _features(monkeypatch, {"kraft.version": 0})
    result = run_module("kafka_feature", FEATURE, monkeypatch, check_mode=True)
    assert (result["changed"], result["before"], result["after"], asked) == (
        True, {"kraft.version": 0}, {"kraft.version": 1}, [])
    result = run_module("kafka_feature", FEATURE, monkeypatch)
    assert (result["changed"], result["after"], asked) == (True, {"kraft.version": 1}, [{"kraft.version": 1}])
    result = run_module("kafka_feature", dict(FEATURE, features={"kraft.version": 0}), monkeypatch)
    assert (result["changed"], result["after"], asked) == (False, {"kraft.version": 1}, [{"kraft.version": 1}])


def test_features_below_their_levels_are_raised_together_the_others_left(monkeypatch):
    asked = _features(monkeypatch, {"metadata.version": 21, "group.version": 1})
    wanted = {"metadata.version": 33, "group.version": 1, "share.version": 2}
    result = run_module("kafka_feature", dict(FEATURE, features=wanted), monkeypatch)
    assert asked == [{"metadata.version": 33, "share.version": 2}]
    assert result["before"] == {"metadata.version": 21, "group.version": 1, "share.version": 0}


UPGRADE = dict(CONN, zookeeper_connect="", kafka_tools_home="/opt/kafka", kafka_version="4.4.0",
               metadata_mode="kraft", nodes={
                   **{f"ctrl{i}": {"role": "controller", "release": "4.4.0", "running": True, "settled": True,
                                   "ibp": None} for i in (1, 2, 3)},
                   **{f"kafka{i}": {"role": "broker", "release": "4.4.0", "running": True, "settled": True,
                                    "ibp": None} for i in (1, 2, 3)}})


def test_upgrade_plan_asks_kafka_to_validate_the_features_and_refuses_on_its_answer(monkeypatch, tmp_path):
    (tmp_path / "c1.json").write_text('{"from": "3.9.2", "to": "4.4.0"}')
    monkeypatch.setattr(kafka_tools, "read_feature_levels", lambda home, conf, timeout: {"metadata.version": 21})
    dry_runs = []

    def refuse(home, conf, levels, timeout, dry_run=False):
        dry_runs.append((dict(levels), dry_run))
        raise RuntimeError("Could not upgrade metadata.version to 33: controller 9004 only supports 1-21.")
    monkeypatch.setattr(kafka_tools, "upgrade_features", refuse)
    args = dict(UPGRADE, record_dir=str(tmp_path), finalize=True)
    result = run_module("kafka_upgrade_plan", args, monkeypatch, state=_state([]))
    assert [r["rule"] for r in result["refusals"]] == ["upgrade-feature-unsupported"]
    assert "controller 9004 only supports 1-21" in result["refusals"][0]["message"]
    assert result["steps"] == [] and dry_runs[0][1] is True and dry_runs[0][0]["metadata.version"] == 33
    assert result["record"] == {"from": "3.9.2", "to": "4.4.0"} and result["record_path"] == str(tmp_path / "c1.json")
    monkeypatch.setattr(kafka_tools, "upgrade_features", lambda *a, **k: "")  # accepted
    result = run_module("kafka_upgrade_plan", args, monkeypatch, state=_state([]))
    assert result["refusals"] == [] and [s["step"] for s in result["steps"]] == ["features"]


def test_upgrade_plan_without_a_record_rolls_and_asks_nothing_of_the_features(monkeypatch, tmp_path):
    monkeypatch.setattr(kafka_tools, "read_feature_levels", lambda home, conf, timeout: {"metadata.version": 21})
    monkeypatch.setattr(kafka_tools, "upgrade_features", lambda *a, **k: pytest.fail("no dry run while rolling"))
    nodes = {h: dict(n, release="3.9.2") for h, n in UPGRADE["nodes"].items()}
    result = run_module("kafka_upgrade_plan", dict(UPGRADE, nodes=nodes, record_dir=str(tmp_path)), monkeypatch,
                        state=_state([]))
    assert [s["step"] for s in result["steps"]] == ["controllers", "brokers"]
    assert result["stop_before"] == "features" and result["record"] == {"from": "3.9.2", "to": "4.4.0"}
    assert not (tmp_path / "c1.json").exists()  # the playbook writes it, before the first host changes


def test_upgrade_rollback_goes_back_to_the_record_and_is_refused_without_one(monkeypatch, tmp_path):
    monkeypatch.setattr(kafka_tools, "read_feature_levels", lambda home, conf, timeout: {"metadata.version": 21})
    zookeeper = dict(UPGRADE, metadata_mode="zookeeper", zookeeper_connect="zk1:2181", record_dir=str(tmp_path),
                     rollback=True, nodes={"kafka1": dict(UPGRADE["nodes"]["kafka1"], release="3.9.2")})
    result = run_module("kafka_upgrade_plan", zookeeper, monkeypatch, state=_state([]))
    assert [r["rule"] for r in result["refusals"]] == ["rollback-upgrade-nothing-recorded"]
    assert result["commit"] == []
    (tmp_path / "c1.json").write_text('{"from": "3.9.2", "to": "4.4.0"}')
    args = dict(UPGRADE, record_dir=str(tmp_path), rollback=True, controller_quorum="static")
    result = run_module("kafka_upgrade_plan", args, monkeypatch, state=_state([]))
    assert [s["step"] for s in result["steps"]] == ["brokers", "controllers"] and result["plan"][0] == "back to 3.9.2:"
    assert result["commit"][0] == "kafka_version: 3.9.2" and result["quorum"] == "static"
