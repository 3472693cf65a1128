"""The rolling upgrade's decisions (module_utils/kafka_upgrade), on hand-written cluster states."""

from plugins.module_utils import kafka_upgrade as ku

FEATURES_44 = {"metadata.version": 33, "eligible.leader.replicas.version": 1, "group.version": 1,
               "share.version": 2, "streams.version": 1, "transaction.version": 2}


def node(role, release, ibp=None, settled=True, running=True):
    return {"role": role, "release": release, "ibp": ibp, "settled": settled, "running": running}


def zookeeper_cluster(brokers=("3.6.2",) * 3, zookeeper=("3.6.2",) * 3, ibps=(None,) * 3, **changes):
    nodes = {f"zk{i + 1}": node("zookeeper", r) for i, r in enumerate(zookeeper)}
    pairs = enumerate(zip(brokers, ibps, strict=True))
    nodes.update({f"kafka{i + 1}": node("broker", r, ibp) for i, (r, ibp) in pairs})
    for host, change in changes.items():
        nodes[host].update(change)
    return {"mode": "zookeeper", "nodes": nodes, "under_replicated": []}


def kraft_cluster(controllers=("3.9.2",) * 3, brokers=("3.9.2",) * 3, features=None, feature_check=None):
    nodes = {f"ctrl{i + 1}": node("controller", r) for i, r in enumerate(controllers)}
    nodes.update({f"kafka{i + 1}": node("broker", r) for i, r in enumerate(brokers)})
    return {"mode": "kraft", "nodes": nodes, "under_replicated": [],
            "features": {"metadata.version": 21} if features is None else features, "feature_check": feature_check}


def rules(result):
    return [r["rule"] for r in result["refusals"]]


def steps(result):
    return [(s["step"], s["hosts"]) for s in result["steps"]]


def test_zookeeper_mode_to_3_9_rolls_the_ensemble_then_the_brokers_pinned_and_stops_before_the_ibp():
    plan = ku.upgrade_plan(zookeeper_cluster(), "3.9.2")
    assert rules(plan) == [] and plan["record"] == {"from": "3.6.2", "to": "3.9.2"}
    assert steps(plan) == [("zookeeper", ["zk1", "zk2", "zk3"]), ("brokers", ["kafka1", "kafka2", "kafka3"])]
    assert [s["ibp"] for s in plan["steps"]] == ["3.6", "3.6"] and not any(s["irreversible"] for s in plan["steps"])
    assert plan["stop_before"] == "ibp"


def test_with_finalize_the_ibp_roll_follows_and_is_marked_irreversible():
    plan = ku.upgrade_plan(zookeeper_cluster(), "3.9.2", finalize=True)
    assert [s["step"] for s in plan["steps"]] == ["zookeeper", "brokers", "ibp"]
    assert plan["steps"][-1] == {"step": "ibp", "hosts": ["kafka1", "kafka2", "kafka3"], "irreversible": True,
                                 "ibp": "3.9"}
    assert plan["stop_before"] is None


def test_a_rerun_resumes_with_the_hosts_not_done_and_a_restart_pending_is_not_done():
    record = {"from": "3.6.2", "to": "3.9.2"}
    cluster = zookeeper_cluster(brokers=("3.9.2", "3.9.2", "3.6.2"), zookeeper=("3.9.2",) * 3,
                                ibps=("3.6", "3.6", None), kafka2={"settled": False})
    plan = ku.upgrade_plan(cluster, "3.9.2", record)
    assert rules(plan) == [] and steps(plan) == [("brokers", ["kafka2", "kafka3"])]
    assert plan["steps"][0]["ibp"] == "3.6" and plan["record"] == record
    done = zookeeper_cluster(brokers=("3.9.2",) * 3, zookeeper=("3.9.2",) * 3, ibps=("3.9",) * 3)
    assert ku.upgrade_plan(done, "3.9.2", record, finalize=True)["steps"] == []


def test_a_cluster_already_at_the_target_has_nothing_to_do():
    cluster = zookeeper_cluster(brokers=("3.9.2",) * 3, zookeeper=("3.9.2",) * 3)
    plan = ku.upgrade_plan(cluster, "3.9.2", finalize=True)
    assert rules(plan) == [] and plan["steps"] == [] and plan["record"] == {"from": "3.9.2", "to": "3.9.2"}


