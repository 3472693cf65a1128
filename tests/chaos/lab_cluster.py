"""The lab cluster as the chaos scenarios see it: its hosts, who leads and who controls, waiting until it is
healthy again, and the project's playbooks run as an operator runs them."""

import hashlib
import json
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from lab import ansible, cluster_settings, config
from lab.cluster_settings import kafka_config, kazoo_client

# What settings() reads: the topic's durability settings, and the broker's timeouts that decide when a
# leader that is cut off or paused loses leadership.
TOPIC_SETTINGS = ("min.insync.replicas", "unclean.leader.election.enable")
BROKER_SETTINGS = ("zookeeper.session.timeout.ms", "replica.lag.time.max.ms", "inter.broker.protocol.version")


class LabCluster:
    def __init__(self):
        self.hosts = {h.name: h for h in config.load_hosts()}
        self.brokers = [h for h in self.hosts.values() if "kafka_broker" in h.groups]
        self.zookeepers = [h for h in self.hosts.values() if "zookeeper" in h.groups]
        self.spares = [h for h in self.hosts.values() if "kafka_spare" in h.groups]
        settings = cluster_settings.load()
        self.bootstrap, self.zookeeper_connect = settings["bootstrap_servers"], settings["zookeeper_connect"]
        self.broker_ids = set(range(1, len(self.brokers) + 1))

    def admin(self):
        return AdminClient(kafka_config(self.bootstrap))

    def broker_id(self, host):
        """The id of the broker registered under the host's name."""
        admin = self.admin()
        return next(b.id for b in admin.list_topics(timeout=10).brokers.values() if b.host == host.fqdn)

    def leader(self, topic, partition=0):
        """The lab host that leads the partition now."""
        admin = self.admin()
        metadata = admin.list_topics(topic, timeout=10)
        broker_id = metadata.topics[topic].partitions[partition].leader
        return config.host(metadata.brokers[broker_id].host)

    def controller(self):
        admin = self.admin()
        return config.host(admin.describe_cluster(request_timeout=10).result(15).controller.host)

    def _zookeeper(self, read):
        """read(client) with a fresh ZooKeeper session, closed afterwards."""
        zk = kazoo_client(self.zookeeper_connect)
        zk.start(timeout=15)
        try:
            return read(zk)
        finally:
            zk.stop()
            zk.close()

    def registered(self, broker_id):
        """Whether the broker is registered in ZooKeeper (its session is alive)."""
        return self._zookeeper(lambda zk: zk.exists(f"/brokers/ids/{broker_id}") is not None)

    def partition_state(self, topic, partition=0):
        """The partition's leader and ISR as the controller last wrote them to ZooKeeper: {"leader": id,
        "isr": [ids], "leader_epoch": n, ...}. The source of truth in ZooKeeper mode, unlike the metadata of
        a broker that is cut off (it goes on believing it leads)."""
        path = f"/brokers/topics/{topic}/partitions/{partition}/state"

        def read(zk):
            zk.sync(path)  # read what the ensemble's leader has, not a lagging server's copy
            return json.loads(zk.get(path)[0])
        return self._zookeeper(read)

    def settings(self, topic):
        """The durability settings in force for the topic, read from the cluster (for the report): brokers
        and ZooKeeper nodes, partitions and replication factor, the topic's min.insync.replicas and
        unclean leader election, a broker's session timeout and replica lag time."""
        admin = self.admin()
        metadata = admin.list_topics(topic, timeout=10)
        partitions = metadata.topics[topic].partitions

        def described(resource):  # one resource per request: a BROKER one goes to that broker
            return admin.describe_configs([resource], request_timeout=15)[resource].result(20)
        topic_config = described(ConfigResource(ResourceType.TOPIC, topic))
        broker_config = described(ConfigResource(ResourceType.BROKER, str(min(metadata.brokers))))
        return {
            "brokers": len(metadata.brokers), "zookeeper_nodes": len(self.zookeepers),
            "partitions": len(partitions), "replication_factor": len(partitions[0].replicas),
            **{key: topic_config[key].value for key in TOPIC_SETTINGS},
            **{key: broker_config[key].value for key in BROKER_SETTINGS},
        }

    def problems(self):
        """What keeps the cluster from being healthy: missing brokers, partitions without a leader or
        with a replica out of the ISR ([] when healthy)."""
        admin = self.admin()
        metadata = admin.list_topics(timeout=10)
        found = [f"broker {b} not registered" for b in sorted(self.broker_ids - set(metadata.brokers))]
        short = [f"{t}[{p.id}]" for t, topic in metadata.topics.items() for p in topic.partitions.values()
                 if p.leader < 0 or set(p.isrs) != set(p.replicas)]
        if short:
            found.append(f"{len(short)} partition(s) without a leader or a full ISR: {', '.join(short[:6])}")
        return found

    def wait_healthy(self, timeout=600):
        """Wait until every broker is registered and every partition has a leader and a full ISR (seen
        twice, a second apart: one broker's metadata may lag)."""
        started = time.monotonic()
        last_report, healthy_seen = started, 0
        while healthy_seen < 2:
            try:
                problems = self.problems()
            except Exception as exc:  # a broker that is going away times the request out
                problems = [f"metadata unavailable: {exc}"]
            healthy_seen = healthy_seen + 1 if not problems else 0
            waited = time.monotonic() - started
            if problems and waited > timeout:
                raise AssertionError(f"cluster not healthy after {timeout}s: {'; '.join(problems)}")
            if problems and time.monotonic() - last_report >= 10:
                print(f"  waiting for the cluster ({waited:.0f}s): {'; '.join(problems)}", flush=True)
                last_report = time.monotonic()
            time.sleep(1)
        return time.monotonic() - started

    def read_back(self, topic):
        """{(partition, offset): (key, sha256 of the value)} of every record readable in the topic now."""
        consumer = Consumer(kafka_config(self.bootstrap) | {"group.id": f"{topic}-read-back",
                             "enable.auto.commit": False})
        try:
            partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
            ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
                    for p in partitions}
            consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
            records, pending = {}, {p for p, end in ends.items() if end > 0}
            deadline = time.monotonic() + 300
            while pending and time.monotonic() < deadline:
                for msg in consumer.consume(num_messages=1000, timeout=1):
                    if msg.error():
                        continue  # end of partition and the like
                    key = msg.key().decode() if msg.key() is not None else None
                    records[(msg.partition(), msg.offset())] = (key, hashlib.sha256(msg.value()).hexdigest())
                    if msg.offset() + 1 >= ends[msg.partition()]:
                        pending.discard(msg.partition())
            if pending:
                raise AssertionError(f"{topic}: partitions {sorted(pending)} not read to their end in 300s")
            return records
        finally:
            consumer.close()


def run_playbook(playbook, *args):
    """Run one of the project's playbooks as an operator would; output is shown as it comes."""
    command = ansible.command(f"playbooks/{playbook}", *args)
    print(f"  $ {' '.join(command)}", flush=True)
    proc = ansible.run(command, env=ansible.environment(**ansible.NO_COLOR))
    print(proc.stdout[-6000:], proc.stderr[-3000:], flush=True)
    return proc
