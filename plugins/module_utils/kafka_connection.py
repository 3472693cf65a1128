"""The one place the modules connect to a cluster: a confluent-kafka AdminClient for topics,
partitions, ISRs and configs, a kazoo client for ZooKeeper (/controller, /brokers/ids, /cluster/id).

Modules add CONNECTION_ARGS to their argument spec and open clients with admin_client / zk_client.
"""

import json
import socket

CONNECTION_ARGS = dict(
    bootstrap_servers=dict(type="str", required=True),
    zookeeper_connect=dict(type="str", required=True),
    request_timeout=dict(type="int", default=15),
    security_protocol=dict(type="str", default="PLAINTEXT",
                           choices=["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]),
    sasl_mechanism=dict(type="str"),
    sasl_username=dict(type="str"),
    sasl_password=dict(type="str", no_log=True),
    ssl_ca_location=dict(type="path"),
    ssl_certificate_location=dict(type="path"),
    ssl_key_location=dict(type="path"),
)

# Modules that talk to the brokers only (SCRAM users, ACLs): zookeeper_connect is accepted, so the kit's
# connection variables can be passed to every module alike, but not required.
BROKER_CONNECTION_ARGS = dict(CONNECTION_ARGS, zookeeper_connect=dict(type="str", required=False))


class PermanentError(Exception):
    """An error that waiting cannot fix (a name that does not resolve, a refused login, bad arguments)."""


# librdkafka error names that no retry fixes.
_PERMANENT_KAFKA_ERRORS = {"_AUTHENTICATION", "SASL_AUTHENTICATION_FAILED", "_SSL", "_INVALID_ARG",
                           "CLUSTER_AUTHORIZATION_FAILED", "TOPIC_AUTHORIZATION_FAILED",
                           "UNSUPPORTED_SASL_MECHANISM", "ILLEGAL_SASL_STATE"}


def _host_ports(servers):
    """('host', port) of each 'host:port' in a comma-separated list (a ZooKeeper chroot is dropped)."""
    pairs = []
    for item in servers.split("/", 1)[0].split(","):
        host, _, port = item.strip().rpartition(":")
        if not host or not port.isdigit():
            raise PermanentError(f"{item.strip()!r} is not host:port")
        pairs.append((host.strip("[]"), int(port)))
    return pairs


def check_resolvable(label, servers):
    """Resolve every host of a 'host:port,...' list: a name that does not resolve is a wrong inventory,
    not a 'not yet'."""
    for host, port in _host_ports(servers):
        try:
            socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise PermanentError(f"{label}: {host} does not resolve ({exc.strerror})") from None


def check_addresses(params):
    """Resolve every bootstrap server and ZooKeeper member."""
    for key in ("bootstrap_servers", "zookeeper_connect"):
        check_resolvable(key, params[key])


def error_name(exc):
    """The name of the KafkaError a client exception carries ('UNKNOWN_TOPIC_OR_PART', ...), or None."""
    name = getattr(exc.args[0], "name", None) if exc.args else None
    return name() if callable(name) else None


def is_permanent(exc):
    """Whether an error from reading the cluster cannot be fixed by waiting."""
    return isinstance(exc, PermanentError) or error_name(exc) in _PERMANENT_KAFKA_ERRORS


def admin_config(params):
    """The librdkafka configuration for the connection parameters (unset options left out)."""
    conf = {
        "bootstrap.servers": params["bootstrap_servers"],
        "security.protocol": params["security_protocol"],
        "socket.timeout.ms": params["request_timeout"] * 1000,
    }
    optional = {
        "sasl.mechanism": "sasl_mechanism",
        "sasl.username": "sasl_username",
        "sasl.password": "sasl_password",
        "ssl.ca.location": "ssl_ca_location",
        "ssl.certificate.location": "ssl_certificate_location",
        "ssl.key.location": "ssl_key_location",
    }
    conf.update({key: params[name] for key, name in optional.items() if params.get(name)})
    return conf


def admin_client(params):
    from confluent_kafka.admin import AdminClient
    return AdminClient(admin_config(params))


def zk_client(params):
    """A started kazoo client; the chroot in zookeeper_connect (host:port,.../chroot) applies."""
    from kazoo.client import KazooClient
    client = KazooClient(hosts=params["zookeeper_connect"], timeout=params["request_timeout"],
                         read_only=True)
    client.start(timeout=params["request_timeout"])
    return client


def read_zk_registry(zk):
    """Controller id, live brokers (id -> host, port) and cluster id as ZooKeeper records them."""
    controller = None
    if zk.exists("/controller"):
        controller = json.loads(zk.get("/controller")[0])["brokerid"]
    brokers = {}
    if zk.exists("/brokers/ids"):
        for child in zk.get_children("/brokers/ids"):
            info = json.loads(zk.get(f"/brokers/ids/{child}")[0])
            brokers[int(child)] = {"host": info.get("host"), "port": info.get("port"),
                                   "endpoints": info.get("endpoints", [])}
    cluster_id = None
    if zk.exists("/cluster/id"):
        cluster_id = json.loads(zk.get("/cluster/id")[0])["id"]
    return {"controller_id": controller, "brokers": brokers, "cluster_id": cluster_id}


def read_partitions(admin, timeout):
    """Every partition's leader, replicas and ISR, from the cluster metadata."""
    metadata = admin.list_topics(timeout=timeout)
    partitions = []
    for topic in sorted(metadata.topics):
        t = metadata.topics[topic]
        if t.error is not None:
            raise RuntimeError(f"metadata of topic {topic}: {t.error}")
        for pid in sorted(t.partitions):
            p = t.partitions[pid]
            partitions.append({"topic": topic, "partition": pid, "leader": p.leader,
                               "replicas": list(p.replicas), "isr": list(p.isrs)})
    return partitions


def _describe_each(admin, resources, timeout):
    """{resource name: {config name: ConfigEntry}}, one request per broker resource as the client needs.
    A topic deleted since it was listed is left out."""
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import ResourceType
    batches = [[r] for r in resources if r.restype == ResourceType.BROKER]
    batches.append([r for r in resources if r.restype != ResourceType.BROKER])
    result = {}
    for batch in filter(None, batches):
        for resource, future in admin.describe_configs(batch, request_timeout=timeout).items():
            try:
                result[(resource.restype, resource.name)] = future.result(timeout=timeout)
            except KafkaException as exc:
                if resource.restype != ResourceType.TOPIC or error_name(exc) != "UNKNOWN_TOPIC_OR_PART":
                    raise
    return result


def read_settings(admin, topics, brokers, timeout):
    """min.insync.replicas of each topic (its own or the broker default it inherits), and where unclean
    leader election is on: 'topic T' / 'broker B' for each topic and live broker that has it."""
    from confluent_kafka.admin import ConfigResource, ResourceType
    resources = [ConfigResource(ResourceType.TOPIC, t) for t in topics]
    resources += [ConfigResource(ResourceType.BROKER, str(b)) for b in brokers]
    unclean, min_insync = [], {}
    for (restype, name), entries in sorted(_describe_each(admin, resources, timeout).items(),
                                           key=lambda item: (item[0][0].value, item[0][1])):
        kind = "topic" if restype == ResourceType.TOPIC else "broker"
        entry = entries.get("unclean.leader.election.enable")
        if entry is not None and entry.value == "true":
            unclean.append(f"{kind} {name}")
        if kind == "topic":
            min_insync[name] = int(entries["min.insync.replicas"].value)
    return min_insync, unclean


def read_cluster_state(params):
    """The cluster as the decisions in kafka_state see it. Connections closed before returning."""
    check_addresses(params)
    zk = zk_client(params)
    try:
        state = read_zk_registry(zk)
    finally:
        zk.stop()
        zk.close()
    admin = admin_client(params)
    timeout = params["request_timeout"]
    partitions = read_partitions(admin, timeout)
    state["min_insync"], state["unclean_election"] = read_settings(
        admin, sorted({p["topic"] for p in partitions}), sorted(state["brokers"]), timeout)
    # Partitions of a topic deleted meanwhile are gone: only those whose settings were read count.
    state["partitions"] = [p for p in partitions if p["topic"] in state["min_insync"]]
    return state


def wait_args(default_timeout):
    """Arguments of a module whose check the kafka_wait action plugin repeats until it holds."""
    return dict(wait_timeout=dict(type="int", default=default_timeout),
                poll_interval=dict(type="int", default=3))

