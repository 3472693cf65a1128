"""Client traffic against the lab cluster, for tests and benchmarks: an idempotent acks=all producer that
can write in the background while a playbook runs, a reader that reads a topic back, and whether a client
trusting a given CA file reaches the brokers, whether a login is accepted and whether a client may create a topic."""

import os
import threading
import time
import uuid

from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from .cluster_settings import kafka_config, load


class AckedProducer:
    """Writes numbered messages with acks=all and idempotence; remembers what was acknowledged and
    which deliveries failed. start() writes in a thread at about `rate` messages/s until stop()."""

    def __init__(self, bootstrap_servers, topic, rate=500, config=None):
        """config: librdkafka settings over the lab's (for example another ssl.ca.location)."""
        self.topic, self.rate = topic, rate
        self.producer = Producer(kafka_config(bootstrap_servers) | (config or {}) | {"acks": "all",
                                  "enable.idempotence": True, "linger.ms": 5,
                                  "delivery.timeout.ms": 120_000})
        self.acked, self.failed, self.sent = set(), [], 0
        self._stop, self._thread = threading.Event(), None

    def _on_delivery(self, err, msg):
        if err is not None:
            self.failed.append(str(err))
        else:
            self.acked.add(msg.value())

    def send(self, count):
        for _ in range(count):
            self.producer.produce(self.topic, key=str(self.sent % 60).encode(),
                                  value=f"message-{self.sent}".encode(), on_delivery=self._on_delivery)
            self.sent += 1
            self.producer.poll(0)

    def _run(self):
        batch = max(1, self.rate // 10)
        while not self._stop.is_set():
            self.send(batch)
            time.sleep(0.1)

    def start(self):
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self, flush_timeout=120):
        """Stop writing and wait for every outstanding delivery report; returns messages never reported."""
        if self._thread:
            self._stop.set()
            self._thread.join()
        return self.producer.flush(flush_timeout)


def fill(bootstrap_servers, topic, total_bytes, value_size=64 * 1024):
    """Write about total_bytes of incompressible values with acks=all (data for a rebuild to copy), each
    value distinct; returns how many were acknowledged."""
    producer = Producer(kafka_config(bootstrap_servers) | {"acks": "all", "enable.idempotence": True,
                         "linger.ms": 20, "batch.size": 1_000_000, "compression.type": "none"})
    acked = []
    payload = os.urandom(value_size - 8)
    for n in range(total_bytes // value_size):
        while True:
            try:
                producer.produce(topic, key=str(n).encode(), value=n.to_bytes(8, "big") + payload,
                                 on_delivery=lambda err, msg: acked.append(err is None))
                break
            except BufferError:  # the local queue is full: let deliveries drain
                producer.poll(0.1)
        producer.poll(0)
    producer.flush(300)
    return sum(acked)


def read_all(bootstrap_servers, topic, expected, timeout=120):
    """Every message value in the topic, read from the start until `expected` values were seen."""
    consumer = Consumer(kafka_config(bootstrap_servers) | {"group.id": f"{topic}-reader",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    read, deadline = set(), time.monotonic() + timeout
    try:
        while len(read) < expected and time.monotonic() < deadline:
            for msg in consumer.consume(num_messages=1000, timeout=1):
                if msg.error():
                    raise KafkaException(msg.error())
                read.add(msg.value())
    finally:
        consumer.close()
    return read


def delete_topic(bootstrap_servers, topic, attempts=10):
    """Delete a topic, retrying while the controller moves (after a roll or a fault the old one may
    answer): each attempt with a fresh client, which asks the current controller."""
    for attempt in range(attempts):
        try:
            admin = AdminClient(kafka_config(bootstrap_servers))  # referenced until the result
            admin.delete_topics([topic])[topic].result(30)
            return
        except (KafkaException, TimeoutError):
            if attempt == attempts - 1:
                raise
            time.sleep(3)


def reaches_every_broker(ca_file):
    """Whether a client trusting only ca_file gets metadata from every broker (a new TLS session each)."""
    admin = AdminClient(kafka_config() | {"ssl.ca.location": str(ca_file)})
    try:
        return len(admin.list_topics(timeout=15).brokers) == len(load()["brokers"])
    except KafkaException:
        return False


def logs_in(conf):
    """Whether a client with these librdkafka settings (a login among them) gets metadata from the brokers."""
    try:
        AdminClient(conf | {"log_level": 0}).list_topics(timeout=15)
        return True
    except KafkaException:
        return False


def creates_a_topic(conf, prefix="created"):
    """None if a client with these librdkafka settings may create a topic (then deleted again by the kit's
    admin), else the error's name (TOPIC_AUTHORIZATION_FAILED, ...)."""
    topic = f"{prefix}-{uuid.uuid4().hex[:8]}"
    try:
        admin = AdminClient(conf | {"log_level": 0})  # kept: a future outlives no client
        admin.create_topics([NewTopic(topic, 1, 3)])[topic].result(30)
    except KafkaException as exc:
        return exc.args[0].name()
    admin = AdminClient(kafka_config())
    # The creation is answered once the metadata log holds it; the brokers learn it a little later (KRaft), and
    # a deletion sent before then was once refused as UNKNOWN_TOPIC_OR_PART: it must show up first, then go.
    deadline = time.monotonic() + 30
    while topic not in admin.list_topics(timeout=10).topics:
        assert time.monotonic() < deadline, f"{topic} was created but never showed up in the cluster's metadata"
        time.sleep(0.5)
    admin.delete_topics([topic])[topic].result(30)
    return None
