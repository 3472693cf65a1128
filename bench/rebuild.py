"""rebuild_broker.yml on kafka3 with about 1 GiB on it across 24 partitions:

- throttled: the wall time of the playbook and the replication rate measured on kafka3's disk, against
  the throttle (rate / throttle, and copy time / (bytes / throttle));
- unthrottled (a throttle far above anything the lab can do): the replication rate, against
- the lab's raw copy rate, the floor: the same segment files sent from kafka1 and kafka2 (half each, in
  parallel, like the rebuilt broker's two fetchers) to kafka3 over plain TCP and written to its data disk
  (to the page cache, as Kafka writes).

Run: make bench-rebuild   (the lab must be up and deployed: make deploy; takes about 5 minutes)
"""

import argparse
import pathlib
import sys
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from lab import ansible, cluster_settings, config, machines  # noqa: E402
from lab.cluster_settings import kafka_config  # noqa: E402
from lab.measure import LogBytesSampler, copy_window  # noqa: E402
from lab.traffic import fill  # noqa: E402

MIB = 1024 * 1024
TOPIC = "bench-rebuild"
RAW_PORT = 9999
RAW_FILE = "/var/lib/kafka/rawcopy.bin"
# Receives one stream per sender into files on the data disk, left to the page cache as Kafka does
# (no fsync); prints the bytes and the seconds from the first byte to the last.
RECEIVER = f"""
import socket, threading, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", {RAW_PORT})); s.listen(2); print("ready", flush=True)
got, first, last = [], [], []
def receive(c, n):
    total = 0
    with open("{RAW_FILE}." + str(n), "wb") as f:
        while True:
            b = c.recv(1 << 20)
            first.append(time.monotonic())
            if not b: break
            f.write(b); total += len(b)
    last.append(time.monotonic()); got.append(total)
threads = [threading.Thread(target=receive, args=(s.accept()[0], n)) for n in range(2)]
[t.start() for t in threads]; [t.join() for t in threads]
print(sum(got), max(last) - min(first))
"""
# Sends every other partition of the topic (by partition number), so two brokers send half each, as
# the rebuilt broker's two fetchers do.
SENDER = f"""
import glob, socket
c = socket.create_connection(("{{address}}", {RAW_PORT}))
for path in sorted(glob.glob("/var/lib/kafka/data/{TOPIC}-*/*.log")):
    if int(path.split("/")[-2].rsplit("-", 1)[1]) % 2 == {{half}}:
        with open(path, "rb") as f:
            c.sendfile(f)
c.close()
"""


def rebuild(throttle):
    """Run the playbook; returns (wall seconds, bytes copied, copy seconds)."""
    sampler = LogBytesSampler(config.host("kafka3"), interval=0.1)
    sampler.start()
    started = time.monotonic()
    proc = ansible.playbook("playbooks/rebuild_broker.yml", "-e", "broker_host=kafka3",
                            "-e", f"replication_throttle_bytes_per_sec={throttle}")
    wall = time.monotonic() - started
    samples = sampler.stop()
    if proc.returncode != 0:
        sys.exit(f"rebuild_broker.yml failed:\n{proc.stdout[-5000:]}\n{proc.stderr[-3000:]}")
    copied, seconds = copy_window(samples)
    return wall, copied, seconds


def raw_copy():
    """(bytes, seconds) of the topic's segment files sent by kafka1 and kafka2 (half each, in parallel)
    to kafka3's data disk over plain TCP."""
    receiver = config.host("kafka3")
    with (machines.ssh(receiver) as rx, machines.ssh(config.host("kafka1")) as tx1,
          machines.ssh(config.host("kafka2")) as tx2):
        _, rx_out, rx_err = rx.exec_command(f"python3 -c '{RECEIVER}'", timeout=600)
        if rx_out.readline().strip() != "ready":
            sys.exit(f"raw copy receiver failed: {rx_err.read().decode()}")
        senders = [tx.exec_command(f"python3 -c '{SENDER.format(address=receiver.address, half=half)}'",
                                   timeout=600) for half, tx in enumerate((tx1, tx2))]
        for _, out, err in senders:
            if out.channel.recv_exit_status() != 0:
                sys.exit(f"raw copy sender failed: {err.read().decode()}")
        copied, seconds = rx_out.read().decode().split()
        rx.exec_command(f"rm -f {RAW_FILE}.*")[1].channel.recv_exit_status()
    return int(copied), float(seconds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0, help="data to put on the rebuilt broker")
    parser.add_argument("--throttle-mib", type=float, default=16.0, help="throttle of the throttled run")
    args = parser.parse_args()
    bootstrap = cluster_settings.load()["bootstrap_servers"]
    admin = AdminClient(kafka_config(bootstrap))
    admin.create_topics([NewTopic(TOPIC, num_partitions=24, replication_factor=3)])[TOPIC].result(30)
    time.sleep(3)  # every broker learns the new topic
    try:
        started = time.monotonic()
        acked = fill(bootstrap, TOPIC, int(args.gib * 1024 * MIB))
        print(f"data: {acked} x 64 KiB acknowledged in {time.monotonic() - started:.1f}s")
        throttle = int(args.throttle_mib * MIB)
        wall, copied, seconds = rebuild(throttle)
        rate = copied / seconds
        ideal = copied / throttle
        print(f"throttled at {throttle / MIB:.1f} MiB/s: copied {copied / MIB:.0f} MiB in {seconds:.1f}s = "
              f"{rate / MIB:.2f} MiB/s; rate / throttle = {rate / throttle:.3f}; "
              f"copy time / (bytes / throttle) = {seconds / ideal:.3f}; "
              f"playbook wall time {wall:.1f}s (wall / (bytes / throttle) = {wall / ideal:.2f})")
        wall, copied, seconds = rebuild(1024 ** 4)  # 1 TiB/s: no limit the lab can reach
        free_rate = copied / seconds
        print(f"unthrottled: copied {copied / MIB:.0f} MiB in {seconds:.1f}s = {free_rate / MIB:.2f} MiB/s; "
              f"playbook wall time {wall:.1f}s")
        raw_bytes, raw_seconds = raw_copy()
        raw_rate = raw_bytes / raw_seconds
        print(f"raw copy kafka1 + kafka2 -> kafka3 disk: {raw_bytes / MIB:.0f} MiB in {raw_seconds:.1f}s = "
              f"{raw_rate / MIB:.2f} MiB/s; unthrottled rebuild / raw copy = {free_rate / raw_rate:.2f}")
    finally:
        fresh = AdminClient(kafka_config(bootstrap))  # referenced until the result
        fresh.delete_topics([TOPIC])[TOPIC].result(30)


if __name__ == "__main__":
    main()
