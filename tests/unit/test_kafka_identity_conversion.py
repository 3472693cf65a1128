"""The move from the previous layout's member passwords to member certificates (module_utils/kafka_identity_conversion),
on hand-written configurations."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_identity_conversion as conv

OLD_BROKER = {"listeners": "CLIENT://:9093,BROKER://:9094", "listener.security.protocol.map":
              "CLIENT:SASL_SSL,BROKER:SASL_SSL", "inter.broker.listener.name": "BROKER"}
BOTH = dict(OLD_BROKER, listeners="CLIENT://:9093,BROKER://:9094,REPLICATION://:9091",
            **{"listener.security.protocol.map": "CLIENT:SASL_SSL,BROKER:SASL_SSL,REPLICATION:SSL"})
NEW_BROKER = {"listeners": "CLIENT://:9093,REPLICATION://:9091", "listener.security.protocol.map":
              "CLIENT:SASL_SSL,REPLICATION:SSL", "inter.broker.listener.name": "REPLICATION"}
OLD_CONTROLLER = {"listeners": "CONTROLLER://:9095", "listener.security.protocol.map": "CONTROLLER:SASL_SSL",
                  "controller.listener.names": "CONTROLLER"}
NEW_CONTROLLER = {"listeners": "CONTROLPLANE://:9090", "listener.security.protocol.map": "CONTROLPLANE:SSL",
                  "controller.listener.names": "CONTROLPLANE"}


def hosts(prefix, config, n=3, **overrides):
    found = {f"{prefix}{i}": {"config": config, "restart_pending": False} for i in range(1, n + 1)}
    return found | {host: {"config": c, "restart_pending": False} for host, c in overrides.items()}


def test_a_zookeeper_cluster_of_the_previous_layout_has_every_broker_step_left():
    plan = conv.conversion_plan(hosts("kafka", OLD_BROKER), {}, ["kafka-broker", "kafkaops-admin"])
    assert plan == {"refusals": [], "done": [], "todo": [
        "replication-listener", "replicate-over-certificates", "broker-listener-removed", "old-passwords-deleted"]}


def test_each_broker_step_reads_back_as_done_and_a_rerun_goes_on():
    both = conv.conversion_plan(hosts("kafka", BOTH), {}, ["kafka-broker"])
    assert both["done"] == ["replication-listener"]
    replicating = conv.conversion_plan(hosts("kafka", dict(BOTH, **{"inter.broker.listener.name": "REPLICATION"})),
                                       {}, ["kafka-broker"])
    assert replicating["done"] == ["replication-listener", "replicate-over-certificates"]
    closed = conv.conversion_plan(hosts("kafka", NEW_BROKER), {}, ["kafka-broker"])
    assert closed["todo"] == ["old-passwords-deleted"]
    assert conv.conversion_plan(hosts("kafka", NEW_BROKER), {}, [])["todo"] == []


def test_a_roll_cut_off_midway_is_taken_again_not_refused():
    half = hosts("kafka", OLD_BROKER, kafka1=BOTH)
    assert conv.conversion_plan(half, {}, ["kafka-broker"]) == {"refusals": [], "done": [], "todo": [
        "replication-listener", "replicate-over-certificates", "broker-listener-removed", "old-passwords-deleted"]}
    pending = hosts("kafka", BOTH)
    pending["kafka2"]["restart_pending"] = True  # its file has the step, its JVM not yet
    assert conv.conversion_plan(pending, {}, ["kafka-broker"])["done"] == []


def test_a_broker_a_step_ahead_of_the_others_is_refused():
    ahead = hosts("kafka", BOTH, kafka3=dict(BOTH, **{"inter.broker.listener.name": "REPLICATION"}))
    plan = conv.conversion_plan(hosts("kafka", OLD_BROKER, kafka3=ahead["kafka3"]["config"]), {}, ["kafka-broker"])
    assert [r["rule"] for r in plan["refusals"]] == ["identity-step-order"] and plan["todo"] == []
    assert "kafka3 runs 'replicate-over-certificates'" in plan["refusals"][0]["message"]


def test_a_kraft_cluster_moves_its_controllers_first():
    brokers = hosts("kafka", dict(OLD_BROKER, **{"controller.listener.names": "CONTROLLER"}))
    plan = conv.conversion_plan(brokers, hosts("ctrl", OLD_CONTROLLER), ["kafka-broker"])
    assert plan["todo"][:4] == ["controlplane-listener", "quorum-over-certificates", "brokers-reach-controlplane",
                                "controller-listener-removed"]
    done = conv.conversion_plan(hosts("kafka", dict(NEW_BROKER, **{"controller.listener.names": "CONTROLPLANE"})),
                                hosts("ctrl", NEW_CONTROLLER), [])
    assert done == {"refusals": [], "done": list(conv.STEP_NAMES), "todo": []}
