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
    # finalized controllers have JMX off: no state read, the metadata moved before they were finalized
    assert _progress(_nodes("kraft", "kraft", "kraft"), _nodes("kraft", "kraft", "kraft"))["next"] is None
    done = _progress(_nodes("kraft", "kraft", "kraft"), _nodes("kraft", "kraft", "kraft"), 3)
    assert done == {"done": list(km.STEPS), "next": None, "started": False, "refusals": []}


def test_a_controller_that_does_not_run_or_waits_for_a_restart_is_not_done():
    brokers = _nodes("zookeeper", "zookeeper", "zookeeper")
    assert _progress(_nodes("migration", "migration", "migration", running=False), brokers)["next"] == "controllers"
    assert _progress(_nodes("migration", "migration", "migration", pending=[2]), brokers)["next"] == "controllers"


def _inconsistent(*messages):
    return [{"rule": "migration-inconsistent-state", "message": m} for m in messages]


def test_states_no_step_leads_to_are_refused():
    ctrl = _nodes("migration", "migration", "migration")
    mixed = _progress(ctrl, _nodes("zookeeper", "kraft", "migrating"), 1)
    assert mixed["refusals"] == _inconsistent(
        "brokers h1 run ZooKeeper mode without the migration flag while h2 run KRaft mode.",
        "step brokers_kraft has begun before step brokers_migration is done.")
    early = _progress(ctrl, _nodes("kraft", "migrating", "migrating"), 2)
    assert early["refusals"] == _inconsistent(
        "brokers h1 run KRaft mode but the metadata migration is not complete (ZkMigrationState PRE_MIGRATION).",
        "step brokers_kraft has begun before step metadata is done.")
    finalized_early = _progress(_nodes("kraft", "kraft", "kraft"), _nodes("kraft", "migrating", "kraft"), 1)
    assert finalized_early["refusals"] == [{"rule": "migration-finalized-early", "message": (
        "controllers h1, h2, h3 run without ZooKeeper while brokers h2 do not run KRaft mode: the migration was "
        "finalized before every broker moved (KAFKA-20960); no step repairs it.")}] + _inconsistent(
        "step finalize has begun before step brokers_kraft is done.")
    no_controllers = _progress({}, _nodes("migrating", "zookeeper", "zookeeper"))
    assert no_controllers["refusals"] == _inconsistent(
        "brokers run with the migration's settings but the inventory has no KRaft controllers.",
        "step brokers_migration has begun before step controllers is done.")
    unknown = _progress(ctrl, _nodes("zookeeper", None, "zookeeper"), 2)
    assert unknown["refusals"] == _inconsistent("brokers h2 have no ZooKeeper or KRaft config.")


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
    assert plan == {"actions": [], "refusals": [{"rule": "rollback-after-finalize", "message": (
        "the migration is finalized (controllers h1 run without ZooKeeper): Kafka 3.9 cannot go back to ZooKeeper "
        "mode from here, and ZooKeeper no longer has the cluster's metadata.")}]}


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
    def refused(rule, **changes):
        problems = km.precheck_refusals(_facts(**changes))
        assert [p["rule"] for p in problems] == [rule], problems
        return problems[0]["message"]
    generated = "migration-generated-broker-ids"
    assert "were generated ([1001])" in refused(generated, registered_ids=[1, 2, 1001, 1001])  # registered and on disk
    lower = _facts()["brokers"] | {"k3": {"broker_id": 3, "props": {"reserved.broker.max.id": "2"}}}
    assert refused(generated, brokers=lower) == (
        "broker ids above reserved.broker.max.id (2) were generated ([3]): a migrating broker needs an explicit "
        "broker.id of at most reserved.broker.max.id (KAFKA-17042); replace those brokers with ids from the inventory.")
    unset = _facts()["brokers"] | {"k1": {"broker_id": 1, "props": {"broker.id.generation.enable": "true"}}}
    assert "(broker.id unset)" in refused(generated, brokers=unset)
    old_ibp = _facts()["brokers"] | {"k2": {"broker_id": 2, "props": {"inter.broker.protocol.version": "3.8"}}}
    assert refused("migration-needs-3-9-protocol", brokers=old_ibp) == (
        "inter.broker.protocol.version is not 3.9 on {'k2': '3.8'}: the migration needs every broker on 3.9 "
        "(roll them with 3.9 first).")
    assert refused("migration-under-replicated", under_replicated=["t-0", "t-1"]) == (
        "2 partition(s) are under-replicated: t-0, t-1.")
    assert refused("migration-under-replicated", offline=["t-0"]) == "1 partition(s) are offline: t-0."
    many = [f"t-{i}" for i in range(12)]
    assert refused("migration-under-replicated", offline=many) == (
        "12 partition(s) are offline: t-0, t-1, t-2, t-3, t-4, t-5, t-6, t-7, t-8, t-9 and 2 more.")
    assert refused("migration-unclean-election", unclean=["topic t"]).startswith(
        "unclean leader election is on: topic t. Turn it off")
    ensemble = _facts()["zookeeper"]
    unhealthy = "migration-zookeeper-unhealthy"
    assert refused(unhealthy, zookeeper=ensemble | {"serving": ["zk1", "zk3"]}) == (
        "ZooKeeper is unhealthy: zk2 not serving.")
    assert refused(unhealthy, zookeeper=ensemble | {"has_leader": False}) == "ZooKeeper is unhealthy: no single leader."
    left = {"kraft_controller_id": 9001, "kraft_metadata_offset": 120}
    stale = refused("migration-stale-znode", migration_znode=left)
    assert "and the metadata dirs of controllers c1 are empty" in stale and "KAFKA-17146" in stale
    # a rolled-back cluster keeps the controllers' migration configs: only their empty dirs count
    running = {"c1": {"state": "started", "cluster_id": "X"}}
    assert km.precheck_refusals(_facts(migration_znode=left, controller_metadata=running)) == []  # its own
    assert refused("migration-no-controllers", controllers={}) == (
        "the inventory has no KRaft controllers (group kafka_controller_group).")
    clash = {"c1": 2, "c2": 9002, "c3": 9003}
    assert "has node id 2, the id of broker k2" in refused("kraft-node-ids", controllers=clash)
    other = {"c1": {"state": "started", "cluster_id": "Y"}}
    assert refused("migration-other-cluster-metadata", controller_metadata=other) == (
        "the metadata dir of controller c1 holds cluster Y, not this cluster (X): empty it if that cluster is gone.")


