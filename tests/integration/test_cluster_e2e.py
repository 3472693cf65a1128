"""End to end on the lab: the deployed ensemble and brokers form one healthy, hardened cluster that
keeps every message written with acks=all."""

import time
import uuid

import pytest
from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic
from kazoo.client import KazooClient

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


@pytest.fixture
def topic(bootstrap_servers):
    admin = AdminClient({"bootstrap.servers": bootstrap_servers})
    name = f"e2e-{uuid.uuid4().hex[:8]}"
    admin.create_topics([NewTopic(name, num_partitions=6, replication_factor=3)])[name].result(30)
    yield name
    admin.delete_topics([name])[name].result(30)


def test_zookeeper_ensemble_has_one_leader_and_two_followers(zookeepers, four_letter_word):
    modes = []
    for host in zookeepers:
        answer = four_letter_word(host.address, "srvr")
        modes += [line.split(":", 1)[1].strip() for line in answer.splitlines() if line.startswith("Mode:")]
    assert sorted(modes) == ["follower", "follower", "leader"]


def test_every_broker_is_registered_in_zookeeper(zookeeper_connect, brokers):
    zk = KazooClient(hosts=zookeeper_connect, timeout=10)
    zk.start(timeout=10)
    try:
        registered = sorted(int(b) for b in zk.get_children("/brokers/ids"))
    finally:
        zk.stop()
        zk.close()
    assert registered == [1, 2, 3] and len(brokers) == 3


def test_live_broker_configuration_is_hardened(bootstrap_servers):
    admin = AdminClient({"bootstrap.servers": bootstrap_servers})
    for broker_id in (1, 2, 3):  # the AdminClient takes one broker resource per call
        resource = ConfigResource(ConfigResource.Type.BROKER, str(broker_id))
        entries = admin.describe_configs([resource])[resource].result(30)
        live = {name: entry.value for name, entry in entries.items()}
        assert {k: live[k] for k in HARDENED} == HARDENED, f"broker {broker_id}"


def test_topic_is_created_with_three_in_sync_replicas(bootstrap_servers, topic):
    metadata = AdminClient({"bootstrap.servers": bootstrap_servers}).list_topics(topic, timeout=30)
    partitions = metadata.topics[topic].partitions
    assert len(partitions) == 6
    assert all(len(p.replicas) == 3 and sorted(p.isrs) == sorted(p.replicas) for p in partitions.values())


def test_every_message_produced_with_acks_all_is_read_back(bootstrap_servers, topic):
    producer = Producer({"bootstrap.servers": bootstrap_servers, "acks": "all", "enable.idempotence": True,
                         "linger.ms": 5})
    acked, failed = set(), []

    def on_delivery(err, msg):
        if err is not None:
            failed.append(err)
        else:
            acked.add(msg.value())

    for i in range(MESSAGES):
        producer.produce(topic, key=str(i % 60).encode(), value=f"message-{i}".encode(),
                         on_delivery=on_delivery)
        producer.poll(0)
    assert producer.flush(60) == 0
    assert failed == []
    assert len(acked) == MESSAGES

    consumer = Consumer({"bootstrap.servers": bootstrap_servers, "group.id": f"{topic}-reader",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    read, deadline = set(), time.monotonic() + 120
    try:
        while len(read) < MESSAGES and time.monotonic() < deadline:
            for msg in consumer.consume(num_messages=1000, timeout=1):
                if msg.error():
                    raise KafkaException(msg.error())
                read.add(msg.value())
    finally:
        consumer.close()
    assert read == acked
