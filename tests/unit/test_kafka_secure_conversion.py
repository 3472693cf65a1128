"""The conversion plan of secure_cluster.yml on hand-written host configurations."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_secure_conversion as conv

OPEN_BROKER = {"listeners": "PLAINTEXT://0.0.0.0:9092", "zookeeper.connect": "zk1:2181/kafka"}
SECURE_BROKER = {
    "listeners": "CLIENT://0.0.0.0:9093,REPLICATION://0.0.0.0:9091",
    "listener.security.protocol.map": "CLIENT:SASL_SSL,REPLICATION:SSL",
    "inter.broker.listener.name": "REPLICATION",
    "zookeeper.ssl.client.enable": "true", "zookeeper.set.acl": "true"}
# After the first step: the secured listeners beside PLAINTEXT.
BOTH_LISTENERS = {**OPEN_BROKER, "listeners": "PLAINTEXT://:9092,CLIENT://:9093,REPLICATION://:9091",
                  "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CLIENT:SASL_SSL,REPLICATION:SSL"}
OPEN_ZOOKEEPER = {"clientPort": "2181", "dataDir": "/var/lib/zookeeper"}
SECURE_ZOOKEEPER = {"secureClientPort": "2182", "sslQuorum": "true"}
LOCKED = {path: [{"scheme": "sasl", "id": "kafka", "perms": ["ALL"]},
                 {"scheme": "world", "id": "anyone", "perms": ["READ"]}] for path in conv.ACL_PROBES}
OPEN_ACLS = {path: [{"scheme": "world", "id": "anyone", "perms": ["ALL"]}] for path in conv.ACL_PROBES}


def _hosts(config, names, **overrides):
    return {name: {"config": dict(config), "restart_pending": False, **overrides.get(name, {})} for name in names}


def _brokers(config, **overrides):
    return _hosts(config, ("kafka1", "kafka2", "kafka3"), **overrides)


def _zookeepers(config, **overrides):
    return _hosts(config, ("zk1", "zk2", "zk3"), **overrides)


def _with(config, **changes):
    return {**config, **{key.replace("_", "."): value for key, value in changes.items()}}


def test_an_open_cluster_gets_every_step_but_the_plaintext_removal():
    plan = conv.conversion_plan(_brokers(OPEN_BROKER), _zookeepers(OPEN_ZOOKEEPER))
    assert plan["refusals"] == [] and plan["done"] == []
    assert plan["todo"] == [n for n in conv.STEP_NAMES if n not in conv.PLAINTEXT_REMOVAL]
    assert plan["left_after"] == []
    assert plan["after"] == ("Kafka clients: SASL_SSL (SCRAM), and PLAINTEXT as a super user; "
                             "ZooKeeper clients: TLS and plaintext; Kafka's znodes: locked to the brokers' login.")


def test_remove_plaintext_adds_the_two_removals_last():
    plan = conv.conversion_plan(_brokers(OPEN_BROKER), _zookeepers(OPEN_ZOOKEEPER), remove_plaintext=True)
    assert plan["todo"] == list(conv.STEP_NAMES)
    assert plan["after"].startswith("Kafka clients: SASL_SSL (SCRAM) only; ZooKeeper clients: TLS only;")


def test_a_secured_cluster_has_nothing_to_do():
    plan = conv.conversion_plan(_brokers(SECURE_BROKER), _zookeepers(SECURE_ZOOKEEPER), LOCKED,
                                remove_plaintext=True)
    assert plan["refusals"] == [] and plan["todo"] == [] and plan["done"] == list(conv.STEP_NAMES)


def test_znodes_still_open_keep_the_acl_step_to_do_although_every_broker_sets_acls():
    """A run that stopped after the roll and before the migrator: the brokers set ACLs, the tree is open."""
    brokers = _brokers({**BOTH_LISTENERS, **SECURE_BROKER, "listeners": BOTH_LISTENERS["listeners"],
                        "listener.security.protocol.map": BOTH_LISTENERS["listener.security.protocol.map"]})
    zookeepers = _zookeepers(_with(SECURE_ZOOKEEPER, clientPort="2181"))
    assert conv.brokers_set_acls(brokers)
    plan = conv.conversion_plan(brokers, zookeepers, OPEN_ACLS)
    assert plan["todo"] == ["brokers-set-zookeeper-acls"]
    assert conv.conversion_plan(brokers, zookeepers, LOCKED)["todo"] == []
    assert conv.conversion_plan(brokers, zookeepers, None)["todo"] == ["brokers-set-zookeeper-acls"]


def test_one_broker_behind_keeps_the_step_to_do():
    brokers = _brokers(BOTH_LISTENERS, kafka3={"config": OPEN_BROKER})
    plan = conv.conversion_plan(brokers, _zookeepers(OPEN_ZOOKEEPER))
    assert plan["done"] == [] and plan["todo"][0] == "secure-listeners"


def test_a_host_with_a_restart_pending_does_not_count_its_latest_step():
    brokers = _brokers(BOTH_LISTENERS, kafka2={"restart_pending": True})
    assert conv.conversion_plan(brokers, _zookeepers(OPEN_ZOOKEEPER))["todo"][0] == "secure-listeners"
    assert conv.conversion_plan(_brokers(BOTH_LISTENERS), _zookeepers(OPEN_ZOOKEEPER))["done"] == [
        "secure-listeners"]


def test_stop_after_takes_the_steps_up_to_it():
    plan = conv.conversion_plan(_brokers(OPEN_BROKER), _zookeepers(OPEN_ZOOKEEPER), stop_after="zookeeper-tls-ports")
    assert plan["todo"] == ["secure-listeners", "secure-inter-broker", "zookeeper-tls-ports"]
    assert plan["left_after"][0] == "zookeeper-tls-quorum"
    assert plan["after"].startswith(
        "Kafka clients: SASL_SSL (SCRAM), and PLAINTEXT as a super user; ZooKeeper clients: TLS and plaintext;")


def test_stop_after_a_step_already_done_takes_nothing():
    plan = conv.conversion_plan(_brokers(BOTH_LISTENERS), _zookeepers(OPEN_ZOOKEEPER), stop_after="secure-listeners")
    assert plan["todo"] == [] and plan["refusals"] == []


def test_stop_after_refusals_name_the_steps():
    def plan(stop_after):
        return conv.conversion_plan(_brokers(OPEN_BROKER), _zookeepers(OPEN_ZOOKEEPER), stop_after=stop_after)
    unknown = plan("tls")
    assert [r["rule"] for r in unknown["refusals"]] == ["secure-unknown-step"]
    assert "secure-listeners" in unknown["refusals"][0]["message"]
    removal = plan("kafka-plaintext-removed")
    assert [r["rule"] for r in removal["refusals"]] == ["secure-plaintext-removal-needs-flag"]
    assert "remove_plaintext=true" in removal["refusals"][0]["message"]


def test_a_broker_that_set_acls_without_logging_in_is_refused():
    brokers = _brokers(OPEN_BROKER, kafka2={"config": _with(OPEN_BROKER, zookeeper_set_acl="true")})
    plan = conv.conversion_plan(brokers, _zookeepers(OPEN_ZOOKEEPER))
    assert [r["rule"] for r in plan["refusals"]] == ["secure-step-order"]
    assert plan["refusals"][0]["message"].startswith("Refusing: kafka2 runs 'brokers-set-zookeeper-acls'")


def test_a_zookeeper_member_without_its_plaintext_port_but_no_tls_quorum_is_refused():
    zookeepers = _zookeepers(OPEN_ZOOKEEPER, zk3={"config": {"secureClientPort": "2182"}})
    plan = conv.conversion_plan(_brokers(OPEN_BROKER), zookeepers)
    assert [r["rule"] for r in plan["refusals"]] == ["secure-step-order"] and "zk3" in plan["refusals"][0]["message"]


def test_no_hosts_is_refused():
    assert [r["rule"] for r in conv.conversion_plan({}, _zookeepers(OPEN_ZOOKEEPER))["refusals"]] == ["secure-no-hosts"]


def test_broker_steps_read_the_inter_broker_protocol_without_a_listener_name():
    config = {"listeners": "SASL_SSL://:9093,SSL://:9094", "security.inter.broker.protocol": "SSL"}
    assert conv.broker_steps(config) == {"secure-listeners", "secure-inter-broker", "kafka-plaintext-removed"}


def test_the_quorum_goes_to_tls_in_zookeepers_three_rolls():
    both_ports = {"clientPort": "2181", "secureClientPort": "2182"}
    assert conv.zookeeper_steps(both_ports) == set()  # members would not yet accept a TLS peer
    assert conv.zookeeper_steps({**both_ports, "portUnification": "true"}) == {"zookeeper-tls-ports"}
    assert conv.zookeeper_steps({**both_ports, "portUnification": "true", "sslQuorum": "true"}) == {
        "zookeeper-tls-ports", "zookeeper-tls-quorum"}
    assert conv.zookeeper_steps({**both_ports, "sslQuorum": "true"}) == {
        "zookeeper-tls-ports", "zookeeper-tls-quorum", "zookeeper-tls-quorum-only"}


def test_znodes_secured_needs_every_probe_and_no_world_write():
    assert conv.znodes_secured(LOCKED)
    assert not conv.znodes_secured(OPEN_ACLS)
    assert not conv.znodes_secured({"/config/users": LOCKED["/config/users"]})
    assert not conv.znodes_secured(None)
    # The chroot's own znode, which Kafka's migrator leaves open, counts when it was read.
    assert not conv.znodes_secured({**LOCKED, conv.CHROOT: OPEN_ACLS["/config/users"]})
    assert conv.znodes_secured({**LOCKED, conv.CHROOT: LOCKED["/config/users"]})


def test_describe_names_the_kind_of_host():
    assert conv.describe("zookeeper-tls-ports") == (
        "zookeeper-tls-ports (zookeeper): ZooKeeper opens its TLS client port beside the plaintext one and "
        "accepts TLS from other members")


def test_role_settings_of_an_open_cluster_accept_every_exposure_it_has():
    settings = conv.role_settings([])
    assert settings["kafka"] == {"kafka_plaintext_listener": True, "kafka_plaintext_super_user": True,
                                 "kafka_inter_broker_listener": "PLAINTEXT", "zookeeper_client_tls": False,
                                 "kafka_zookeeper_set_acl": False}
    assert settings["zookeeper"] == {"zookeeper_plaintext_client": True, "zookeeper_quorum_tls": False,
                                     "zookeeper_quorum_port_unification": False}
    assert settings["accepted"] == ["kafka_plaintext_listener", "kafka_plaintext_super_user",
                                    "kafka_zookeeper_set_acl", "zookeeper_client_tls", "zookeeper_plaintext_client",
                                    "zookeeper_quorum_tls"]


def test_role_settings_follow_zookeepers_three_quorum_rolls():
    def quorum(steps):
        zookeeper = conv.role_settings(steps)["zookeeper"]
        return zookeeper["zookeeper_quorum_port_unification"], zookeeper["zookeeper_quorum_tls"]
    upto = list(conv.STEP_NAMES)
    assert quorum(upto[:upto.index("zookeeper-tls-ports") + 1]) == (True, False)
    assert quorum(upto[:upto.index("zookeeper-tls-quorum") + 1]) == (True, True)
    assert quorum(upto[:upto.index("zookeeper-tls-quorum-only") + 1]) == (False, True)


def test_role_settings_of_every_step_are_the_secure_defaults_with_nothing_accepted():
    settings = conv.role_settings(conv.STEP_NAMES)
    assert settings["accepted"] == []
    assert settings["kafka"]["kafka_inter_broker_listener"] == "REPLICATION"
    # Without the plaintext removal, the two plaintext ports stay, accepted on purpose.
    assert conv.role_settings(conv.STEP_NAMES[:-2])["accepted"] == [
        "kafka_plaintext_listener", "kafka_plaintext_super_user", "zookeeper_plaintext_client"]


def test_role_settings_render_what_broker_steps_and_zookeeper_steps_read_back():
    """Each step's settings, written as the templates write them, read back as that step done."""
    for i, name in enumerate(conv.STEP_NAMES):
        settings = conv.role_settings(conv.STEP_NAMES[:i + 1])
        kafka, zookeeper = settings["kafka"], settings["zookeeper"]
        listeners = {"CLIENT": "SASL_SSL", "REPLICATION": "SSL"}
        if kafka["kafka_plaintext_listener"]:
            listeners["PLAINTEXT"] = "PLAINTEXT"
        broker = {"listeners": ",".join(f"{n}://:1" for n in listeners),
                  "listener.security.protocol.map": ",".join(f"{n}:{p}" for n, p in listeners.items()),
                  "inter.broker.listener.name": kafka["kafka_inter_broker_listener"],
                  "zookeeper.set.acl": str(kafka["kafka_zookeeper_set_acl"]).lower()}
        if kafka["zookeeper_client_tls"]:
            broker["zookeeper.ssl.client.enable"] = "true"
        member = {"secureClientPort": "2182", "sslQuorum": str(zookeeper["zookeeper_quorum_tls"]).lower()}
        if zookeeper["zookeeper_plaintext_client"]:
            member["clientPort"] = "2181"
        if zookeeper["zookeeper_quorum_port_unification"]:
            member["portUnification"] = "true"
        read_back = conv.broker_steps(broker) | conv.zookeeper_steps(member)
        assert name in read_back, name
        assert read_back == set(conv.STEP_NAMES[:i + 1]), name


