"""A cluster deployed in KRaft mode (make test-kraft: site.yml with kafka_metadata_mode: kraft on the lab): a
quorum of three controllers with every broker as an observer and one cluster id everywhere; topics that get
the cluster's policy from the controllers and keep acks=all records; a CONTROLLER listener that wants both
a certificate from the cluster's CA and the password; a changed controller setting rolled one controller at a
time, the leader last, no broker restarted, and no controller stopped while the others are no caught-up
majority; and refusals that change nothing: a voter whose disk was lost is
not formatted, node ids that clash, and a ZooKeeper deploy over the KRaft cluster."""

import json
import time
import uuid

import certificates
import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType
from lab_hosts import QUORUM_TOOL, TOOL_CONFIG, service_starts, service_stop_and_start, ssh_run
from lab_hosts import quorum as _quorum
from unchanged import lab_state

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft, kafka_versions
from lab import config, faults
from lab.cluster_settings import kafka_config


def _meta(host, path):
    return dict(line.split("=", 1) for line in ssh_run(host, f"cat {path}").splitlines()
                if "=" in line and not line.startswith("#"))


def test_three_voters_every_broker_observes_and_one_cluster_id(controllers, brokers):
    rows = kafka_kraft.parse_quorum_replication(_quorum(controllers[0]))
    voters = sorted(r["node_id"] for r in rows if r["status"] in ("Leader", "Follower"))
    observers = sorted(r["node_id"] for r in rows if r["status"] == "Observer")
    assert voters == [9001, 9002, 9003]
    assert observers == [1, 2, 3]
    assert all(r["lag"] == 0 for r in rows if r["status"] != "Leader") or max(r["lag"] for r in rows) < 50
    ids = {h.name: _meta(h, "/var/lib/kafka-controller/metadata/meta.properties")["cluster.id"] for h in controllers}
    ids |= {h.name: _meta(h, "/var/lib/kafka/data/meta.properties")["cluster.id"] for h in brokers}
    assert len(set(ids.values())) == 1, ids
    admin = AdminClient(kafka_config())  # kept: the future needs the client alive
    cluster = admin.describe_cluster(request_timeout=30).result(30)
    assert cluster.cluster_id == next(iter(ids.values()))


def test_the_summary_shows_the_quorum(run_playbook):
    run = run_playbook("cluster_summary.yml")
    assert run.returncode == 0, run.output[-2000:]
    assert "KRaft quorum: leader 900" in run.output and "voters 9001, 9002, 9003" in run.output, run.output[-2000:]
    assert "live brokers: 1 at kafka1.kafkalab.test, 2 at kafka2.kafkalab.test, 3 at kafka3.kafkalab.test" in run.output


def test_a_topic_gets_the_clusters_policy_and_keeps_acks_all_records():
    topic = f"kraft-{uuid.uuid4().hex[:8]}"
    admin = AdminClient(kafka_config())
    admin.create_topics([NewTopic(topic)])[topic].result(30)  # no partitions or replication factor given
    try:
        for _ in range(60):  # the brokers learn the new topic from the controllers
            partitions = admin.list_topics(topic, timeout=30).topics[topic].partitions
            if partitions and all(p.leader >= 0 for p in partitions.values()):
                break
            time.sleep(0.5)
        assert len(partitions) == 3 and {len(p.replicas) for p in partitions.values()} == {3}
        resource = ConfigResource(ResourceType.TOPIC, topic)
        configs = admin.describe_configs([resource])[resource].result(30)
        assert configs["min.insync.replicas"].value == "2"
        assert configs["unclean.leader.election.enable"].value == "false"
        producer = Producer(kafka_config() | {"acks": "all", "enable.idempotence": True})
        acked = []
        for i in range(1000):
            producer.produce(topic, str(i).encode(), on_delivery=lambda err, msg: acked.append(err is None))
        producer.flush(60)
        assert acked.count(True) == 1000
        consumer = Consumer(kafka_config() | {"group.id": f"{topic}-group", "auto.offset.reset": "earliest"})
        consumer.subscribe([topic])
        read = set()
        for _ in range(60):
            for msg in consumer.consume(1000, timeout=1):
                assert msg.error() is None, msg.error()
                read.add(int(msg.value()))
            if len(read) == 1000:
                break
        consumer.close()
        assert read == set(range(1000))
    finally:
        admin.delete_topics([topic])[topic].result(30)


