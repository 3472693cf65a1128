"""The floor of reading the records back: a confluent-kafka consumer that reads every record of a topic once
and checks nothing (no ledger, no digest), for bench/validator.py. Prints {"records": n} as JSON.

Run: python bench/read_floor.py TOPIC CLIENT_SETTINGS (the JSON file of playbooks/client_settings.yml)
"""

import json
import sys

from plain_validate import consumer_from_start


def main(topic, client_settings_path):
    consumer, remaining = consumer_from_start(client_settings_path, [topic], "read-floor")
    records = 0
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