def test_the_kit_moves_to_the_secured_side_once_every_host_offers_it():
    assert conv.kit_connection([]) == {"kafka_client_security_protocol": "PLAINTEXT", "zookeeper_client_tls": False}
    assert conv.kit_connection(["secure-listeners", "secure-inter-broker", "zookeeper-tls-ports"]) == {
        "kafka_client_security_protocol": "SSL", "zookeeper_client_tls": True}


def test_each_step_gives_its_hosts_the_settings_up_to_it_and_the_kit_the_connection_before_it():
    first = conv.step_settings("secure-listeners")
    assert first["kind"] == "kafka"
    assert first["hosts"]["kafka_inter_broker_listener"] == "PLAINTEXT"
    # the gates reach every broker, the old ones too
    assert first["kit"]["kafka_client_security_protocol"] == "PLAINTEXT"
    login = conv.step_settings("brokers-log-in-to-zookeeper")
    assert login["hosts"]["zookeeper_client_tls"] and login["kit"]["zookeeper_client_tls"]
    assert login["kit"]["kafka_client_security_protocol"] == "SSL"
    ports = conv.step_settings("zookeeper-tls-ports")
    assert ports["kind"] == "zookeeper" and not ports["kit"]["zookeeper_client_tls"]
    assert "zookeeper_quorum_port_unification" in ports["hosts"]["kafka_security_exposures_accepted"]
    assert conv.step_settings("zookeeper-plaintext-removed")["hosts"]["kafka_security_exposures_accepted"] == []


