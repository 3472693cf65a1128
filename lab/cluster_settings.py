"""The lab cluster's connection settings for Python clients (demo, benchmarks, tests), as the connection
role derives them from inventories/lab: playbooks/client_settings.yml writes them, this reads them."""

import functools
import json

from . import ansible, config

PATH = config.REPO / ".cache" / "lab" / "client-settings.json"


@functools.cache
def load(principal="admin"):
    """{"metadata_mode", "bootstrap_servers", "zookeeper_connect" ("" on KRaft), "brokers": {host: "host:port"},
    "zookeeper_members": {host: "host:port"}, "kafka": librdkafka configuration, "kafka_java": Java client
    properties, "kazoo": KazooClient options, "connection": the modules' options} of the kit's admin ("admin"), or of
    one of the kit's tools ("canary", "validator": their own logins), written once per process and principal."""
    path = _path(principal)
    proc = ansible.playbook("playbooks/client_settings.yml",
                            extra_vars={"client_settings_path": path, "client_settings_for": principal})
    if proc.returncode:
        raise RuntimeError(f"playbooks/client_settings.yml failed:\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
    return json.loads(path.read_text())


def _path(principal):
    return PATH if principal == "admin" else PATH.with_name(f"client-settings-{principal}.json")


def path(principal="admin"):
    """The client settings file of the kit's admin or one of its tools (written first): `--client-settings` of the
    canary and the validator."""
    load(principal)
    return _path(principal)


def kafka_config(bootstrap_servers=None, principal="admin"):
    """The librdkafka configuration of the lab's clients (the cluster's security included) as the kit's admin or
    one of its tools ("canary", "validator"), for bootstrap_servers (default: every broker, on that principal's
    listener). Add a client's own settings with `| {...}`."""
    conf = dict(load(principal)["kafka"])
    if bootstrap_servers:
        conf["bootstrap.servers"] = bootstrap_servers
    return conf


def user_config(name, password, mechanism="SCRAM-SHA-512"):
    """The librdkafka configuration of an application's SCRAM user on the CLIENT listener: the canary's settings (its
    listener, TLS) with the user's name, password and mechanism (kafka_scram_users' default; the canary's own may have
    rotated to the other one). Not kafka_config()'s: the kit's admin logs in by certificate on another listener."""
    return kafka_config(principal="canary") | {"sasl.username": name, "sasl.password": password,
                                               "sasl.mechanism": mechanism}


def kazoo_client(hosts=None, **options):
    """A KazooClient (not started) for the lab's ensemble as the kit reaches it (TLS, SASL), at hosts
    (default: zookeeper.connect with the chroot); options override those (sasl_options=None: no login)."""
    from kazoo.client import KazooClient
    return KazooClient(hosts=hosts or load()["zookeeper_connect"], **(load()["kazoo"] | options))
