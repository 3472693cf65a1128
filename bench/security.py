"""What security costs the canary on the lab: its highest sustained acks=all rate and its acknowledgement
latency (p50, p99) over PLAINTEXT and over SASL_SSL (SCRAM-SHA-512, TLS), on the same brokers, and their ratio.

The secured lab has no PLAINTEXT listener: the benchmark adds one for the measurement (site.yml with
kafka_plaintext_listener=true, named in kafka_security_exposures_accepted; a gated roll), lets User:ANONYMOUS
write to the benchmark's topics, measures, then takes both away again (the ACLs through kafka_access.yml, the
listener with another site.yml roll). Each protocol gets a fresh topic (12 partitions, RF 3) in each of --rounds
rounds, the order of the protocols swapped each round: the first run after the roll meets a cluster still
settling. The roll's ratio on the secured cluster: make bench-roll.

- highest sustained rate: the canary unpaced (as fast as acks=all lets it) for --records; acknowledged / time.
- latency: the canary paced at --paced-rate for --seconds; acked_at - sent_at of every ledger line.

Run: make bench-security   (on a deployed lab: make deploy)
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
from lab import ansible, cluster_settings  # noqa: E402
from lab.cluster_settings import kafka_config  # noqa: E402
from lab.traffic import delete_topic  # noqa: E402

PLAINTEXT_PORT = 9092  # the kafka_broker role's kafka_plaintext_port


def playbook(*args):
    done = ansible.playbook(*args)
    if done.returncode:
        sys.exit(f"ansible-playbook {' '.join(args)} failed:\n{done.stdout[-3000:]}")


def anonymous_writes(topic_prefix, state):
    """kafka_access.yml: User:ANONYMOUS may (state present) or may no longer (absent) write the topics."""
    acls = [{"principal": "User:ANONYMOUS", "resource_type": "topic", "resource_name": topic_prefix,
             "pattern_type": "prefixed", "operation": op} for op in ("write", "describe")]
    acls.append({"principal": "User:ANONYMOUS", "resource_type": "cluster", "operation": "idempotent_write"})
    playbook("playbooks/kafka_access.yml", "-e", json.dumps({"kafka_acls" if state == "present" else
                                                              "kafka_acls_absent": acls}))


def measure(conf, topic, records, seconds, paced_rate, work):
    """(records/s acknowledged unpaced, p50 and p99 latency in ms paced) for one client configuration."""
    ensure_topic(kafka_config(), topic, partitions=12, replication_factor=3)  # made by the kit's admin
    results = {}
    # A count ends each run: both runs measure a known amount of work.
    for name, rate, count in (("unpaced", 10 ** 9, records), ("paced", paced_rate, int(paced_rate * seconds))):
        ledger = work / f"{topic}-{name}"
        canary = Canary(conf, topic, ledger, rate=rate, count=count).start()
        started = time.monotonic()
        while canary.running():
            time.sleep(0.2)
        canary.stop()
        elapsed = time.monotonic() - started
        rows = read_acked(ledger)
        latencies = sorted((r["acked_at"] - r["sent_at"]) * 1000 for r in rows)
        results[name] = {"acked": len(rows), "failed": canary.failed, "rate": len(rows) / elapsed,
                         "p50_ms": statistics.median(latencies),
                         "p99_ms": latencies[int(0.99 * (len(latencies) - 1))]}
    delete_topic(None, topic)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=300_000, help="records of the unpaced measurement")
    parser.add_argument("--seconds", type=float, default=30, help="length of the paced measurement")
    parser.add_argument("--paced-rate", type=int, default=1000, help="records/s of the latency measurement")
    parser.add_argument("--rounds", type=int, default=2,
                        help="rounds, the order of the protocols swapped each round (what runs first after the "
                             "roll runs on a cluster still settling)")
    args = parser.parse_args()
    # The secured client is an application's: a SCRAM login on CLIENT, the canary's principal (its topics' prefix)
    prefix = f"canary-bench-security-{uuid.uuid4().hex[:6]}"
    secured = kafka_config(principal="canary")
    plaintext = {"bootstrap.servers": ",".join(
        f"{endpoint.rsplit(':', 1)[0]}:{PLAINTEXT_PORT}" for endpoint in cluster_settings.load()["brokers"].values()),
        "security.protocol": "PLAINTEXT"}
    print("adding a PLAINTEXT listener (site.yml, a gated roll) ...", flush=True)
    playbook("playbooks/site.yml", "-e", json.dumps(
        {"kafka_plaintext_listener": True, "kafka_security_exposures_accepted": ["kafka_plaintext_listener"]}))
    try:
        anonymous_writes(prefix, "present")
        with tempfile.TemporaryDirectory() as folder:
            work = pathlib.Path(folder)
            runs = {"PLAINTEXT": [], "SASL_SSL": []}
            order = [("PLAINTEXT", plaintext), ("SASL_SSL", secured)]
            for round_ in range(args.rounds):
                for protocol, conf in order if round_ % 2 == 0 else order[::-1]:
                    topic = f"{prefix}-{protocol.lower().replace('_', '-')}-{round_}"
                    runs[protocol].append(measure(conf, topic, args.records, args.seconds, args.paced_rate, work))
    finally:
        anonymous_writes(prefix, "absent")
        print("removing the PLAINTEXT listener (site.yml, a gated roll) ...", flush=True)
        playbook("playbooks/site.yml")
    for protocol, results in runs.items():
        for round_, result in enumerate(results):
            unpaced, paced = result["unpaced"], result["paced"]
            print(f"round {round_ + 1} {protocol}: highest sustained acks=all rate {unpaced['rate']:,.0f} records/s "
                  f"({unpaced['acked']:,} acknowledged, {unpaced['failed']} failed; p99 "
                  f"{unpaced['p99_ms']:.0f} ms); at {args.paced_rate}/s: p50 {paced['p50_ms']:.1f} ms, "
                  f"p99 {paced['p99_ms']:.1f} ms ({paced['failed']} failed)")

    def mean(protocol, run, figure):
        return statistics.mean(result[run][figure] for result in runs[protocol])
    ratio = mean("SASL_SSL", "unpaced", "rate") / mean("PLAINTEXT", "unpaced", "rate")
    p99 = mean("SASL_SSL", "paced", "p99_ms") / mean("PLAINTEXT", "paced", "p99_ms")
    print(f"SASL_SSL / PLAINTEXT over {args.rounds} rounds: rate {ratio:.0%} (goal: at least 70%), "
          f"paced p99 latency x{p99:.2f}")


if __name__ == "__main__":
    main()
