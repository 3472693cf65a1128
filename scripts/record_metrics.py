"""Records what the nodes of a running cluster serve on their metrics endpoints, for the alert rules' test: every
metric a rule uses must be in a recording (tests/unit/test_alert_rules.py), so a metric that a release renames fails
CI. Reads the endpoints and the scrape login from the lab's client settings (lab/cluster_settings.py), scrapes the
first node of each kind, a node exporter, the blackbox exporter's probe of a listener and the lag exporter (a group
committed on --lag-topic first), and writes tests/fixtures/metrics/<metadata mode>-<release>/<kind>.prom (HELP lines
dropped), the release read from the brokers' own kafka_server_release metric.

    PYTHONPATH=. python scripts/record_metrics.py [--out tests/fixtures/metrics]     (make record-metrics)
"""

import argparse
import pathlib
import re
import sys
import time

from confluent_kafka import Consumer, KafkaException, TopicPartition

from lab import cluster_settings
from lab.monitoring import get, prometheus, scrape

_RELEASE = re.compile(r'^kafka_server_release\{[^}]*version="([^"]+)"', re.MULTILINE)


def _text(endpoint):
    status, text = scrape(endpoint)
    if status != 200:
        sys.exit(f"{endpoint} answered HTTP {status}")
    return text


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("tests/fixtures/metrics"))
    parser.add_argument("--lag-topic", default="canary", help="a topic with records, for a group's lag")
    args = parser.parse_args(argv)
    settings = cluster_settings.load()
    metrics = settings["metrics"]
    if not any(metrics["targets"].values()):
        sys.exit("the lab inventory names no metrics endpoint: is kafka_metrics_enabled false?")
    # the first node of each kind, and the first host's node exporter
    targets = {**metrics["targets"], "node": metrics.get("node_targets") or {}}
    texts = {kind: _text(next(iter(endpoints.values()))) for kind, endpoints in targets.items() if endpoints}
    # and what the monitoring host's blackbox exporter reads of a listener's certificate
    probe = next(t["scrapeUrl"] for t in prometheus("/api/v1/targets")["activeTargets"]
                 if t["labels"]["job"] == "blackbox")
    texts["blackbox"] = get(9115, probe.split("127.0.0.1:9115", 1)[1])
    # and the lag exporter's, once a group has committed an offset (of the canary's topic, which make record-metrics
    # writes) and a scrape has read it
    consumer = Consumer(cluster_settings.kafka_config() | {"group.id": "record-metrics", "enable.auto.commit": False})
    for attempt in range(6):  # on a fresh cluster the group's coordinator may still be moving
        try:
            consumer.commit(offsets=[TopicPartition(args.lag_topic, 0, 0)], asynchronous=False)
            break
        except KafkaException:
            if attempt == 5:
                raise
            time.sleep(5)
    consumer.close()
    deadline = time.monotonic() + 60
    while "kafka_consumergroup_lag{" not in texts.get("lag_exporter", "") and time.monotonic() < deadline:
        time.sleep(5)
        texts["lag_exporter"] = get(9308, "/metrics")
    releases = set(_RELEASE.findall(texts.get("kafka_broker", "")))
    if len(releases) != 1:
        sys.exit(f"the broker's kafka_server_release names {sorted(releases) or 'no release'}: expected one")
    folder = args.out / f"{settings['metadata_mode']}-{releases.pop()}"
    folder.mkdir(parents=True, exist_ok=True)
    for kind, text in texts.items():
        kept = [line for line in text.splitlines() if not line.startswith("# HELP")]
        (folder / f"{kind}.prom").write_text("\n".join(kept) + "\n")
        print(f"{folder / (kind + '.prom')}: {sum(1 for line in kept if not line.startswith('#'))} series")


if __name__ == "__main__":
    main()
