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


PASSWORDS = tuple(conv.NEEDS)  # the inventory still holds the previous layout's logins


def plan_of(brokers, controllers, old_credentials, inventory_has=PASSWORDS):
    return conv.conversion_plan(brokers, controllers, old_credentials, inventory_has)


def hosts(prefix, config, n=3, **overrides):
    found = {f"{prefix}{i}": {"config": config, "restart_pending": False} for i in range(1, n + 1)}
    return found | {host: {"config": c, "restart_pending": False} for host, c in overrides.items()}


def test_a_zookeeper_cluster_of_the_previous_layout_has_every_broker_step_left():
    plan = plan_of(hosts("kafka", OLD_BROKER), {}, ["kafka-broker", "kafkaops-admin"])
    assert plan == {"refusals": [], "done": [], "todo": [
        "replication-listener", "replicate-over-certificates", "broker-listener-removed", "old-passwords-deleted"]}


def test_each_broker_step_reads_back_as_done_and_a_rerun_goes_on():
    both = plan_of(hosts("kafka", BOTH), {}, ["kafka-broker"])
    assert both["done"] == ["replication-listener"]
    replicating = plan_of(hosts("kafka", dict(BOTH, **{"inter.broker.listener.name": "REPLICATION"})),
                                       {}, ["kafka-broker"])
    assert replicating["done"] == ["replication-listener", "replicate-over-certificates"]
    closed = plan_of(hosts("kafka", NEW_BROKER), {}, ["kafka-broker"])
    assert closed["todo"] == ["old-passwords-deleted"]
    assert plan_of(hosts("kafka", NEW_BROKER), {}, [])["todo"] == []


def test_a_roll_cut_off_midway_is_taken_again_not_refused():
    half = hosts("kafka", OLD_BROKER, kafka1=BOTH)
    assert plan_of(half, {}, ["kafka-broker"]) == {"refusals": [], "done": [], "todo": [
        "replication-listener", "replicate-over-certificates", "broker-listener-removed", "old-passwords-deleted"]}
    pending = hosts("kafka", BOTH)
    pending["kafka2"]["restart_pending"] = True  # its file has the step, its JVM not yet
    assert plan_of(pending, {}, ["kafka-broker"])["done"] == []


def test_a_broker_a_step_ahead_of_the_others_is_refused():
    ahead = hosts("kafka", BOTH, kafka3=dict(BOTH, **{"inter.broker.listener.name": "REPLICATION"}))
    plan = plan_of(hosts("kafka", OLD_BROKER, kafka3=ahead["kafka3"]["config"]), {}, ["kafka-broker"])
    assert [r["rule"] for r in plan["refusals"]] == ["identity-step-order"] and plan["todo"] == []
    assert "kafka3 runs 'replicate-over-certificates'" in plan["refusals"][0]["message"]


def test_a_kraft_cluster_moves_its_quorum_first_and_closes_controller_once_no_broker_uses_it():
    old_brokers = hosts("kafka", dict(OLD_BROKER, **{"controller.listener.names": "CONTROLLER"}))
    plan = plan_of(old_brokers, hosts("ctrl", OLD_CONTROLLER), ["kafka-broker"])
    assert plan["todo"] == conv.applicable_steps(hosts("ctrl", OLD_CONTROLLER), None) and plan["refusals"] == []
    # REPLICATION open but the brokers still on CONTROLLER: not the step that opens it
    both = hosts("kafka", dict(BOTH, **{"controller.listener.names": "CONTROLLER"}))
    quorum_moved = hosts("ctrl", dict(NEW_CONTROLLER, **{
        "listeners": "CONTROLPLANE://:9090,CONTROLLER://:9095",
        "listener.security.protocol.map": "CONTROLPLANE:SSL,CONTROLLER:SASL_SSL",
        "controller.listener.names": "CONTROLPLANE,CONTROLLER"}))
    assert plan_of(both, quorum_moved, ["kafka-broker"])["done"] == ["controlplane-listener",
                                                                     "quorum-over-certificates"]
    # a controller closing CONTROLLER while brokers still reach it there is refused
    early = hosts("ctrl", dict(NEW_CONTROLLER), ctrl1=quorum_moved["ctrl1"]["config"])
    refused = plan_of(old_brokers, early, ["kafka-broker"])
    assert [r["rule"] for r in refused["refusals"]] == ["identity-step-order", "identity-step-order"]
    done = plan_of(hosts("kafka", dict(NEW_BROKER, **{"controller.listener.names": "CONTROLPLANE"})),
                   hosts("ctrl", NEW_CONTROLLER), [])
    assert done == {"refusals": [], "done": conv.applicable_steps(hosts("ctrl", NEW_CONTROLLER), None), "todo": []}


