"""The end of `make demo`, on a freshly deployed lab: data and an acks=all producer, kafka2's power cut,
kafka4 takes over broker id 2 with replace_broker.yml, and every acknowledged message is read back.

Run: make demo (it boots a fresh lab and deploys it first).
"""

import pathlib
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from kazoo.client import KazooClient  # noqa: E402

from lab import config, machines  # noqa: E402
from lab.traffic import AckedProducer, fill, read_all  # noqa: E402

TOPIC = "demo-orders"
THROTTLE = 20 * 1024 * 1024


def step(text):
    print(f"\n=== {text}", flush=True)


def main():
    hosts = {h.name: h for h in config.load_hosts()}
    bootstrap = ",".join(f"{h.address}:9092" for h in hosts.values() if "kafka_broker" in h.groups)
    zookeeper = ",".join(f"{h.address}:2181" for h in hosts.values() if "zookeeper" in h.groups) + "/kafka"

    step(f"topic {TOPIC} (12 partitions, RF 3) with 256 MiB, and an acks=all producer writing 500 msg/s")
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, num_partitions=12, replication_factor=3)])[TOPIC].result(30)
    time.sleep(3)  # every broker learns the new topic
    filled = fill(bootstrap, TOPIC, 256 * 1024 * 1024)
    producer = AckedProducer(bootstrap, TOPIC, rate=500)
    producer.start()
    time.sleep(5)

    step("kafka2 loses power (no clean shutdown)")
    machines.power_off(hosts["kafka2"])
    zk = KazooClient(hosts=zookeeper)
    zk.start(timeout=15)
    started = time.monotonic()
    while zk.exists("/brokers/ids/2"):
        print(f"  broker 2 still registered: its ZooKeeper session has not expired yet "
              f"({time.monotonic() - started:.0f}s)", flush=True)
        time.sleep(3)
    zk.stop()
    print(f"  broker 2 left /brokers/ids after {time.monotonic() - started:.0f}s", flush=True)

    command = ["ansible-playbook", "playbooks/replace_broker.yml", "-e", "failed_host=kafka2",
               "-e", "replacement_host=kafka4", "-e", f"replication_throttle_bytes_per_sec={THROTTLE}"]
    step(" ".join(command))
    replaced = subprocess.run(command, cwd=REPO)
    unreported = producer.stop()
    if replaced.returncode != 0:
        sys.exit("replace_broker.yml failed: see its output above")

    step("every acknowledged message read back")
    read = read_all(bootstrap, TOPIC, len(producer.acked) + filled)
    lost = len(producer.acked - read)
    print(f"  acknowledged while kafka2 failed and kafka4 took over: {len(producer.acked)}; failed sends: "
          f"{len(producer.failed)}; never reported: {unreported}; read back: {len(producer.acked) - lost}; "
          f"LOST: {lost}")

    step("the cluster now")
    subprocess.run(["ansible-playbook", "playbooks/cluster_summary.yml"], cwd=REPO, check=True)
    print("\nThe lab now runs broker 2 on kafka4 and kafka2 is off (the inventory still says kafka2: "
          "make lab-down resets the lab).")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
