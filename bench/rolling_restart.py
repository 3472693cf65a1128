"""Rolling restart of the lab's three brokers under load: the total roll time against the sum of each
broker's own stop + start + catch-up time measured inside the run (the floor a perfect orchestrator
could reach), their ratio, and how many acknowledged messages were lost; three rolls, and the median ratio (the
figure).

Run: make bench-roll   (the lab must be up and deployed: make deploy)
"""

import json
import pathlib
import statistics
import sys
import tempfile
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from lab import ansible, cluster_settings  # noqa: E402
from lab.cluster_settings import kafka_config  # noqa: E402
from lab.traffic import AckedProducer, read_all  # noqa: E402


def roll_figures(report):
    """(roll time, floor: the sum of each broker's own stop + start + catch-up, their ratio) of a
    rolling_restart.yml report (rolling_restart_report)."""
    floor = sum(b["stop"] + b["start"] + b["healthy_gate"] for b in report["brokers"])
    total = float(report["total_seconds"])
    return total, floor, round(total / floor, 2)


def one_roll(bootstrap):
    """One roll under load; prints its figures and returns its ratio."""
    topic = f"bench-roll-{uuid.uuid4().hex[:6]}"
    admin = AdminClient(kafka_config(bootstrap))
    admin.create_topics([NewTopic(topic, num_partitions=6, replication_factor=3)])[topic].result(30)
    time.sleep(3)  # every broker learns the new topic
    producer = AckedProducer(bootstrap, topic, rate=1000)
    producer.start()
    time.sleep(5)
    with tempfile.TemporaryDirectory() as tmp:
        report_path = pathlib.Path(tmp) / "roll.json"
        started = time.monotonic()
        proc = ansible.playbook("playbooks/rolling_restart.yml", extra_vars={"rolling_restart_report": report_path})
        wall = time.monotonic() - started
        unreported = producer.stop()
        if proc.returncode != 0:
            sys.exit(f"rolling_restart.yml failed:\n{proc.stdout[-5000:]}")
        report = json.loads(report_path.read_text())
    read = read_all(bootstrap, topic, len(producer.acked))
    # A fresh client (kept referenced until done): the old one still asks the controller of before the roll.
    fresh = AdminClient(kafka_config(bootstrap))
    fresh.delete_topics([topic])[topic].result(30)

    total, floor, ratio = roll_figures(report)
    print(f"order: {' -> '.join(report['order'])} "
          f"(controller at start: broker {report['controller_at_start']})")
    for b in report["brokers"]:
        print(f"  {b['host']}: stop {b['stop']}s + start {b['start']}s + catch-up {b['healthy_gate']}s "
              f"(safe-to-stop gate {b['safe_to_stop_gate']}s, step total {b['total']}s)")
    print(f"roll time (first plan to summary): {total:.1f} s; ansible-playbook wall time: {wall:.1f} s")
    print(f"floor (sum of stop + start + catch-up): {floor:.1f} s")
    print(f"ratio roll / floor: {total / floor:.2f}")
    print(f"acknowledged: {len(producer.acked)}, failed deliveries: {len(producer.failed)}, never reported: "
          f"{unreported}, lost (acknowledged but not read back): {len(producer.acked - read)}")
    return ratio


def main():
    bootstrap = cluster_settings.load()["bootstrap_servers"]
    ratios = []
    for n in range(1, 4):
        print(f"roll {n} of 3")
        ratios.append(one_roll(bootstrap))
    print(f"ratio roll / floor, median of 3: {statistics.median(ratios):.2f} ({', '.join(map(str, ratios))})")


if __name__ == "__main__":
    main()