def test_the_old_users_are_deleted_only_once_read_gone():
    closed = hosts("kafka", NEW_BROKER)
    assert plan_of(closed, {}, None)["todo"] == ["old-passwords-deleted"]  # not read: still to do
    assert plan_of(closed, {}, [])["todo"] == []


def test_a_step_whose_previous_password_left_the_inventory_is_refused():
    plan = plan_of(hosts("kafka", OLD_BROKER), {}, ["kafka-broker"],
                   inventory_has=("kafka_client_sasl_username", "kafka_client_sasl_password"))
    assert [r["rule"] for r in plan["refusals"]] == ["identity-previous-login-missing"] and plan["todo"] == []
    assert "'replication-listener' still needs the previous layout's kafka_inter_broker_sasl_password" in (
        plan["refusals"][0]["message"])
    # once every broker replicates over REPLICATION neither password is needed
    closed = plan_of(hosts("kafka", NEW_BROKER), {}, ["kafka-broker"], inventory_has=())
    assert closed["refusals"] == [] and closed["todo"] == ["old-passwords-deleted"]
    moving = hosts("kafka", BOTH)
    assert plan_of(moving, {}, ["kafka-broker"], inventory_has=("kafka_inter_broker_sasl_password",))["refusals"] == []
    # the kit's old login needs its name too (the connection role's default is none)
    nameless = plan_of(hosts("kafka", OLD_BROKER), {}, ["kafka-broker"],
                       inventory_has=("kafka_inter_broker_sasl_password", "kafka_client_sasl_password"))
    assert "previous layout's kafka_client_sasl_username" in nameless["refusals"][0]["message"]


def test_each_step_renders_the_previous_listener_until_it_closes_and_the_kit_moves_to_its_certificate():
    assert conv.step_settings("replication-listener") == {
        "kind": "kafka", "kit": {"kafka_client_security_protocol": "SASL_SSL", "kafka_quorum_listener": "CONTROLPLANE"},
        "hosts": {"kafka_previous_broker_listener": True, "kafka_inter_broker_listener": "BROKER",
                  "kafka_quorum_listener": "CONTROLPLANE",
                  "kafka_security_exposures_accepted": ["kafka_previous_broker_listener"]}}
    assert conv.step_settings("replicate-over-certificates")["hosts"]["kafka_inter_broker_listener"] == "REPLICATION"
    assert conv.step_settings("replicate-over-certificates")["kit"]["kafka_client_security_protocol"] == "SSL"
    closed = conv.step_settings("broker-listener-removed")
    assert closed["hosts"] == {"kafka_previous_broker_listener": False, "kafka_inter_broker_listener": "REPLICATION",
                               "kafka_quorum_listener": "CONTROLPLANE",
                               "kafka_security_exposures_accepted": []}
    assert conv.step_settings("old-passwords-deleted") == {
        "kind": "cluster", "kit": {"kafka_client_security_protocol": "SSL", "kafka_quorum_listener": "CONTROLPLANE"},
        "hosts": {"kafka_security_exposures_accepted": []}}


def test_the_controllers_keep_controller_open_while_they_move_the_quorum_and_the_kit_follows_their_tools():
    first = conv.step_settings("controlplane-listener")
    assert first["hosts"] == {"kafka_previous_controller_listener": True, "kafka_quorum_listener": "CONTROLLER",
                              "kafka_security_exposures_accepted": ["kafka_previous_controller_listener"]}
    assert first["kit"] == {"kafka_client_security_protocol": "SASL_SSL", "kafka_quorum_listener": "CONTROLLER"}
    second = conv.step_settings("quorum-over-certificates")
    assert second["hosts"]["kafka_quorum_listener"] == "CONTROLPLANE" == second["kit"]["kafka_quorum_listener"]
    last = conv.step_settings("controller-listener-removed")
    assert last["hosts"]["kafka_previous_controller_listener"] is False


def test_secure_cluster_plans_the_move_after_its_secure_steps_up_to_stop_after():
    secured = {"refusals": [], "done": ["secure-listeners"], "todo": [], "left_after": [], "after": "Kafka: x."}
    assert conv.follows(secured) and not conv.follows(dict(secured, todo=["secure-inter-broker"]))
    plan = conv.after_secure_steps(secured, hosts("kafka", OLD_BROKER), {}, None, PASSWORDS,
                                   stop_after="replicate-over-certificates")
    assert plan["todo"] == ["replication-listener", "replicate-over-certificates"]
    assert plan["left_after"] == ["broker-listener-removed", "old-passwords-deleted"]
    assert plan["after"] == "Kafka: x. Members: the previous layout's passwords still work."
    assert plan["plan"][0].startswith("replication-listener (kafka): brokers open the REPLICATION listener")
    rerun = conv.after_secure_steps(secured, hosts("kafka", BOTH), {}, None, PASSWORDS,
                                    stop_after="replication-listener")
    assert (rerun["todo"], rerun["left_after"][0]) == ([], "replicate-over-certificates")
    done = conv.after_secure_steps(secured, hosts("kafka", NEW_BROKER), {}, [], PASSWORDS)
    assert (done["todo"], done["after"]) == ([], "Kafka: x. Members: by certificate.")
    assert not conv.previous_users_readable(hosts("kafka", BOTH)) and conv.previous_users_readable(
        hosts("kafka", NEW_BROKER))


