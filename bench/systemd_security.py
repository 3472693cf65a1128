"""`systemd-analyze security` of the kit's service units on the lab: systemd's exposure score (0 = confined, 10 =
exposed) and its verdict for kafka.service on the brokers, zookeeper.service on the ZooKeeper members,
kafka-controller.service on the KRaft controllers, the node exporter on each of them, and Prometheus, Alertmanager,
the blackbox exporter and the kit's lag exporter on the monitoring hosts, wherever the unit runs.

Run: make bench-sandbox   (on a deployed lab: make deploy; read only)
"""

import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lab import config  # noqa: E402
from lab.machines import run_on  # noqa: E402

NODE = "prometheus-node-exporter.service"
UNITS = {"kafka_broker": ["kafka.service", NODE], "zookeeper": ["zookeeper.service", NODE],
         "kafka_controller": ["kafka-controller.service", NODE],
         "monitoring": ["prometheus.service", "prometheus-alertmanager.service",
                        "prometheus-blackbox-exporter.service", "kafkaops-lag-exporter.service"]}


def main():
    for host in config.load_hosts():
        units = dict.fromkeys(unit for group in host.groups for unit in UNITS.get(group, []))
        for unit in units:
            if run_on(host, f"systemctl is-active {unit} || true").strip() != "active":
                continue
            out = run_on(host, f"systemd-analyze security --no-pager {unit} 2>&1 | tail -1")
            found = re.search(r"exposure level for \S+: ([0-9.]+) (\S+)", out)
            print(f"{host.name:8} {unit:38} {found.group(1) + ' ' + found.group(2) if found else out.strip()}")


if __name__ == "__main__":
    main()