def test_every_precheck_refusal_at_once_keeps_its_own_rule():
    ensemble = _facts()["zookeeper"] | {"has_leader": False}
    problems = km.precheck_refusals(_facts(under_replicated=["t-0"], offline=["t-1"], unclean=["topic t"],
                                           zookeeper=ensemble, controllers={}))
    assert [p["rule"] for p in problems] == ["migration-under-replicated", "migration-under-replicated",
                                             "migration-unclean-election", "migration-zookeeper-unhealthy",
                                             "migration-no-controllers"]


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
    def refusals(*messages):
        return [{"rule": "finalize-brokers-in-kraft", "message": m} for m in messages]
    assert km.finalize_refusals(_nodes("kraft", "kraft", "kraft", pending=[2]), ids,
                                _observers(b1=0, b2=0, b3=0), 10) == refusals("brokers h2 do not run KRaft mode yet.")
    assert km.finalize_refusals(kraft, ids, _observers(b1=0, b3=0), 10) == refusals(
        "brokers h2 (2) are not registered with the KRaft controllers (no observer of the metadata quorum).")
    assert km.finalize_refusals(kraft, ids, _observers(b1=0, b2=0, b3=500), 10) == refusals(
        "brokers h3 (500 records) are behind the controllers' metadata log.")
    assert km.finalize_refusals(_nodes("migrating", "kraft", "kraft"), ids, _observers(b2=0, b3=500), 10) == refusals(
        "brokers h1 do not run KRaft mode yet.",
        "brokers h1 (1) are not registered with the KRaft controllers (no observer of the metadata quorum).",
        "brokers h3 (500 records) are behind the controllers' metadata log.")


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