def test_refusals_name_what_is_wrong_and_plan_nothing():
    down = ku.upgrade_plan(zookeeper_cluster(kafka2={"running": False}), "3.9.2")
    assert rules(down) == ["upgrade-node-down"] and down["steps"] == []
    assert "kafka2 does not run" in down["refusals"][0]["message"]
    mixed = ku.upgrade_plan(zookeeper_cluster(brokers=("3.5.2", "3.6.2", "3.9.2")), "3.9.2")
    assert rules(mixed) == ["upgrade-mixed-releases"]
    assert "runs 3.5.2, 3.6.2, 3.9.2 and no upgrade to 3.9.2 is recorded" in mixed["refusals"][0]["message"]
    other = ku.upgrade_plan(zookeeper_cluster(brokers=("3.6.2", "3.8.1", "3.8.1")), "3.9.2",
                            {"from": "3.6.2", "to": "3.8.1"})
    assert rules(other) == ["upgrade-mixed-releases"] and "finish it (-e kafka_version=3.8.1)" in \
        other["refusals"][0]["message"]
    stray = ku.upgrade_plan(zookeeper_cluster(brokers=("3.6.2", "3.9.2", "3.8.1")), "3.9.2",
                            {"from": "3.6.2", "to": "3.9.2"})
    assert rules(stray) == ["upgrade-mixed-releases"] and "also runs 3.8.1" in stray["refusals"][0]["message"]
    # an earlier upgrade that finished leaves one release: the next one starts from it
    after = ku.upgrade_plan(zookeeper_cluster(brokers=("3.8.1",) * 3, zookeeper=("3.8.1",) * 3), "3.9.2",
                            {"from": "3.6.2", "to": "3.8.1"})
    assert rules(after) == [] and after["record"] == {"from": "3.8.1", "to": "3.9.2"}
    older = ku.upgrade_plan(zookeeper_cluster(), "3.5.2")
    assert rules(older) == ["upgrade-downgrade"] and "rollback_upgrade.yml" in older["refusals"][0]["message"]
    urp = dict(zookeeper_cluster(), under_replicated=[f"t-{i}" for i in range(7)])
    assert "7 partition(s) are under-replicated (t-0, t-1, t-2, t-3, t-4 ...)" in \
        ku.upgrade_plan(urp, "3.9.2")["refusals"][0]["message"]


def test_the_release_refusals_of_the_version_table_come_first():
    assert rules(ku.upgrade_plan(zookeeper_cluster(), "4.4.0")) == ["version-zookeeper-on-4"]
    assert rules(ku.upgrade_plan(kraft_cluster(), "4.2.0")) == ["version-known-bad"]
    assert rules(ku.upgrade_plan(kraft_cluster(), "5.0.0")) == ["version-unknown"]


def test_kraft_to_4_4_rolls_controllers_then_brokers_and_finalizes_explicit_features():
    plan = ku.upgrade_plan(kraft_cluster(), "4.4.0")
    assert steps(plan) == [("controllers", ["ctrl1", "ctrl2", "ctrl3"]), ("brokers", ["kafka1", "kafka2", "kafka3"])]
    assert plan["stop_before"] == "features"
    rolled = kraft_cluster(controllers=("4.4.0",) * 3, brokers=("4.4.0",) * 3)
    final = ku.upgrade_plan(rolled, "4.4.0", {"from": "3.9.2", "to": "4.4.0"}, finalize=True)
    assert rules(final) == [] and [s["step"] for s in final["steps"]] == ["features"]
    assert final["steps"][0]["features"] == FEATURES_44 and "kraft.version" not in final["steps"][0]["features"]
    assert final["steps"][0]["irreversible"]  # 21 -> 33 crosses 4.0-IV1


def test_features_already_raised_are_left_and_a_bump_that_changes_no_metadata_is_reversible():
    partial = dict(FEATURES_44, **{"metadata.version": 22, "group.version": 0})
    rolled = kraft_cluster(controllers=("4.4.0",) * 3, brokers=("4.4.0",) * 3, features=partial)
    step = ku.upgrade_plan(rolled, "4.4.0", finalize=True)["steps"][0]
    assert step["features"] == {"metadata.version": 33, "group.version": 1} and step["irreversible"]
    at_23 = dict(FEATURES_44, **{"metadata.version": 23})
    assert not ku._metadata_irreversible(21, 22) and ku._metadata_irreversible(22, 23)
    assert ku._metadata_irreversible(23, 33) and not ku._metadata_irreversible(33, 33)
    assert ku.upgrade_plan(kraft_cluster(controllers=("4.4.0",) * 3, brokers=("4.4.0",) * 3, features=at_23),
                           "4.4.0", finalize=True)["steps"][0]["features"] == {"metadata.version": 33}


