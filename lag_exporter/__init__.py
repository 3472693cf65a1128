"""The kit's consumer lag exporter: for every consumer group, how far its committed offset is behind each partition's
end, served to Prometheus as kafka_consumergroup_lag{group, topic, partition}. It logs in as its own principal (the
connection role's kafka_lag_exporter_principal), which may only describe groups and topics: it reads no record and
changes nothing (module_utils/kafka_principals.py).

Runs with the confluent-kafka of Debian bookworm (1.7, on the monitoring host) and later ones: the groups from
AdminClient.list_groups, a group's committed offsets from a Consumer of its id that never joins it (committed), the
partitions' ends in one request (offsets_for_times at OFFSET_END)."""

import time

from confluent_kafka import OFFSET_END, Consumer, TopicPartition
from confluent_kafka.admin import AdminClient

NO_OFFSET = 0  # committed offsets below this (OFFSET_INVALID, -1001) mean "none committed"


def lag_rows(committed, ends):
    """[(group, topic, partition, lag)] sorted: the end offset less the committed one, never below 0, for every
    partition a group committed an offset for and whose end is known. committed: {group: {(topic, partition):
    offset}}, ends: {(topic, partition): end offset}."""
    rows = []
    for group, offsets in committed.items():
        for (topic, partition), offset in offsets.items():
            if offset >= NO_OFFSET and (topic, partition) in ends:
                rows.append((group, topic, partition, max(0, ends[(topic, partition)] - offset)))
    return sorted(rows)


def read_cluster(conf, timeout=10):
    """({group: {(topic, partition): committed offset}}, {(topic, partition): end offset}) of every consumer group, as
    the principal of `conf` (librdkafka settings) may see them."""
    groups = [g.id for g in AdminClient(conf).list_groups(timeout=timeout)]
    committed, ends = {}, {}
    for group in groups:
        consumer = Consumer({**conf, "group.id": group, "enable.auto.commit": False})
        try:
            topics = consumer.list_topics(timeout=timeout).topics
            partitions = [TopicPartition(name, p) for name, topic in topics.items() if not name.startswith("__")
                          for p in topic.partitions]
            offsets = {(tp.topic, tp.partition): tp.offset for tp in consumer.committed(partitions, timeout=timeout)
                       if tp.error is None and tp.offset >= NO_OFFSET}
            wanted = [TopicPartition(t, p, OFFSET_END) for (t, p) in offsets if (t, p) not in ends]
            for tp in consumer.offsets_for_times(wanted, timeout=timeout) if wanted else []:
                if tp.error is None and tp.offset >= 0:
                    ends[(tp.topic, tp.partition)] = tp.offset
            committed[group] = offsets
        finally:
            consumer.close()
    return committed, ends


class LagCollector:
    """The prometheus_client collector: reads the cluster at each scrape (read: a function returning read_cluster's
    pair) and yields the lag of every group and partition, and whether the read failed."""

    def __init__(self, read):
        self._read = read

    def collect(self):
        from prometheus_client.core import GaugeMetricFamily
        lag = GaugeMetricFamily("kafka_consumergroup_lag", "Records between a group's committed offset and the "
                                "partition's end", labels=["group", "topic", "partition"])
        failed = GaugeMetricFamily("kafka_consumergroup_lag_read_failed", "1 when the last read of the cluster failed")
        started = time.monotonic()
        try:
            for group, topic, partition, behind in lag_rows(*self._read()):
                lag.add_metric([group, topic, str(partition)], behind)
            failed.add_metric([], 0)
        except Exception:  # noqa: BLE001 - any failure to read is what this gauge reports; the scrape goes on
            failed.add_metric([], 1)
        seconds = GaugeMetricFamily("kafka_consumergroup_lag_read_seconds", "How long the last read took")
        seconds.add_metric([], time.monotonic() - started)
        yield from (lag, failed, seconds)