def test_the_controller_listener_takes_only_marked_certificates_of_the_clusters_ca(controllers, tmp_path):
    """CONTROLPLANE is SSL with client certificates: the controller's own gets in (a member), none or another CA's
    is refused at the handshake, and the cluster CA's certificate of the controller machine (no marker) gets in as
    nobody: it may not even describe the quorum (the tool's first call is refused authorization, or finds no node it
    may use and times out; never a TLS refusal)."""
    host = controllers[0]
    assert "LeaderId" in _quorum(host, "status")  # the controller's own settings get in
    foreign = certificates.issue(tmp_path, "intruder", certificates.another_ca(tmp_path), ["intruder"])
    unmarked = config.PKI / "hosts" / "localhost"
    for name, (key, cert) in {"foreign": foreign[::-1],
                              "unmarked": (unmarked / "key.pem", unmarked / "cert.pem")}.items():
        ssh_run(host, f"umask 077; cat > /tmp/{name}.pem <<'EOF'\n" + open(key).read() + open(cert).read() + "EOF")
    variants = {  # how the client is changed, and the refusal it must get
        "no certificate": (f"grep -v '^ssl.keystore' {TOOL_CONFIG}", "SslAuthenticationException"),
        "another CA's certificate": (f"sed 's#^ssl.keystore.location=.*#ssl.keystore.location=/tmp/foreign.pem#' "
                                     f"{TOOL_CONFIG}", "SslAuthenticationException"),
        "a certificate of the cluster's CA without the member marker": (
            f"sed 's#^ssl.keystore.location=.*#ssl.keystore.location=/tmp/unmarked.pem#' {TOOL_CONFIG}",
            ("ClusterAuthorizationException", "Timed out waiting for a node assignment")),
    }
    try:
        for name, (make, refusal) in variants.items():
            ssh_run(host, f"umask 077; {make} > /tmp/variant.properties")
            out = ssh_run(host, QUORUM_TOOL.format(config="/tmp/variant.properties", what="status") + " || true")
            assert "LeaderId" not in out, f"the CONTROLPLANE listener let in a client with {name}: {out[-500:]}"
            refusals = refusal if isinstance(refusal, tuple) else (refusal,)
            assert any(r in out for r in refusals), f"{name}: {out[-500:]}"
            if isinstance(refusal, tuple):  # it got in: its TLS was accepted
                assert "SslAuthenticationException" not in out, f"{name}: {out[-500:]}"
    finally:
        ssh_run(host, "rm -f /tmp/foreign.pem /tmp/unmarked.pem /tmp/variant.properties")


def test_a_changed_controller_setting_rolls_the_controllers_one_at_a_time_the_leader_last(
        run_playbook, controllers, brokers):
    by_name = {h.name: h for h in controllers}
    leader = int(dict(line.split(":", 1) for line in _quorum(controllers[0], "status").splitlines()
                      if ":" in line)["LeaderId"].strip())
    broker_starts = service_starts(brokers, "kafka")
    changed = {"kafka_controller_extra_properties": {"controller.quorum.fetch.timeout.ms": 2500}}
    for extra in (["-e", json.dumps(changed)], []):  # the change, then back to the inventory's settings
        before = service_stop_and_start(controllers, "kafka-controller")
        run = run_playbook("site.yml", *extra)
        assert run.returncode == 0, run.output[-3000:]
        after = service_stop_and_start(controllers, "kafka-controller")
        assert all(after[n][1] > before[n][1] for n in by_name), "every controller restarted once"
        order = sorted(by_name, key=lambda n: after[n][1])
        for previous, following in zip(order, order[1:], strict=False):
            assert after[previous][1] <= after[following][0], f"{following} stopped before {previous} was back"
        if not extra:
            continue
        node_ids = {h: int(ssh_run(by_name[h], "grep ^node.id= /etc/kafka-controller/controller.properties")
                           .split("=")[1]) for h in order}
        assert node_ids[order[-1]] == leader, f"restart order {order}; the leader was {leader}"
        assert "controller.quorum.fetch.timeout.ms=2500" in ssh_run(
            by_name[order[0]], "cat /etc/kafka-controller/controller.properties")
    assert service_starts(brokers, "kafka") == broker_starts, "a broker restarted"
    rows = kafka_kraft.parse_quorum_replication(_quorum(controllers[0]))
    assert kafka_kraft.quorum_leader(rows) is not None