def test_the_finalize_gate_is_kafkas_dry_run_once_every_node_runs_the_target():
    rolled = kraft_cluster(controllers=("4.4.0",) * 3, brokers=("4.4.0",) * 3)
    plan = ku.upgrade_plan(rolled, "4.4.0", finalize=True)
    assert ku.feature_check_levels(plan) == FEATURES_44  # what the module asks Kafka to validate
    answer = "Invalid update version 33 for feature metadata.version. Broker 3002 only supports versions 1-21."
    refused = ku.upgrade_plan(dict(rolled, feature_check=answer), "4.4.0", finalize=True)
    assert rules(refused) == ["upgrade-feature-unsupported"] and answer in refused["refusals"][0]["message"]
    assert "KAFKA-20295" in refused["refusals"][0]["message"]
    # while nodes still roll, nothing is asked (the roll comes first; a rerun finalizes)
    rolling = ku.upgrade_plan(kraft_cluster(controllers=("4.4.0",) * 3), "4.4.0", finalize=True)
    assert rules(rolling) == [] and ku.feature_check_levels(rolling) is None


def test_a_run_takes_the_rolls_and_the_finalize_step_alone_in_a_run_of_its_own():
    plan = ku.upgrade_plan(kraft_cluster(), "4.4.0", finalize=True)
    assert [s["step"] for s in plan["steps"]] == ["controllers", "brokers", "features"]
    assert [s["step"] for s in ku.steps_this_run(plan)] == ["controllers", "brokers"]
    lines = ku.upgrade_lines(plan, ku.steps_this_run(plan))
    assert lines[0] == "upgrade from 3.9.2 to 4.4.0" and lines[1] == "controllers: ctrl1, ctrl2, ctrl3"
    assert lines[3].startswith("features: metadata.version=33") and lines[3].endswith(
        ": CANNOT BE UNDONE (a later run)")
    rolled = ku.upgrade_plan(kraft_cluster(controllers=("4.4.0",) * 3, brokers=("4.4.0",) * 3), "4.4.0")
    assert rolled["steps"] == [] and rolled["stop_before"] == "features"
    assert ku.upgrade_lines(rolled, [])[-1] == (
        "then features: only with -e finalize=true, once every node runs the target")
    zookeeper = ku.upgrade_plan(zookeeper_cluster(), "3.9.2")
    assert ku.upgrade_lines(zookeeper, ku.steps_this_run(zookeeper))[2] == (
        "brokers: kafka1, kafka2, kafka3 (inter.broker.protocol.version 3.6)")


def test_a_node_is_what_its_one_process_runs():
    broker = {"kind": "broker", "release": "3.9.2", "config_properties": {"inter.broker.protocol.version": "3.6"}}
    member = {"kind": "zookeeper", "release": "3.9.2", "config_properties": {}}
    assert ku.node_from_processes([broker, member], "kafka_broker", False) == {
        "role": "broker", "release": "3.9.2", "running": True, "settled": True, "ibp": "3.6"}
    assert ku.node_from_processes([member], "zookeeper", True)["settled"] is False
    assert ku.node_from_processes([member], "kafka_controller", False) == {
        "role": "controller", "release": None, "running": False, "settled": True, "ibp": None}
    # two brokers on one host: no release to read (adoption refuses such a host)
    assert ku.node_from_processes([broker, broker], "kafka_broker", False)["running"] is False


