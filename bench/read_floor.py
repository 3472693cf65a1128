"""The floor of reading the records back: a confluent-kafka consumer that reads every record of a topic once
and checks nothing (no ledger, no digest), for bench/validator.py. Prints {"records": n} as JSON.

Run: python bench/read_floor.py TOPIC CLIENT_SETTINGS (the JSON file of playbooks/client_settings.yml)
"""

import json
import sys

from confluent_kafka import Consumer, TopicPartition


def main(topic, client_settings_path):
    with open(client_settings_path, encoding="utf-8") as settings:
        client_conf = json.load(settings)["kafka"]
    consumer = Consumer(client_conf | {"group.id": "read-floor", "enable.auto.commit": False,
                                       "enable.partition.eof": True})
    partitions = []
    for p in consumer.list_topics(topic, timeout=30).topics[topic].partitions:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30)
        if high > low:
            partitions.append(TopicPartition(topic, p, low))
    consumer.assign(partitions)
    remaining, records = len(partitions), 0
    while remaining:
        for msg in consumer.consume(num_messages=10000, timeout=5):
            if msg.error():
                remaining -= 1  # end of a partition
            else:
                records += 1
    consumer.close()
    print(json.dumps({"records": records}))


if __name__ == "__main__":
    main(*sys.argv[1:])
