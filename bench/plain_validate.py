"""The validator's lost-records check done the plain way, for bench/validator.py to compare with Spark:
one Python process loads the canary's ledger folder (its Parquet segments with pyarrow, and its JSONL tails)
into a dict, reads every record of the ledger's partitions back with a confluent-kafka consumer, and compares
SHA-256 digests. Prints {"records": n, "lost": n} as JSON.

Run: python bench/plain_validate.py LEDGER_FOLDER CLIENT_SETTINGS (the JSON file of playbooks/client_settings.yml)
"""

import hashlib
import json
import os
import pathlib
import sys

import pyarrow.parquet as pq
from confluent_kafka import Consumer, TopicPartition

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from canary.ledger import ledger_files  # noqa: E402


def load_ledger(folder):
    """{(topic, partition, offset): digest bytes} of every acknowledged record."""
    expected = {}
    segments, tails = ledger_files(os.listdir(folder))
    for name in segments:
        table = pq.read_table(os.path.join(folder, name), columns=["topic", "partition", "offset", "sha256"])
        columns = [table.column(c).to_pylist() for c in ("topic", "partition", "offset", "sha256")]
        for topic, partition, offset, digest in zip(*columns, strict=True):
            expected[(topic, partition, offset)] = digest
    for name in tails:
        with open(os.path.join(folder, name), encoding="utf-8") as tail:
            for line in tail:
                r = json.loads(line)
                expected[(r["topic"], r["partition"], r["offset"])] = bytes.fromhex(r["sha256"])
    return expected


def consumer_from_start(client_settings_path, topics, group):
    """(a consumer assigned every non-empty partition of the topics from its first offset, how many)."""
    with open(client_settings_path, encoding="utf-8") as settings:
        client_conf = json.load(settings)["kafka"]
    consumer = Consumer(client_conf | {"group.id": group, "enable.auto.commit": False, "enable.partition.eof": True})
    partitions = []
    for topic in topics:
        for p in consumer.list_topics(topic, timeout=30).topics[topic].partitions:
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30)
            if high > low:
                partitions.append(TopicPartition(topic, p, low))
    consumer.assign(partitions)
    return consumer, len(partitions)


def main(ledger_folder, client_settings_path):
    expected = load_ledger(ledger_folder)
    consumer, remaining = consumer_from_start(client_settings_path, {t for t, _, _ in expected}, "plain-validate")
    intact = 0
    while remaining:
        for msg in consumer.consume(num_messages=10000, timeout=5):
            if msg.error():
                remaining -= 1  # end of a partition (or an error: its other records count as lost)
                continue
            value = msg.value()
            if expected.get((msg.topic(), msg.partition(), msg.offset())) == (
                    hashlib.sha256(value).digest() if value is not None else None):
                intact += 1
    consumer.close()
    print(json.dumps({"records": len(expected), "lost": len(expected) - intact}))


if __name__ == "__main__":
    main(*sys.argv[1:])