def test_rollback_goes_back_in_reverse_until_the_irreversible_step():
    record = {"from": "3.6.2", "to": "3.9.2"}
    half = zookeeper_cluster(brokers=("3.9.2", "3.6.2", "3.6.2"), zookeeper=("3.9.2",) * 3, ibps=("3.6", None, None))
    plan = ku.rollback_plan(half, record)
    assert rules(plan) == [] and steps(plan) == [("brokers", ["kafka1"]), ("zookeeper", ["zk1", "zk2", "zk3"])]
    raised = zookeeper_cluster(brokers=("3.9.2",) * 3, zookeeper=("3.9.2",) * 3, ibps=("3.9", "3.6", "3.6"))
    refused = ku.rollback_plan(raised, record)
    assert rules(refused) == ["rollback-upgrade-irreversible"] and refused["steps"] == []
    assert "inter.broker.protocol.version raised on kafka1" in refused["refusals"][0]["message"]
    # a broker whose pin was removed runs its release's protocol: raised too
    unpinned = zookeeper_cluster(brokers=("3.9.2",) * 3, zookeeper=("3.9.2",) * 3, ibps=("3.6", "3.6", None))
    assert rules(ku.rollback_plan(unpinned, record)) == ["rollback-upgrade-irreversible"]
    assert rules(ku.rollback_plan(half, None)) == ["rollback-upgrade-nothing-recorded"]


def test_kraft_rollback_is_open_until_metadata_version_crosses_a_change():
    record = {"from": "3.9.2", "to": "4.4.0"}
    rolled = kraft_cluster(controllers=("4.4.0",) * 3, brokers=("4.4.0", "4.4.0", "3.9.2"))
    assert steps(ku.rollback_plan(rolled, record)) == [("brokers", ["kafka1", "kafka2"]),
                                                       ("controllers", ["ctrl1", "ctrl2", "ctrl3"])]
    assert [s["ibp"] for s in ku.rollback_plan(rolled, record)["steps"]] == [None, None]  # no protocol on KRaft
    group_only = dict(rolled, features={"metadata.version": 22, "group.version": 1})
    assert rules(ku.rollback_plan(group_only, record)) == []
    crossed = dict(rolled, features={"metadata.version": 23})
    refused = ku.rollback_plan(crossed, record)
    assert rules(refused) == ["rollback-upgrade-irreversible"]
    assert "metadata.version is at level 23, past a change of metadata since 3.9-IV0" in \
        refused["refusals"][0]["message"]


def test_effective_ibp_reads_the_full_form_and_falls_back_to_the_release():
    assert ku.effective_ibp(node("broker", "3.9.2", "3.6-IV2")) == "3.6"
    assert ku.effective_ibp(node("broker", "2.8.2")) == "2.8"
    assert ku.effective_ibp(node("broker", None)) is None


def test_a_run_configures_the_group_of_its_step_and_says_what_to_commit():
    plan = ku.upgrade_plan(kraft_cluster(), "4.4.0")
    run = ku.steps_this_run(plan)
    assert ku.step_groups(run) == {"upgrade_step_roll": ["ctrl1", "ctrl2", "ctrl3", "kafka1", "kafka2", "kafka3",
                                                         "localhost"]}
    assert ku.commit_lines("4.4.0", run, "kraft", "static") == [
        "kafka_version: 4.4.0", "kafka_controller_quorum: static (the quorum keeps its kind; "
        "convert_quorum_to_dynamic.yml makes a static one dynamic)"]
    assert ku.commit_lines("4.4.0", run, "kraft", "dynamic") == ["kafka_version: 4.4.0"]
    zookeeper = ku.upgrade_plan(zookeeper_cluster(), "3.9.2")
    lines = ku.commit_lines("3.9.2", ku.steps_this_run(zookeeper), "zookeeper")
    assert lines[1].startswith('kafka_inter_broker_protocol_version: "3.6" (the protocol the brokers keep')
    raised = ku.upgrade_plan(zookeeper_cluster(brokers=("3.9.2",) * 3, zookeeper=("3.9.2",) * 3, ibps=("3.6",) * 3),
                             "3.9.2", {"from": "3.6.2", "to": "3.9.2"}, finalize=True)
    run = ku.steps_this_run(raised)
    assert ku.step_groups(run) == {"upgrade_step_ibp": ["kafka1", "kafka2", "kafka3", "localhost"]}
    assert ku.commit_lines("3.9.2", run, "zookeeper")[1].startswith("kafka_inter_broker_protocol_version: none")
    # a rollback to the release whose protocol the pin kept: no pin left to keep
    back = ku.rollback_plan(zookeeper_cluster(brokers=("3.9.2",) * 3, ibps=("3.6",) * 3), {"from": "3.6.2",
                                                                                           "to": "3.9.2"})
    assert ku.commit_lines("3.6.2", back["steps"], "zookeeper")[1].startswith(
        "kafka_inter_broker_protocol_version: none")
    finalize = ku.upgrade_plan(kraft_cluster(controllers=("4.4.0",) * 3, brokers=("4.4.0",) * 3), "4.4.0",
                               finalize=True)
    assert ku.step_groups(ku.steps_this_run(finalize)) == {}
    assert ku.commit_lines("3.9.2", [], "kraft") == []


