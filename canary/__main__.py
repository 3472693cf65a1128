"""python -m canary: write canary records and their ledger until a count, a duration, or SIGTERM/SIGINT.

  python -m canary (--client-settings FILE | --bootstrap-servers kafka1:9092) --ledger run/ledger [--topic canary]
                   [--rate 200] [--count N | --duration SECONDS] [--acks 1]

Prints one JSON line at the end: topic, sent, acked, failed, unreported. Exits 0 when every record was reported,
1 when some were not, 2 when its topic is missing and its principal may not create it (the kit's canary principal
writes and reads only: the kit's admin creates the topic first).
"""

import argparse
import json
import signal
import sys
import threading

from . import Canary, TopicNotAllowed, client_config, ensure_topic


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m canary", description=__doc__.splitlines()[0])
    cluster = parser.add_mutually_exclusive_group(required=True)
    cluster.add_argument("--client-settings", help="the JSON file playbooks/client_settings.yml writes "
                                                   "(addresses and security)")
    cluster.add_argument("--bootstrap-servers", help="host:port,... of an open (PLAINTEXT) cluster")
    parser.add_argument("--topic", default="canary")
    parser.add_argument("--partitions", type=int, default=6, help="when the topic has to be created")
    parser.add_argument("--replication-factor", type=int, default=3, help="when the topic has to be created")
    parser.add_argument("--rate", type=float, default=100, help="records per second")
    parser.add_argument("--acks", choices=["all", "1"], default="all",
                        help="all (idempotent, the default) or 1 (for negative controls)")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--count", type=int, help="stop after this many records")
    limit.add_argument("--duration", type=float, help="stop after this many seconds")
    parser.add_argument("--ledger", required=True, help="a folder: acknowledged records and failed deliveries "
                                                        "are added to it (canary/ledger.py)")
    parser.add_argument("--delivery-timeout", type=float, default=120,
                        help="seconds a record may wait for its acknowledgement before it counts as failed")
    args = parser.parse_args(argv)

    conf = client_config(args.client_settings, args.bootstrap_servers)
    try:
        ensure_topic(conf, args.topic, args.partitions, args.replication_factor)
    except TopicNotAllowed as exc:
        print(f"python -m canary: {exc}", file=sys.stderr)
        return 2
    canary = Canary(conf, args.topic, args.ledger,
                    rate=args.rate, count=args.count, acks=args.acks,
                    delivery_timeout_s=args.delivery_timeout)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    canary.start()
    if args.count is not None:
        while canary.running() and not stop.is_set():
            stop.wait(0.2)
    else:
        stop.wait(args.duration)
    unreported = canary.stop()
    print(json.dumps(dict(canary.summary(), unreported=unreported)), flush=True)
    return 0 if unreported == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
