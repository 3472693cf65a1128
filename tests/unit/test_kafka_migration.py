"""The ZooKeeper to KRaft migration's decisions (module_utils/kafka_migration.py) on hand-written states."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_migration as km

ZK = {"zookeeper.connect": "zk1:2182/kafka", "broker.id": "1"}


def test_configured_mode():
    assert km.configured_mode({}) is None
    assert km.configured_mode(ZK) == "zookeeper"
    assert km.configured_mode(ZK | {"zookeeper.metadata.migration.enable": "true"}) == "migrating"
    assert km.configured_mode(ZK | {"zookeeper.metadata.migration.enable": "false"}) == "zookeeper"
    assert km.configured_mode({"process.roles": "broker", "node.id": "1"}) == "kraft"
    assert km.configured_mode({"process.roles": "controller", "zookeeper.metadata.migration.enable": "true",
                               "zookeeper.connect": "zk1:2182/kafka"}) == "migration"
    assert km.configured_mode({"process.roles": "controller", "node.id": "9001"}) == "kraft"


def _nodes(*modes, pending=(), running=True):
    return {f"h{i + 1}": {"mode": m, "restart_pending": i + 1 in pending, "running": running}
            for i, m in enumerate(modes)}


def _progress(ctrl, brokers, zk_state=None):
    return km.progress(ctrl, brokers, zk_state)


def test_a_zookeeper_cluster_has_done_nothing():
    state = _progress(_nodes(None, None, None, running=False), _nodes("zookeeper", "zookeeper", "zookeeper"))
    assert state == {"done": [], "next": "controllers", "started": False, "refusals": []}


def test_each_step_done_in_turn():
    ctrl = _nodes("migration", "migration", "migration")
    assert _progress(ctrl, _nodes("zookeeper", "zookeeper", "zookeeper"), 2)["next"] == "brokers_migration"
    half = _progress(ctrl, _nodes("migrating", "zookeeper", "zookeeper"), 2)
    assert (half["done"], half["next"], half["started"]) == (["controllers"], "brokers_migration", True)
    # the last broker runs its new file only once restarted
    assert _progress(ctrl, _nodes("migrating", "migrating", "migrating", pending=[3]), 2)["next"] == "brokers_migration"
    assert _progress(ctrl, _nodes("migrating", "migrating", "migrating"), 2)["next"] == "metadata"
    assert _progress(ctrl, _nodes("migrating", "migrating", "migrating"), 1)["next"] == "brokers_kraft"
    assert _progress(ctrl, _nodes("kraft", "migrating", "migrating"), 1)["started"] is True
    assert _progress(ctrl, _nodes("kraft", "kraft", "kraft"), 1)["next"] == "finalize"
    done = _progress(_nodes("kraft", "kraft", "kraft"), _nodes("kraft", "kraft", "kraft"), 3)
    assert done == {"done": list(km.STEPS), "next": None, "started": False, "refusals": []}


def test_a_controller_that_does_not_run_or_waits_for_a_restart_is_not_done():
    brokers = _nodes("zookeeper", "zookeeper", "zookeeper")
    assert _progress(_nodes("migration", "migration", "migration", running=False), brokers)["next"] == "controllers"
    assert _progress(_nodes("migration", "migration", "migration", pending=[2]), brokers)["next"] == "controllers"


def test_states_no_step_leads_to_are_refused():
    ctrl = _nodes("migration", "migration", "migration")
    mixed = _progress(ctrl, _nodes("zookeeper", "kraft", "migrating"), 1)
    assert mixed["refusals"] == ["brokers h1 run ZooKeeper mode without the migration flag while h2 run KRaft mode",
                                 "step brokers_kraft has begun before step brokers_migration is done"]
    early = _progress(ctrl, _nodes("kraft", "migrating", "migrating"), 2)
    assert early["refusals"] == ["brokers h1 run KRaft mode but the metadata migration is not complete "
                                 "(ZkMigrationState PRE_MIGRATION)",
                                 "step brokers_kraft has begun before step metadata is done"]
    finalized_early = _progress(_nodes("kraft", "kraft", "kraft"), _nodes("kraft", "migrating", "kraft"), 1)
    assert "finalized before every broker moved (KAFKA-20960)" in finalized_early["refusals"][0]
    no_controllers = _progress({}, _nodes("migrating", "zookeeper", "zookeeper"))
    assert no_controllers["refusals"] == [
        "brokers run with the migration's settings but the inventory has no KRaft controllers",
        "step brokers_migration has begun before step controllers is done"]


def _wiped(nodes, state="not_formatted"):
    return {h: n | {"metadata_state": state} for h, n in nodes.items()}


def test_rollback_from_each_step():
    ctrl = _wiped(_nodes("migration", "migration", "migration"), "started")
    none = _wiped(_nodes(None, None, None, running=False))
    zk = _nodes("zookeeper", "zookeeper", "zookeeper")
    assert km.rollback_plan(none, zk) == {"actions": [], "refusals": []}
    deprovision = ["controller_epoch", "stop_controllers", "delete_controller", "delete_migration", "wipe_controllers"]
    assert km.rollback_plan(ctrl, zk)["actions"] == deprovision
    dual_write = deprovision + ["brokers_to_zookeeper"]
    assert km.rollback_plan(ctrl, _nodes("migrating", "zookeeper", "zookeeper"))["actions"] == dual_write
    assert km.rollback_plan(ctrl, _nodes("migrating", "migrating", "migrating"))["actions"] == dual_write
    assert km.rollback_plan(ctrl, _nodes("kraft", "migrating", "migrating"))["actions"] == [
        "brokers_to_migrating"] + dual_write


def test_a_rollback_that_stopped_half_way_goes_on_and_a_finished_one_has_nothing_left():
    stopped = _wiped(_nodes("migration", "migration", "migration", running=False), "started")
    assert km.rollback_plan(stopped, _nodes("migrating", "zookeeper", "migrating"))["actions"][-1] == (
        "brokers_to_zookeeper")
    zk = _nodes("zookeeper", "zookeeper", "zookeeper")
    assert km.rollback_plan(stopped, zk)["actions"][-1] == "wipe_controllers"
    wiped = _wiped(_nodes("migration", "migration", "migration", running=False))
    assert km.rollback_plan(wiped, zk)["actions"] == []
    assert "delete_migration" in km.rollback_plan(wiped, zk, {"kraft_controller_epoch": 3})["actions"]


def test_the_controller_epoch_is_raised_above_the_kraft_controllers():
    assert km.raised_controller_epoch(5, {"kraft_controller_epoch": 7}) == 8
    assert km.raised_controller_epoch(None, {"kraft_controller_epoch": 7}) == 8
    assert km.raised_controller_epoch(7, {"kraft_controller_epoch": 7}) is None  # the next ZooKeeper epoch is 8
    assert km.raised_controller_epoch(9, {"kraft_controller_epoch": 7}) is None
    assert km.raised_controller_epoch(9, None) is None


def test_no_rollback_once_finalize_began():
    partly = _nodes("kraft", "migration", "migration")
    plan = km.rollback_plan(partly, _nodes("kraft", "kraft", "kraft"))
    assert plan["actions"] == [] and "finalized (controllers h1 run without ZooKeeper)" in plan["refusals"][0]


def _facts(**changes):
    facts = {
        "brokers": {f"k{i}": {"broker_id": i, "props": {"broker.id": str(i), "zookeeper.connect": "zk:2182/kafka"}}
                    for i in (1, 2, 3)},
        "registered_ids": [1, 2, 3],
        "under_replicated": [], "offline": [], "unclean": [],
        "zookeeper": {"nodes": {"zk1": {}, "zk2": {}, "zk3": {}}, "serving": ["zk1", "zk2", "zk3"], "has_leader": True},
        "migration_znode": None,
        "controllers": {"c1": 9001, "c2": 9002, "c3": 9003},
        "controller_metadata": {"c1": {"state": "not_formatted", "cluster_id": None}},
        "cluster_id": "X",
    }
    return facts | changes


def test_a_healthy_zookeeper_cluster_passes_the_precheck():
    assert km.precheck_refusals(_facts()) == []
    # controllers of this cluster that already ran (a rerun after the controllers step) are fine
    assert km.precheck_refusals(_facts(controller_metadata={"c1": {"state": "started", "cluster_id": "X"}})) == []


def test_each_precheck_refusal():
    def refused(**changes):
        problems = km.precheck_refusals(_facts(**changes))
        assert len(problems) == 1, problems
        return problems[0]
    assert "were generated ([1001])" in refused(registered_ids=[1, 2, 1001, 1001])  # registered and on disk
    lower = _facts()["brokers"] | {"k3": {"broker_id": 3, "props": {"reserved.broker.max.id": "2"}}}
    assert "reserved.broker.max.id (2) were generated ([3])" in refused(brokers=lower)
    unset = _facts()["brokers"] | {"k1": {"broker_id": 1, "props": {"broker.id.generation.enable": "true"}}}
    assert "(broker.id unset)" in refused(brokers=unset)
    old_ibp = _facts()["brokers"] | {"k2": {"broker_id": 2, "props": {"inter.broker.protocol.version": "3.8"}}}
    assert refused(brokers=old_ibp).startswith("inter.broker.protocol.version is not 3.9 on {'k2': '3.8'}")
    assert refused(under_replicated=["t-0", "t-1"]) == "2 partition(s) are under-replicated: t-0, t-1"
    assert refused(offline=["t-0"]) == "1 partition(s) are offline: t-0"
    assert refused(unclean=["topic t"]) == "unclean leader election is on: topic t"
    ensemble = _facts()["zookeeper"]
    assert refused(zookeeper=ensemble | {"serving": ["zk1", "zk3"]}) == "ZooKeeper is unhealthy: zk2 not serving"
    assert refused(zookeeper=ensemble | {"has_leader": False}) == "ZooKeeper is unhealthy: no single leader"
    left = {"kraft_controller_id": 9001, "kraft_metadata_offset": 120}
    assert "and the metadata dirs of controllers c1 are empty" in refused(migration_znode=left)
    # a rolled-back cluster keeps the controllers' migration configs: only their empty dirs count
    running = {"c1": {"state": "started", "cluster_id": "X"}}
    assert km.precheck_refusals(_facts(migration_znode=left, controller_metadata=running)) == []  # its own
    assert refused(controllers={}).startswith("the inventory has no KRaft controllers")
    assert "the id of broker k2" in refused(controllers={"c1": 2, "c2": 9002, "c3": 9003})
    other = {"c1": {"state": "started", "cluster_id": "Y"}}
    assert refused(controller_metadata=other).startswith("the metadata dir of controller c1 holds cluster Y, not this")


def test_a_run_takes_the_steps_from_the_next_one_up_to_until_and_finalize_only_when_asked():
    ctrl = _nodes("migration", "migration", "migration")
    fresh = _progress(_nodes(None, None, None, running=False), _nodes("zookeeper", "zookeeper", "zookeeper"))
    assert km.steps_to_run(fresh) == ["controllers", "brokers_migration", "metadata", "brokers_kraft"]
    assert km.steps_to_run(fresh, until="controllers") == ["controllers"]
    assert km.steps_to_run(fresh, finalize=True) == list(km.STEPS)
    moved = _progress(ctrl, _nodes("kraft", "kraft", "kraft"), 1)
    assert km.steps_to_run(moved) == []  # only finalize is left, and it was not asked for
    assert km.steps_to_run(moved, finalize=True) == ["finalize"]
    refused = _progress(ctrl, _nodes("zookeeper", "kraft", "migrating"), 1)
    assert km.steps_to_run(refused, finalize=True) == []
    for wrong in ("finalize", "everything"):
        try:
            km.steps_to_run(fresh, until=wrong)
        except ValueError as exc:
            assert "finalize needs finalize=true" in str(exc)
        else:
            raise AssertionError(f"until={wrong} accepted")


def _observers(**lags):
    rows = [{"node_id": 9001, "status": "Leader", "lag": 0}]
    return rows + [{"node_id": int(i[1:]), "status": "Observer", "lag": lag} for i, lag in lags.items()]


def test_finalize_waits_for_every_broker_registered_with_the_controllers_in_kraft_mode():
    ids = {"h1": 1, "h2": 2, "h3": 3}
    kraft = _nodes("kraft", "kraft", "kraft")
    assert km.finalize_refusals(kraft, ids, _observers(b1=0, b2=0, b3=3), 10) == []
    assert km.finalize_refusals(_nodes("kraft", "kraft", "kraft", pending=[2]), ids,
                                _observers(b1=0, b2=0, b3=0), 10) == ["brokers h2 do not run KRaft mode yet"]
    assert km.finalize_refusals(kraft, ids, _observers(b1=0, b3=0), 10) == [
        "brokers h2 (2) are not registered with the KRaft controllers (no observer of the metadata quorum)"]
    assert km.finalize_refusals(kraft, ids, _observers(b1=0, b2=0, b3=500), 10) == [
        "brokers h3 (500 records) are behind the controllers' metadata log"]


def test_the_zk_migration_state_from_jmxtool():
    out = ('"time","kafka.controller:type=KafkaController,name=ZkMigrationState:Value"\n'
           "1795530409097,1\n")
    assert km.parse_zk_migration_state(out) == 1
    assert km.parse_zk_migration_state("Trying to connect to JMX url: ...\n") is None
    assert km.parse_zk_migration_state("") is None


def test_the_quorum_is_as_far_as_its_most_advanced_controller():
    assert km.quorum_zk_state([None, None]) is None
    assert km.quorum_zk_state([2, None, 1]) == 1  # MIGRATION is past PRE_MIGRATION
    assert km.quorum_zk_state([1, 3, 1]) == 3


def test_each_step_that_configures_hosts_gets_a_group_of_its_hosts():
    groups = km.step_groups(["controllers", "brokers_migration", "metadata"], ["kafka1", "kafka2"], ["ctrl1"])
    assert groups == {"migration_step_controllers": ["ctrl1"],
                      "migration_step_brokers_migration": ["kafka1", "kafka2", "localhost"]}
    assert km.step_groups(["brokers_to_zookeeper", "stop_controllers", "finalize"], ["kafka1"], ["ctrl1"]) == {
        "migration_step_brokers_to_zookeeper": ["kafka1", "localhost"], "migration_step_finalize": ["ctrl1"]}
    assert km.step_groups([], ["kafka1"], ["ctrl1"]) == {}