def test_the_rolls_keep_a_protocol_pinned_below_the_release():
    cluster = zookeeper_cluster(ibps=("3.5", "3.5-IV2", "3.5"))
    assert [s["ibp"] for s in ku.upgrade_plan(cluster, "3.9.2")["steps"]] == ["3.5", "3.5"]
    record = {"from": "3.6.2", "to": "3.9.2"}
    rolled = zookeeper_cluster(brokers=("3.9.2",) * 3, zookeeper=("3.9.2",) * 3, ibps=("3.5",) * 3)
    assert {s["ibp"] for s in ku.rollback_plan(rolled, record)["steps"]} == {"3.5"}


def test_a_deploy_that_would_raise_the_running_protocol_is_refused():
    running = node("broker", "3.6.2")
    refused = ku.protocol_raise_refusal("kafka1", running, "3.9.2", "")
    assert refused["rule"] == "upgrade-protocol-raised"
    assert "runs Kafka 3.6.2 with inter.broker.protocol.version 3.6, and this run would raise it to 3.9" \
        in refused["message"] and 'kafka_inter_broker_protocol_version: "3.6"' in refused["message"]
    # mid-upgrade: the rolled broker runs 3.9.2 pinned at 3.6; a deploy that drops the pin raises it
    pinned = node("broker", "3.9.2", ibp="3.6")
    assert ku.protocol_raise_refusal("kafka1", pinned, "3.9.2", "")["rule"] == "upgrade-protocol-raised"
    assert ku.protocol_raise_refusal("kafka1", pinned, "3.9.2", "3.7")["rule"] == "upgrade-protocol-raised"


def test_a_deploy_that_keeps_the_protocol_or_finalizes_is_let_through():
    pinned = node("broker", "3.9.2", ibp="3.6")
    assert ku.protocol_raise_refusal("kafka1", pinned, "3.9.2", "3.6") is None
    assert ku.protocol_raise_refusal("kafka1", pinned, "3.9.2", "3.6-IV2") is None
    assert ku.protocol_raise_refusal("kafka1", pinned, "3.6.2", "") is None  # the rollback's release: its own 3.6
    assert ku.protocol_raise_refusal("kafka1", pinned, "3.9.2", "", finalizing=True) is None
    assert ku.protocol_raise_refusal("kafka1", node("broker", "3.9.2"), "3.9.2", "") is None
    assert ku.protocol_raise_refusal("kafka1", node("broker", None, running=False), "3.9.2", "") is None
    assert ku.protocol_raise_refusal("kafka1", node("broker", "2.7.2"), "3.9.2", "") is None  # unknown line


def test_a_node_an_interrupted_roll_stopped_is_rolled_not_refused():
    record = {"from": "3.6.2", "to": "3.9.2"}
    stopped = zookeeper_cluster(brokers=("3.9.2", "3.6.2", "3.6.2"), zookeeper=("3.9.2",) * 3,
                                ibps=("3.6", None, None),
                                kafka2={"running": False, "release": None, "settled": False})
    plan = ku.upgrade_plan(stopped, "3.9.2", record)
    assert plan["refusals"] == [] and steps(plan) == [("brokers", ["kafka2", "kafka3"])]
    assert plan["steps"][0]["ibp"] == "3.6"


def test_a_deploy_that_would_lower_the_running_protocol_is_refused():
    raised = node("broker", "3.9.2")
    lowered = ku.protocol_raise_refusal("kafka1", raised, "3.9.2", "3.6")
    assert lowered["rule"] == "upgrade-protocol-lowered" and "would lower it to 3.6" in lowered["message"]
    assert ku.protocol_raise_refusal("kafka1", raised, "3.6.2", "")["rule"] == "upgrade-protocol-lowered"
    assert ku.protocol_raise_refusal("kafka1", raised, "3.9.2", "3.6", finalizing=True) is None