def test_a_controller_is_not_stopped_while_the_others_are_no_caught_up_majority(run_playbook, controllers):
    """ctrl1's setting changes (the run is limited to it) while ctrl2 is paused: without ctrl1 only one of the
    three voters would be caught up, so the roll refuses to stop ctrl1 and restarts nothing."""
    ctrl1, ctrl2 = controllers[0], controllers[1]
    changed = {"kafka_controller_extra_properties": {"controller.quorum.fetch.timeout.ms": 2500},
               "kafka_controller_gate_timeout": 20}
    starts = service_starts(controllers, "kafka-controller")
    faults.pause(ctrl2, "kafka-controller")
    try:
        run = run_playbook("kafka_controllers.yml", "--limit", ctrl1.name, "-e", json.dumps(changed))
        after = service_starts(controllers, "kafka-controller")
    finally:
        faults.resume(ctrl2, "kafka-controller")
        # the inventory's settings back: ctrl1, marked, restarts once through the gate
        restored = run_playbook("kafka_controllers.yml")
    assert run.returncode != 0
    assert "Not stopping controller 9001 after waiting 20 s: without node 9001, 1 voter(s)" in run.output, \
        run.output[-2000:]
    assert after == starts, "a controller was restarted"
    assert restored.returncode == 0, restored.output[-3000:]


def test_a_voter_that_lost_its_disk_is_not_formatted_and_nothing_changes(run_playbook, settings, controllers):
    lost = controllers[2]
    ssh_run(lost, "systemctl stop kafka-controller && cd /var/lib/kafka-controller && mv metadata lost"
                  " && install -d -o kafka -g kafka -m 0750 metadata")
    try:
        before = lab_state(settings)
        run = run_playbook("site.yml")
        assert run.returncode != 0
        assert (f"Refusing to format the KRaft controllers: [kraft-lost-voter] {lost.name} has an empty metadata dir "
                f"while {controllers[0].name}, {controllers[1].name} already ran the quorum") in run.output
        assert lab_state(settings) == before
    finally:
        ssh_run(lost, "cd /var/lib/kafka-controller && rm -rf metadata && mv lost metadata"
                      " && systemctl start kafka-controller")
    rows = []
    for _ in range(30):
        rows = kafka_kraft.parse_quorum_replication(_quorum(controllers[0]))
        if kafka_kraft.controller_rejoined(rows, 9003, 10) is None:
            break
    assert kafka_kraft.controller_rejoined(rows, 9003, 10) is None


@pytest.mark.parametrize("extra, refusal", [
    (["-e", "kafka_controller_node_id=2"], "[kraft-node-ids] controllers ctrl1, ctrl2, ctrl3 share node id 2"),
    (["-e", "kafka_controller_node_id=2"], "has node id 2, the id of broker kafka2: brokers and controllers share"),
])
def test_clashing_node_ids_are_refused_and_nothing_changes(run_playbook, settings, extra, refusal):
    before = lab_state(settings)
    run = run_playbook("site.yml", *extra)
    assert run.returncode != 0 and refusal in run.output, run.output[-2000:]
    assert lab_state(settings) == before


def test_a_zookeeper_deploy_over_the_kraft_cluster_is_refused_and_nothing_changes(run_playbook, settings):
    before = lab_state(settings)
    run = run_playbook("site.yml", env={"KAFKAOPS_LAB_METADATA_MODE": "zookeeper"})
    assert run.returncode != 0
    if kafka_versions.facts(config.KAFKA_VERSION)["zookeeper"]:
        assert ("[mode-change-by-migration-only] it runs in KRaft mode (process.roles) and kafka_metadata_mode is "
                "zookeeper") in run.output
    else:  # a release without ZooKeeper mode refuses it before it reads any host's mode
        assert f"[version-zookeeper-on-4] Kafka {config.KAFKA_VERSION} has no ZooKeeper mode" in run.output
    assert lab_state(settings) == before


def test_a_deploy_that_would_switch_the_quorums_kind_is_refused_and_nothing_changes(run_playbook, settings):
    running = kafka_versions.facts(config.KAFKA_VERSION)["quorum"]
    other = "static" if running == "dynamic" else "dynamic"
    before = lab_state(settings)
    run = run_playbook("site.yml", "-e", f"kafka_controller_quorum={other}")
    assert run.returncode != 0
    assert (f"[kraft-quorum-change] the quorum that ran on ctrl1, ctrl2, ctrl3 is {running} and "
            f"kafka_controller_quorum is {other}: set kafka_controller_quorum: {running}") in run.output, \
        run.output[-3000:]
    assert lab_state(settings) == before
