"""End to end on the lab: the deployed ensemble and brokers form one healthy, hardened cluster that
keeps every message written with acks=all."""

from confluent_kafka.admin import AdminClient, ConfigResource

from ansible_collections.kafkaops.toolkit.plugins.module_utils import zookeeper_state
from lab.cluster_settings import kafka_config, kazoo_client
from lab.traffic import AckedProducer, read_all

MESSAGES = 10_000

HARDENED = {
    "unclean.leader.election.enable": "false",
    "min.insync.replicas": "2",
    "default.replication.factor": "3",
    "offsets.topic.replication.factor": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    "auto.create.topics.enable": "false",
    "controlled.shutdown.enable": "true",
    "broker.id.generation.enable": "false",
}


def test_zookeeper_ensemble_has_one_leader_and_two_followers(settings):
    c = settings["connection"]  # over TLS, with the kit's client certificate
    tls = zookeeper_state.tls_context(c["zookeeper_ssl_ca_location"], c["zookeeper_ssl_certificate_location"],
                                      c["zookeeper_ssl_key_location"])
    modes = []
    for member in settings["zookeeper_members"].values():
        host, port = member.rsplit(":", 1)
        answer = zookeeper_state.four_letter_word(host, int(port), tls=tls)
        modes.append(zookeeper_state.parse_srvr(answer)["mode"])
    assert sorted(modes) == ["follower", "follower", "leader"]


def test_every_broker_is_registered_in_zookeeper(zookeeper_connect, brokers):
    zk = kazoo_client(zookeeper_connect, timeout=10)
    zk.start(timeout=10)
    try:
        registered = sorted(int(b) for b in zk.get_children("/brokers/ids"))
    finally:
        zk.stop()
        zk.close()
    assert registered == [1, 2, 3] and len(brokers) == 3


def test_live_broker_configuration_is_hardened(bootstrap_servers):
    admin = AdminClient(kafka_config(bootstrap_servers))
    for broker_id in (1, 2, 3):  # the AdminClient takes one broker resource per call
        resource = ConfigResource(ConfigResource.Type.BROKER, str(broker_id))
        entries = admin.describe_configs([resource])[resource].result(30)
        live = {name: entry.value for name, entry in entries.items()}
        assert {k: live[k] for k in HARDENED} == HARDENED, f"broker {broker_id}"


def test_topic_is_created_with_three_in_sync_replicas(bootstrap_servers, topic):
    metadata = AdminClient(kafka_config(bootstrap_servers)).list_topics(topic, timeout=30)
    partitions = metadata.topics[topic].partitions
    assert len(partitions) == 6
    assert all(len(p.replicas) == 3 and sorted(p.isrs) == sorted(p.replicas) for p in partitions.values())


def test_every_message_produced_with_acks_all_is_read_back(bootstrap_servers, topic):
    producer = AckedProducer(bootstrap_servers, topic)
    producer.send(MESSAGES)
    assert producer.stop(60) == 0
    assert producer.failed == []
    assert len(producer.acked) == MESSAGES
    assert read_all(bootstrap_servers, topic, MESSAGES) == producer.acked
