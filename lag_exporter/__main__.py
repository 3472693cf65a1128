"""python -m lag_exporter: serve the consumer groups' lag to Prometheus until stopped.

  python -m lag_exporter --client-config FILE [--address 127.0.0.1] [--port 9308]

FILE: a JSON object of librdkafka settings (the lag exporter principal's login and the cluster's CA), as the
monitoring role writes it on the monitoring host.
"""

import argparse
import functools
import json
import signal
import threading

from prometheus_client import REGISTRY, start_http_server

from . import LagCollector, read_cluster


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m lag_exporter", description=__doc__.splitlines()[0])
    parser.add_argument("--client-config", required=True, help="librdkafka settings, a JSON object")
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9308)
    args = parser.parse_args(argv)
    with open(args.client_config, encoding="utf-8") as config:
        conf = json.load(config)
    REGISTRY.register(LagCollector(functools.partial(read_cluster, conf)))
    start_http_server(args.port, addr=args.address)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()


if __name__ == "__main__":
    main()
