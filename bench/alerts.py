"""What the metrics cost and what planned work sends, on the lab (issue 53's benchmarks):

- scrape cost: a broker's scrape duration and series (Prometheus's own scrape_duration_seconds and
  scrape_samples_scraped of job kafka_broker) with about 100 and about 3,000 partitions in the cluster (a topic of that
  many partitions, RF 3, made for the measurement and deleted after);
- the agent's cost: the canary's highest sustained acks=all rate with the agent and without it (site.yml with
  kafka_metrics_enabled=false, a gated roll; then site.yml again), --rounds rounds, the order swapped each round;
  the ratio of the medians.

Prints the figures and writes them to .cache/bench/alerts.json. Fault-to-notification times and the notifications of
planned work (a roll, a rebuild): the drill, tests/drills/alerts.py (its medians: --rounds 3).

Run: make bench-alerts-cost   (a fresh lab; it rolls the cluster twice per round)   make bench-alerts: every figure
"""

import argparse
import json
import pathlib
import statistics
import sys
import tempfile
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from canary import Canary, ensure_topic  # noqa: E402
from canary.ledger import read_acked  # noqa: E402
from lab import ansible  # noqa: E402
from lab.cluster_settings import kafka_config  # noqa: E402
from lab.monitoring import query  # noqa: E402
from lab.traffic import delete_topic  # noqa: E402


def playbook(*args):
    done = ansible.playbook(*args)
    if done.returncode:
        sys.exit(f"{' '.join(args)} failed:\n{done.stdout[-3000:]}{done.stderr[-2000:]}")


def scrape_cost(partitions, settle_s=60):
    """{partitions, scrape_s (mean over the brokers), series (mean)} with a topic of `partitions` partitions."""
    topic = f"bench-scrape-{uuid.uuid4().hex[:6]}"
    ensure_topic(kafka_config(), topic, partitions=partitions, replication_factor=3, timeout=300)
    try:
        time.sleep(settle_s)  # several scrapes of every broker with the topic in place
        return {"partitions": partitions,
                "scrape_s": round(query('avg(avg_over_time(scrape_duration_seconds{job="kafka_broker"}[30s]))'), 3),
                "series": round(query('avg(avg_over_time(scrape_samples_scraped{job="kafka_broker"}[30s]))'))}
    finally:
        delete_topic(None, topic)


def highest_rate(records, work):
    """The canary's acknowledged records per second, unpaced, acks=all, on a fresh topic (12 partitions, RF 3)."""
    topic = f"canary-bench-{uuid.uuid4().hex[:6]}"
    ensure_topic(kafka_config(), topic, partitions=12, replication_factor=3)
    ledger = work / topic
    canary = Canary(kafka_config(principal="canary"), topic, ledger, rate=10 ** 9, count=records).start()
    started = time.monotonic()
    while canary.running():
        time.sleep(0.2)
    canary.stop()
    elapsed = time.monotonic() - started
    delete_topic(None, topic)
    return len(read_acked(ledger)) / elapsed


def agent_cost(rounds, records, work):
    """{with, without: [records/s per round], ratio: median with / median without}."""
    rates = {"with": [], "without": []}
    for number in range(rounds):
        for agent in (("with", "without") if number % 2 == 0 else ("without", "with")):
            playbook("playbooks/site.yml", "-e", f"kafka_metrics_enabled={str(agent == 'with').lower()}")
            rates[agent].append(round(highest_rate(records, work)))
    playbook("playbooks/site.yml")  # the agent back, as the inventory says
    return {**rates, "ratio": round(statistics.median(rates["with"]) / statistics.median(rates["without"]), 3)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--records", type=int, default=100_000)
    args = parser.parse_args()
    figures = {"scrape": [scrape_cost(100), scrape_cost(3000)]}
    with tempfile.TemporaryDirectory() as work:
        figures["agent"] = agent_cost(args.rounds, args.records, pathlib.Path(work))
    out = REPO / ".cache" / "bench" / "alerts.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
