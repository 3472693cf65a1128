"""What a refused run must leave exactly as it was: every lab host's services, config files and data dirs
(KRaft controllers' included), the brokers' registrations and dynamic configs in ZooKeeper (on a ZooKeeper
cluster), and the throttles. Read before and after
the run and compared whole."""

import time
from concurrent.futures import ThreadPoolExecutor

from confluent_kafka.admin import AdminClient
from lab_hosts import ssh_run
from throttles import throttles_anywhere

from lab import config
from lab.cluster_settings import kafka_config, kazoo_client

# Per host, in one SSH call: each unit's main pid and start time, the checksums of the config files,
# the data dir's entries (without the <partition>.<id>-delete folders Kafka removes in the background, nor the
# *.tmp file Kafka writes a checkpoint to and renames at once).
_DATA_DIR = "/var/lib/kafka/data"  # the brokers' one log dir (kafka_broker's default kafka_log_dirs)
_METADATA_DIR = "/var/lib/kafka-controller/metadata"  # the controllers' (kafka_controller_metadata_dir)
_HOST_STATE = (
    "for unit in kafka zookeeper kafka-controller; do "
    "echo $unit $(systemctl show -p ExecMainPID -p ExecMainStartTimestampMonotonic -p ActiveState "
    "-p UnitFileState $unit | sort); done; "
    "find /etc/kafka /etc/zookeeper /etc/kafka-controller /etc/systemd/system -maxdepth 1 -type f "
    "-exec sha256sum {} + 2>/dev/null | sort -k2; "
    f"find {_DATA_DIR} {_METADATA_DIR} -maxdepth 1 ! -name '*-delete' ! -name '*.tmp' "
    "2>/dev/null | sort")

# Znodes a recovery playbook writes: registrations and dynamic configs (throttles also of a broker that is
# down). /config/changes is left out: Kafka purges its notifications on its own schedule.
_ZNODES = ("/brokers/ids", "/config/brokers", "/config/topics", "/config/users", "/config/clients")


def _znodes(zookeeper_connect):
    zk = kazoo_client(zookeeper_connect, timeout=10)
    zk.start(timeout=30)
    try:
        _wait_for_topic_deletions(zk)
        deleting = set(zk.get_children("/admin/delete_topics")) if zk.exists("/admin/delete_topics") else set()
        found = {}
        for parent in _ZNODES:
            for child in zk.get_children(parent) if zk.exists(parent) else []:
                if not (parent == "/config/topics" and child in deleting):
                    found[f"{parent}/{child}"] = zk.get(f"{parent}/{child}")[0]
        return found
    finally:
        zk.stop()
        zk.close()


def _wait_for_topic_deletions(zk, timeout=120):
    """A topic an earlier test deleted has its data dirs renamed to *-delete while the controller works
    through it; a listing taken meanwhile would differ from the next one without anything having run."""
    deadline = time.monotonic() + timeout
    while zk.exists("/admin/delete_topics") and zk.get_children("/admin/delete_topics"):
        assert time.monotonic() < deadline, f"topic deletions still pending after {timeout} s"
        time.sleep(1)


def _deleted_topics_dirs(states, topics):
    """The partition dirs in the hosts' listings whose topic the cluster no longer has (a deletion a broker has yet to
    carry out on its disk). topics: a set."""
    found = []
    for state in states:
        for line in state.splitlines():
            if line.startswith(f"{_DATA_DIR}/"):
                topic, _, partition = line.rsplit("/", 1)[1].rpartition("-")
                # __cluster_metadata: a KRaft broker's copy of the metadata log, no topic of the cluster
                if topic and partition.isdigit() and topic not in topics | {"__cluster_metadata"}:
                    found.append(line)
    return found


def _missing_replica_dirs(states, hosts, metadata):
    """The partition dirs a broker is assigned but does not hold yet (a topic created just before: each broker makes
    its replicas' dirs when the creation reaches it). A broker's host is the one its advertised name belongs to."""
    listed = {h.fqdn: set(state.splitlines()) for h, state in zip(hosts, states, strict=True)}
    missing = []
    for name, topic in metadata.topics.items():
        for partition in topic.partitions.values():
            for replica in partition.replicas:
                broker = metadata.brokers.get(replica)
                lines = listed.get(broker.host) if broker else None
                line = f"{_DATA_DIR}/{name}-{partition.id}"
                if lines is not None and line not in lines:
                    missing.append(f"{broker.host}:{line}")
    return missing


def _host_states(settings, hosts, timeout=120):
    """The hosts' listings, once they are settled on KRaft, where each broker carries out a topic's creation and
    deletion on its disk when it reaches it in the metadata log: every live broker holds the dirs of the replicas it is
    assigned, and none of a topic an earlier test deleted (on ZooKeeper, _znodes waits for the controller)."""
    deadline = time.monotonic() + timeout
    while True:
        with ThreadPoolExecutor(len(hosts)) as pool:  # one SSH session per host, all at once
            states = list(pool.map(lambda h: ssh_run(h, _HOST_STATE), hosts))
        if settings["zookeeper_connect"]:
            return states
        admin = AdminClient(kafka_config())
        metadata = admin.list_topics(timeout=30)
        pending = _missing_replica_dirs(states, hosts, metadata) + _deleted_topics_dirs(states, set(metadata.topics))
        if not pending:
            return states
        assert time.monotonic() < deadline, f"the data dirs did not settle in {timeout} s: {pending}"
        time.sleep(2)


def lab_state(settings):
    """Everything a refused run must not change, as one comparable value."""
    # first: it waits for earlier tests' topic deletions; a KRaft cluster has no znodes
    znodes = _znodes(settings["zookeeper_connect"]) if settings["zookeeper_connect"] else None
    hosts = config.load_hosts()
    states = _host_states(settings, hosts)
    return {
        "hosts": {h.name: state for h, state in zip(hosts, states, strict=True)},
        "znodes": znodes,
        "throttles": throttles_anywhere(settings["bootstrap_servers"]),
    }


def services_and_files(settings):
    """Per host, lab_state's units and config files without its data dir listings: what a run that changes no host
    leaves as it was, while the test's own topics come and go."""
    return {host: "\n".join(line for line in state.splitlines() if not line.startswith((_DATA_DIR, _METADATA_DIR)))
            for host, state in lab_state(settings)["hosts"].items()}
