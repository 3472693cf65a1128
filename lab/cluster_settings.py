"""The lab cluster's connection settings for Python clients (demo, benchmarks, tests), as the connection
role derives them from inventories/lab: playbooks/client_settings.yml writes them, this reads them."""

import functools
import json

from . import ansible, config

PATH = config.REPO / ".cache" / "lab" / "client-settings.json"


@functools.cache
def load():
    """{"metadata_mode", "bootstrap_servers", "zookeeper_connect" ("" on KRaft), "brokers": {host: "host:port"},
    "zookeeper_members": {host: "host:port"}, "kafka": librdkafka configuration, "kafka_java": Java client
    properties, "kazoo": KazooClient options, "connection": the modules' options}, written once per process."""
    proc = ansible.playbook("playbooks/client_settings.yml", extra_vars={"client_settings_path": PATH})
    if proc.returncode:
        raise RuntimeError(f"playbooks/client_settings.yml failed:\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
    return json.loads(PATH.read_text())


def kafka_config(bootstrap_servers=None):
    """The librdkafka configuration of the lab's clients (the cluster's security included), for
    bootstrap_servers (default: every broker). Add a client's own settings with `| {...}`."""
    conf = dict(load()["kafka"])
    if bootstrap_servers:
        conf["bootstrap.servers"] = bootstrap_servers
    return conf


def kazoo_client(hosts=None, **options):
    """A KazooClient (not started) for the lab's ensemble as the kit reaches it (TLS, SASL), at hosts
    (default: zookeeper.connect with the chroot); options override those (sasl_options=None: no login)."""
    from kazoo.client import KazooClient
    return KazooClient(hosts=hosts or load()["zookeeper_connect"], **(load()["kazoo"] | options))
