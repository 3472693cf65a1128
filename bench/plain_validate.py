"""The validator's lost-records check done the plain way, for bench/validator.py to compare with Spark:
one Python process loads the whole ledger into a dict, reads every record of the ledger's topics back
with a confluent-kafka consumer, and compares digests. Prints {"records": n, "lost": n} as JSON.

Run: python bench/plain_validate.py LEDGER CLIENT_SETTINGS (the JSON file of playbooks/client_settings.yml)
"""

import hashlib
import json
import sys

from confluent_kafka import Consumer, TopicPartition


def main(ledger_path, client_settings_path):
    expected = {}
    with open(ledger_path, encoding="utf-8") as ledger:
        for line in ledger:
            if line.strip():
                r = json.loads(line)
                expected[(r["topic"], r["partition"], r["offset"])] = r["sha256"]
    with open(client_settings_path, encoding="utf-8") as settings:
        client_conf = json.load(settings)["kafka"]
    consumer = Consumer(client_conf | {"group.id": "plain-validate",
                         "enable.auto.commit": False, "enable.partition.eof": True})
    partitions = []
    for topic in {t for t, _, _ in expected}:
        for p in consumer.list_topics(topic, timeout=30).topics[topic].partitions:
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30)
            if high > low:
                partitions.append(TopicPartition(topic, p, low))
    consumer.assign(partitions)
    remaining, intact = len(partitions), 0
    while remaining:
        for msg in consumer.consume(num_messages=10000, timeout=5):
            if msg.error():
                remaining -= 1  # end of a partition (or an error: its other records count as lost)
                continue
            key = (msg.topic(), msg.partition(), msg.offset())
            value = msg.value()
            if key in expected and expected[key] == (hashlib.sha256(value).hexdigest() if value else None):
                intact += 1
    consumer.close()
    print(json.dumps({"records": len(expected), "lost": len(expected) - intact}))


if __name__ == "__main__":
    main(*sys.argv[1:])