def test_a_hosts_file_gives_the_plan_its_keys_only():
    server_properties = ("# comment\nlisteners=PLAINTEXT://0.0.0.0:9092\nzookeeper.set.acl=true\n"
                         "listener.name.client.scram-sha-512.sasl.jaas.config=... password=\"secret\";\n")
    assert conv.running_config("kafka", server_properties) == {
        "listeners": "PLAINTEXT://0.0.0.0:9092", "zookeeper.set.acl": "true"}
    assert conv.running_config("zookeeper", "clientPort=2181\ndataDir=/var/lib/zookeeper\n") == {"clientPort": "2181"}


def test_each_step_of_this_run_gets_a_group_of_its_kind_and_the_controller():
    hosts = {conv.KAFKA: ["kafka1", "kafka2"], conv.ZOOKEEPER: ["zk1"]}
    assert conv.step_groups(["secure-inter-broker", "zookeeper-tls-ports"], hosts) == {
        "secure_step_secure-inter-broker": ["kafka1", "kafka2", "localhost"],
        "secure_step_zookeeper-tls-ports": ["zk1", "localhost"]}


def test_a_kraft_cluster_has_no_secure_step_and_an_open_one_is_refused():
    secured = {"listeners": "CLIENT://:9093,REPLICATION://:9091",
               "listener.security.protocol.map": "CLIENT:SASL_SSL,REPLICATION:SSL", "process.roles": "broker"}
    plan = conv.conversion_plan(_brokers(secured), None)
    assert (plan["refusals"], plan["todo"], plan["left_after"]) == ([], [], [])
    refused = conv.conversion_plan(_brokers(secured, kafka2={"config": OPEN_BROKER}), None)
    assert [r["rule"] for r in refused["refusals"]] == ["secure-open-kraft"]
    assert refused["refusals"][0]["message"].startswith("Refusing: kafka2 run(s) KRaft mode")