def test_a_stop_after_outside_the_move_takes_nothing_and_one_of_another_kind_of_cluster_is_refused():
    secured = {"refusals": [], "done": ["secure-listeners"], "todo": [], "left_after": [], "after": "Kafka: x."}
    earlier = conv.after_secure_steps(secured, hosts("kafka", OLD_BROKER), {}, None, PASSWORDS,
                                      stop_after="secure-listeners")  # a secure step, done already
    assert (earlier["refusals"], earlier["todo"]) == ([], [])
    assert earlier["left_after"][0] == "replication-listener"
    on_kraft = conv.after_secure_steps(secured, hosts("kafka", OLD_BROKER), hosts("ctrl", OLD_CONTROLLER), None,
                                       PASSWORDS, stop_after="zookeeper-tls13-only")
    assert [r["rule"] for r in on_kraft["refusals"]] == ["secure-unknown-step"] and on_kraft["todo"] == []
    assert "its steps are controlplane-listener, quorum-over-certificates" in on_kraft["refusals"][0]["message"]
    assert conv.applicable_steps({}, hosts("zk", {}))[0] == "zookeeper-tls-both"


def test_a_roll_that_would_close_the_listener_a_broker_replicates_over_is_refused():
    refused = conv.replication_listener_refusal("kafka1", "BROKER", ["CLIENT", "REPLICATION"])
    assert refused["rule"] == "identity-replication-listener-kept"
    assert "kafka1 replicates over its BROKER listener" in refused["message"] and "secure_cluster.yml" in (
        refused["message"])
    assert conv.replication_listener_refusal("kafka1", "BROKER", ["CLIENT", "REPLICATION", "BROKER"]) is None
    assert conv.replication_listener_refusal("kafka1", "REPLICATION", ["CLIENT", "REPLICATION"]) is None
    assert conv.replication_listener_refusal("kafka1", None, ["CLIENT", "REPLICATION"]) is None  # a new host
    assert "Move replication" in conv.replication_listener_refusal("kafka1", "PLAINTEXT", ["CLIENT", "REPLICATION"])[
        "message"]


OLD_ZOO = {"clientPort": "", "secureClientPort": "2182", "sslQuorum": "true"}
BOTH_ZOO = dict(OLD_ZOO, **{"ssl.quorum.enabledProtocols": "TLSv1.3,TLSv1.2"})
NEW_ZOO = dict(OLD_ZOO, **{"ssl.quorum.enabledProtocols": "TLSv1.3"})


def test_a_zookeeper_ensemble_of_the_previous_layout_accepts_tls_1_2_until_every_member_speaks_1_3():
    plan = plan_of(hosts("kafka", OLD_BROKER), {}, ["kafka-broker"])
    assert plan["todo"][0] == "replication-listener"  # no ZooKeeper hosts given: no ZooKeeper step
    moving = conv.conversion_plan(hosts("kafka", OLD_BROKER), {}, ["kafka-broker"], PASSWORDS, hosts("zk", OLD_ZOO))
    assert moving["todo"] == ["zookeeper-tls-both", "replication-listener", "replicate-over-certificates",
                              "broker-listener-removed", "zookeeper-tls13-only", "old-passwords-deleted"]
    both = conv.conversion_plan(hosts("kafka", NEW_BROKER), {}, [], PASSWORDS, hosts("zk", BOTH_ZOO))
    assert both["todo"] == ["zookeeper-tls13-only"]
    kept = conv.conversion_plan(hosts("kafka", NEW_BROKER), {}, [], PASSWORDS, hosts("zk", BOTH_ZOO), keep_tls12=True)
    assert kept["todo"] == []
    done = conv.conversion_plan(hosts("kafka", NEW_BROKER), {}, [], PASSWORDS, hosts("zk", NEW_ZOO))
    assert done["todo"] == [] and done["refusals"] == []
    early = conv.conversion_plan(hosts("kafka", OLD_BROKER), {}, ["kafka-broker"], PASSWORDS,
                                 hosts("zk", BOTH_ZOO, zk1=NEW_ZOO))
    assert [r["rule"] for r in early["refusals"]] == ["identity-step-order"]
    assert conv.step_settings("zookeeper-tls-both")["hosts"] == {
        "zookeeper_previous_tls12": True, "kafka_security_exposures_accepted": ["zookeeper_previous_tls12"]}
    assert conv.step_settings("zookeeper-tls13-only")["hosts"]["zookeeper_previous_tls12"] is False
