"""Where the lab lives and what it is made of: paths, the bridge, and the hosts from the inventory."""

import dataclasses
import ipaddress
import os
import pathlib

import yaml

from .shell import LabError

REPO = pathlib.Path(__file__).resolve().parent.parent
INVENTORY = REPO / "inventories" / "lab" / "hosts.yml"

# Everything the lab writes lives here, outside the checkout; `lab down` removes it all but the cached base.
# inventories/lab/group_vars/all.yml names the SSH key below it.
ROOT = pathlib.Path("/var/lib/kafka-lab")
BASE = ROOT / "base"
SSH_KEY = ROOT / "ssh" / "id_ed25519"
RUN = ROOT / "run"          # per host: overlay upper dir, nspawn pid and console log
DISKS = ROOT / "disks"      # per broker host: a sparse ext4 image and its mount point
SECRETS = ROOT / "secrets"  # the lab's passwords, made by the inventory's password lookups (kept by `lab down`)
PKI = ROOT / "pki"          # the lab's kafka_pki_dir: its CA and certificates, made by a deploy (gone with `lab down`)

# The Kafka release the lab runs (the lab inventory's kafka_version reads the same variable)
KAFKA_VERSION = os.environ.get("KAFKAOPS_LAB_KAFKA_VERSION") or "3.9.2"


def kafka_libs(release=KAFKA_VERSION):
    """libs/ of a release's distribution, where `make setup` unpacks it (dist/build_kafka_archive.sh; the lab
    inventory's kafka_tools_home)."""
    return REPO / ".cache" / "kafka" / f"kafka_2.13-{release}" / "libs"

BRIDGE = "kafkalab0"
# Every host's DNS name is <name>.<DOMAIN>, in /etc/hosts on each host and on this machine (lab/names.py);
# inventories/lab/group_vars/all.yml advertises the brokers under it.
DOMAIN = "kafkalab.test"
NETNS_PREFIX = "kafkalab-"
DATA_DISK_SIZE = "20G"      # sparse: takes only what Kafka writes (bench-validator --records 100000000: 6G a broker)
DATA_DISK_MOUNT = "/var/lib/kafka"  # where a broker host sees its data filesystem

# Groups whose hosts get a data disk of their own.
DISK_GROUPS = ("kafka_broker", "kafka_spare")

# What the base image holds, and a version to rebuild it when this list changes.
BASE_PACKAGES = ("systemd", "systemd-sysv", "dbus", "openssh-server", "python3", "iproute2",
                 "iptables", "procps", "openjdk-17-jre-headless",
                 # Monitoring, from Debian as on a host with a mirror: the roles enable what a host's groups run
                 "prometheus-node-exporter", "prometheus", "prometheus-alertmanager", "prometheus-blackbox-exporter",
                 # the kit's consumer lag exporter, on the monitoring host (its confluent-kafka: a wheel, the
                 # monitoring role's)
                 "python3-prometheus-client")
# The units and timers those packages enable when installed (prometheus*): off in the base, so that a lab host runs
# only what the roles start.
BASE_UNITS_OFF_PREFIX = "prometheus"
BASE_SUITE = "bookworm"


@dataclasses.dataclass(frozen=True)
class Host:
    name: str
    address: str
    groups: tuple

    @property
    def netns(self):
        return NETNS_PREFIX + self.name

    @property
    def fqdn(self):
        return f"{self.name}.{DOMAIN}"

    @property
    def has_disk(self):
        return any(g in DISK_GROUPS for g in self.groups)


# Files that hold no password, which newer roles sharing this lab's folder keep beside the passwords: the mechanism a
# tool's login uses, the ZooKeeper login's generation in use
_NOT_SECRETS = (".mechanism", ".current")


def secrets():
    """{name: password} of the lab's passwords (SECRETS), as they are now."""
    return {p.name: p.read_text().strip() for p in sorted(SECRETS.glob("*"))
            if p.is_file() and not p.name.endswith(_NOT_SECRETS)}


def load_hosts(inventory=INVENTORY):
    """The lab's hosts, in inventory order, with their group names."""
    data = yaml.safe_load(inventory.read_text())
    hosts = {}
    for group, body in data["all"]["children"].items():
        for name, hostvars in (body.get("hosts") or {}).items():
            if name in hosts:
                hosts[name] = dataclasses.replace(hosts[name], groups=hosts[name].groups + (group,))
            else:
                hosts[name] = Host(name, hostvars["ansible_host"], (group,))
    return list(hosts.values())


def host(name, inventory=INVENTORY):
    """The lab host called name (its inventory name or its DNS name, as brokers advertise it)."""
    hosts = load_hosts(inventory)
    for found in hosts:
        if name in (found.name, found.fqdn):
            return found
    raise LabError(f"no lab host {name!r} in {inventory}; hosts: {', '.join(h.name for h in hosts)}")


def bridge_address(hosts):
    """The controller's address on the bridge: the first address of the hosts' /24."""
    network = ipaddress.ip_network(f"{hosts[0].address}/24", strict=False)
    for host in hosts:
        if ipaddress.ip_address(host.address) not in network:
            raise SystemExit(f"lab host {host.name} ({host.address}) is outside {network}; "
                             "all lab hosts must share one /24 in inventories/lab/hosts.yml")
    return f"{next(network.hosts())}/{network.prefixlen}"
