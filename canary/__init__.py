"""The canary: sequenced records written with acks=all and idempotence, and a ledger of every record the
cluster acknowledged, for spark/validate_recovery.py to check after a recovery.

The ledger is a folder (canary/ledger.py): per record topic, partition, offset, key, the SHA-256 of the value,
sent_at (the Unix time the record was handed to the client) and acked_at (when its acknowledgement arrived,
for gaps in availability); deliveries that failed are kept there too.
Command line: python -m canary --help.
"""

import collections
import hashlib
import json
import threading
import time

from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from .ledger import LedgerWriter


def client_config(settings_path=None, bootstrap_servers=None):
    """The librdkafka configuration: the "kafka" entry of a client settings file (playbooks/client_settings.yml
    writes it, the cluster's security included), or bootstrap servers alone for an open cluster."""
    if settings_path:
        with open(settings_path, encoding="utf-8") as handle:
            return json.load(handle)["kafka"]
    return {"bootstrap.servers": bootstrap_servers}


class TopicNotAllowed(RuntimeError):
    """The topic is missing and this principal may not create it (the canary's own may not: the kit's admin does)."""


def ensure_topic(client_conf, topic, partitions=6, replication_factor=3, timeout=30):
    """Create the canary topic if it is missing, and wait until every partition has a leader.
    client_conf: the cluster's librdkafka configuration (client_config). A principal that may not create topics
    (the kit's canary principal) gets TopicNotAllowed for a missing one."""
    admin = AdminClient(client_conf)
    deadline = time.monotonic() + timeout
    while True:
        # All topics' metadata, not the topic's: a request naming a missing topic makes a broker with
        # auto.create.topics.enable (Kafka's default, a legacy cluster's) create it with num.partitions
        existing = admin.list_topics(timeout=timeout).topics.get(topic)
        if existing is not None and existing.error is None:
            break
        try:
            admin.create_topics([NewTopic(topic, partitions, replication_factor)])[topic].result(timeout)
            break
        except KafkaException as exc:
            error = exc.args[0]
            if error.code() == KafkaError.TOPIC_ALREADY_EXISTS:
                break
            # A denied create is retried too: a topic the admin just made may not be in this broker's metadata yet.
            denied = error.code() in (KafkaError.TOPIC_AUTHORIZATION_FAILED, KafkaError.CLUSTER_AUTHORIZATION_FAILED)
            expired = time.monotonic() > deadline  # read once: both checks below must see the same answer
            if expired and denied:
                raise TopicNotAllowed(
                    f"topic {topic} is missing and this principal may not create it: create it as the kit's admin "
                    "first (the canary's own principal writes and reads only)") from None
            if expired or not (denied or error.retriable()):  # retriable: the controller moved
                raise
            time.sleep(1)
    while True:
        found = admin.list_topics(topic, timeout=timeout).topics[topic]
        if found.error is None and found.partitions and all(p.leader >= 0 for p in found.partitions.values()):
            return len(found.partitions)
        if time.monotonic() > deadline:
            raise RuntimeError(f"topic {topic} has no leader for every partition after {timeout}s")
        time.sleep(0.5)


class Canary:
    """Writes record N (key canary-N, a value that names N) at about `rate` records/s, from start() until
    stop() or `count` records; every acknowledged record goes to the ledger folder (canary/ledger.py), and so
    does every failed delivery. client_conf is the cluster's librdkafka configuration (client_config).

    acks="all" (the default) writes idempotently; acks="1" (for negative controls: a leader may
    acknowledge what its followers never get) cannot, as Kafka requires acks=all for idempotence.

    While it runs, recent_acks() tells which partitions acknowledged records sent when: the chaos suite
    waits for data in every partition before its snapshot, and checks that an isolated leader took writes."""

    RECENT = 100_000  # acknowledgements kept in memory (about 8 min at 200/s): bounded for long runs

    def __init__(self, client_conf, topic, ledger_dir, rate=100, count=None, acks="all",
                 delivery_timeout_s=120, first_seq=0):
        # first_seq: a canary that takes over another's ledger and topic (another client configuration) goes on
        # with the keys where the other stopped, so no key is written twice.
        self.topic, self.rate, self.count, self.acks, self.first_seq = topic, rate, count, acks, first_seq
        self.producer = Producer(client_conf | {"acks": acks, "enable.idempotence": acks == "all", "linger.ms": 5,
                                                "delivery.timeout.ms": int(delivery_timeout_s * 1000)})
        self.ledger = LedgerWriter(ledger_dir)  # closed in stop()
        self.sent = self.acked = self.failed = 0
        self._recent = collections.deque(maxlen=self.RECENT)  # (partition, sent_at) of each acknowledgement
        self._recent_lock = threading.Lock()  # delivery callbacks append from the writing thread
        self._stop, self._thread = threading.Event(), None

    def _on_delivery(self, err, msg):
        key, sent_at = msg.key().decode(), json.loads(msg.value())["at"]
        if err is not None:
            self.failed += 1
            self.ledger.failed(key, str(err), sent_at, round(time.time(), 3))
            return
        self.acked += 1
        self.ledger.add(msg.topic(), msg.partition(), msg.offset(), key, hashlib.sha256(msg.value()).digest(),
                        sent_at, round(time.time(), 3))
        with self._recent_lock:
            self._recent.append((msg.partition(), sent_at))

    def recent_acks(self):
        """(partition, sent_at) of the latest acknowledged records, oldest first."""
        with self._recent_lock:
            return list(self._recent)

    def _send(self, n):
        sent_at = round(time.time(), 3)
        value = json.dumps({"seq": n, "at": sent_at}).encode()
        while True:
            try:
                self.producer.produce(self.topic, key=f"canary-{n}".encode(), value=value,
                                      on_delivery=self._on_delivery)
                break
            except BufferError:  # the local queue is full: let deliveries drain
                self.producer.poll(0.1)
            except KafkaException as exc:
                # Refused at once (e.g. the topic unknown to a broker that had just restarted and answered the
                # metadata request first): a failed send, as an application sees it; the canary goes on writing.
                self.failed += 1
                self.ledger.failed(f"canary-{n}", str(exc.args[0]), sent_at, round(time.time(), 3))
                break
        self.sent += 1
        self.producer.poll(0)

    def _run(self):
        started = time.monotonic()
        while not self._stop.is_set() and (self.count is None or self.sent < self.count):
            due = int((time.monotonic() - started) * self.rate) + 1  # records due by now, paced
            # Unpaced (a huge rate), `due` runs far ahead: stop() must end this loop too.
            while self.sent < due and (self.count is None or self.sent < self.count) and not self._stop.is_set():
                self._send(self.first_seq + self.sent)
            self.producer.poll(0.01)
            self.ledger.tick()

    def start(self):
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def running(self):
        """False once `count` records were sent."""
        return self._thread is not None and self._thread.is_alive()

    def stop(self, flush_timeout=120):
        """Stop writing, wait for every outstanding delivery report, close the files; returns the
        number of records never reported (0 unless the cluster stayed unreachable past the timeout)."""
        self._stop.set()
        if self._thread:
            self._thread.join()
        unreported = self.producer.flush(flush_timeout)
        self.ledger.close()
        return unreported

    def summary(self):
        return {"topic": self.topic, "sent": self.sent, "acked": self.acked, "failed": self.failed}
