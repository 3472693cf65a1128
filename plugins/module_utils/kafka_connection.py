"""The one place the modules connect to a cluster: a confluent-kafka AdminClient for topics,
partitions, ISRs and configs, a kazoo client for ZooKeeper (/controller, /brokers/ids, /cluster/id). A KRaft
cluster has no ZooKeeper (zookeeper_connect empty): its brokers and id come from the AdminClient.

Modules add CONNECTION_ARGS to their argument spec and open clients with admin_client / zk_client.
"""

import json
import socket

# How a client reaches ZooKeeper: TLS with a client certificate (the members' secureClientPort), then a SASL
# DIGEST-MD5 login as the user Kafka's znodes belong to.
ZOOKEEPER_CLIENT_ARGS = dict(
    zookeeper_tls=dict(type="bool", default=False),
    zookeeper_ssl_ca_location=dict(type="path"),
    zookeeper_ssl_certificate_location=dict(type="path"),
    zookeeper_ssl_key_location=dict(type="path"),
    zookeeper_sasl_username=dict(type="str"),
    zookeeper_sasl_password=dict(type="str", no_log=True),
)

CONNECTION_ARGS = dict(
    bootstrap_servers=dict(type="str", required=True),
    zookeeper_connect=dict(type="str", required=True),  # "" on a KRaft cluster
    request_timeout=dict(type="int", default=15),
    security_protocol=dict(type="str", default="PLAINTEXT",
                           choices=["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]),
    sasl_mechanism=dict(type="str"),
    sasl_username=dict(type="str"),
    sasl_password=dict(type="str", no_log=True),
    ssl_ca_location=dict(type="path"),
    ssl_certificate_location=dict(type="path"),
    ssl_key_location=dict(type="path"),
    **ZOOKEEPER_CLIENT_ARGS,
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
    """Resolve every bootstrap server and ZooKeeper member (none on a KRaft cluster)."""
    for key in ("bootstrap_servers", "zookeeper_connect"):
        if params.get(key):
            check_resolvable(key, params[key])


def error_name(exc):
    """The name of the KafkaError a client exception carries ('UNKNOWN_TOPIC_OR_PART', ...), or None."""
    name = getattr(exc.args[0], "name", None) if exc.args else None
    return name() if callable(name) else None


def describe_error(exc):
    """An exception as a message names it: its text, or its type when the text is empty (a bare TimeoutError
    from a future would otherwise print as nothing)."""
    return str(exc) or type(exc).__name__


def is_permanent(exc):
    """Whether an error from reading the cluster cannot be fixed by waiting."""
    return isinstance(exc, PermanentError) or error_name(exc) in _PERMANENT_KAFKA_ERRORS


def admin_config(params):
    """The librdkafka configuration for the connection parameters: the SASL options only with a SASL
    protocol, the CA with a TLS protocol, the client certificate with SSL alone, unset options left out."""
    protocol = params["security_protocol"]
    conf = {
        "bootstrap.servers": params["bootstrap_servers"],
        "security.protocol": protocol,
        "socket.timeout.ms": params["request_timeout"] * 1000,
    }
    optional = {}
    if "SASL" in protocol:
        optional.update({"sasl.mechanism": "sasl_mechanism", "sasl.username": "sasl_username",
                         "sasl.password": "sasl_password"})
    if "SSL" in protocol:
        optional["ssl.ca.location"] = "ssl_ca_location"
        conf["ssl.endpoint.identification.algorithm"] = "https"  # librdkafka's default since 2.0: said, not assumed
    if protocol == "SSL":  # the certificate is the login; with SASL the password is (no listener asks for both)
        optional.update({"ssl.certificate.location": "ssl_certificate_location",
                         "ssl.key.location": "ssl_key_location"})
    conf.update({key: params[name] for key, name in optional.items() if params.get(name)})
    return conf


def _jaas_quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def java_client_properties(conf):
    """The Java client's properties (Kafka's tools --command-config, Spark's kafka.* options) for a librdkafka
    configuration from admin_config: the same protocol, SASL login, CA (a PEM truststore) and client certificate
    (a PEM keystore given as text, KIP-651: Java takes key and chain together, librdkafka from two files)."""
    props = {"security.protocol": conf["security.protocol"]}
    if "sasl.mechanism" in conf:
        props["sasl.mechanism"] = conf["sasl.mechanism"]
        module = ("org.apache.kafka.common.security.plain.PlainLoginModule" if conf["sasl.mechanism"] == "PLAIN"
                  else "org.apache.kafka.common.security.scram.ScramLoginModule")
        props["sasl.jaas.config"] = (f"{module} required username={_jaas_quote(conf.get('sasl.username', ''))} "
                                     f"password={_jaas_quote(conf.get('sasl.password', ''))};")
    if "ssl.ca.location" in conf:
        props.update({"ssl.truststore.type": "PEM", "ssl.truststore.location": conf["ssl.ca.location"]})
    if "SSL" in conf["security.protocol"]:
        props["ssl.endpoint.identification.algorithm"] = "https"
    if "ssl.certificate.location" in conf and "ssl.key.location" in conf:
        with open(conf["ssl.key.location"], encoding="ascii") as key, \
                open(conf["ssl.certificate.location"], encoding="ascii") as chain:
            props.update({"ssl.keystore.type": "PEM", "ssl.keystore.key": key.read().strip(),
                          "ssl.keystore.certificate.chain": chain.read().strip()})
    return props


def properties_text(props):
    """A Java .properties file's text for props: one key=value a line, a value's line breaks escaped (PEM text)."""
    return "".join(f"{key}={value}".replace("\n", "\\n") + "\n" for key, value in props.items())


def admin_client(params):
    from confluent_kafka.admin import AdminClient
    return AdminClient(admin_config(params))


def kazoo_options(params):
    """KazooClient's keyword arguments for the ZooKeeper client options (TLS, SASL), unset ones left out."""
    options = {}
    if params.get("zookeeper_tls"):
        options.update(use_ssl=True, verify_certs=True, check_hostname=True, ca=params.get("zookeeper_ssl_ca_location"),
                       certfile=params.get("zookeeper_ssl_certificate_location"),
                       keyfile=params.get("zookeeper_ssl_key_location"))
    if params.get("zookeeper_sasl_username"):
        options["sasl_options"] = {"mechanism": "DIGEST-MD5", "username": params["zookeeper_sasl_username"],
                                   "password": params.get("zookeeper_sasl_password") or ""}
    return options


# ZooKeeper 3.8 (X509Util) enables TLS 1.2 cipher suites alone unless told: a TLS 1.3 handshake then finds none ("No
# appropriate protocol"). TLS 1.3's suites, and ZooKeeper's own 1.2 defaults for an ensemble that still offers 1.2.
TLS13_CIPHER_SUITES = ("TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", "TLS_CHACHA20_POLY1305_SHA256")
ZOOKEEPER_TLS12_CIPHER_SUITES = ("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                                 "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384")


def zookeeper_cipher_suites(protocols):
    """ssl.ciphersuites of a ZooKeeper member (and its quorum) that offers the given TLS versions."""
    return ",".join(TLS13_CIPHER_SUITES + (ZOOKEEPER_TLS12_CIPHER_SUITES if "TLSv1.2" in protocols else ()))


def zookeeper_tls_properties(keystore, truststore):
    """The Java ZooKeeper client's TLS properties (a broker's server.properties, a tool's --zk-tls-config-file):
    Netty, a PEM keystore (key and certificate in one file) and a PEM truststore."""
    return {"zookeeper.ssl.client.enable": "true",
            "zookeeper.clientCnxnSocket": "org.apache.zookeeper.ClientCnxnSocketNetty",
            "zookeeper.ssl.keystore.type": "PEM", "zookeeper.ssl.keystore.location": keystore,
            "zookeeper.ssl.truststore.type": "PEM", "zookeeper.ssl.truststore.location": truststore,
            "zookeeper.ssl.endpoint.identification.algorithm": "HTTPS",
            # ZooKeeper 3.8's client offers TLS 1.2 alone unless told; every member accepts 1.3 (kafka_tls_protocols)
            "zookeeper.ssl.protocol": "TLSv1.3", "zookeeper.ssl.enabled.protocols": "TLSv1.3",
            "zookeeper.ssl.cipher.suites": zookeeper_cipher_suites(["TLSv1.3"])}


def zookeeper_jaas(params):
    """A JAAS configuration with the ZooKeeper client's login (its Client section), or None without SASL."""
    if not params.get("zookeeper_sasl_username"):
        return None
    return ("Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n"
            f"  username={_jaas_quote(params['zookeeper_sasl_username'])}\n"
            f"  password={_jaas_quote(params.get('zookeeper_sasl_password') or '')};\n}};\n")


def zk_client(params):
    """A started kazoo client; the chroot in zookeeper_connect (host:port,.../chroot) applies."""
    from kazoo.client import KazooClient
    client = KazooClient(hosts=params["zookeeper_connect"], timeout=params["request_timeout"],
                         read_only=True, **kazoo_options(params))
    client.start(timeout=params["request_timeout"])
    return client


def read_znode_acls(params, paths):
    """The ACLs of znodes under the chroot: {path: [{scheme, id, perms: [names]}]}, absent paths left out."""
    from kazoo.exceptions import NoNodeError
    zk = zk_client(params)
    try:
        acls = {}
        for path in paths:
            try:
                found, _ = zk.get_acls(path)
            except NoNodeError:
                continue
            acls[path] = [{"scheme": a.id.scheme, "id": a.id.id, "perms": a.acl_list} for a in found]
        return acls
    finally:
        zk.stop()


def has_chroot(params):
    """Whether zookeeper_connect names a chroot (host:port,.../chroot)."""
    return "/" in params["zookeeper_connect"].strip("/")


def listeners(server):
    """{listener name: (security protocol, port or None)} of a broker's server.properties: its listeners (Kafka's
    default PLAINTEXT://:9092 when unset) through listener.security.protocol.map (a listener without an entry is
    named after its protocol: Kafka's default map)."""
    protocol_map = dict(item.strip().split(":", 1)
                        for item in server.get("listener.security.protocol.map", "").split(",") if ":" in item)
    found = {}
    for item in server.get("listeners", "PLAINTEXT://:9092").split(","):
        name, _, rest = item.strip().partition("://")
        port = rest.rpartition(":")[2]
        if name:
            found[name] = (protocol_map.get(name, name), int(port) if port.isdigit() else None)
    return found


def endpoint_address(endpoint):
    """(host, port) of an advertised endpoint "LISTENER://host:port" (host lower-cased, IPv6 brackets
    dropped), or None when it has no port."""
    host, _, port = endpoint.split("://", 1)[-1].rpartition(":")
    if not host or not port.isdigit():
        return None
    return host.strip("[]").lower(), int(port)


def first_endpoint(info):
    """(host, port) of a broker's registration: its legacy host and port (set for a PLAINTEXT listener only),
    else its first advertised listener (the kafka_broker role advertises CLIENT first)."""
    if info.get("host"):
        return info["host"], info.get("port")
    for endpoint in info.get("endpoints", []):
        return endpoint_address(endpoint) or (None, None)
    return None, None


def read_zk_registry(zk):
    """Controller id, live brokers (id -> host, port, endpoints) and cluster id as ZooKeeper records them."""
    controller = None
    if zk.exists("/controller"):
        controller = json.loads(zk.get("/controller")[0])["brokerid"]
    brokers = {}
    if zk.exists("/brokers/ids"):
        for child in zk.get_children("/brokers/ids"):
            info = json.loads(zk.get(f"/brokers/ids/{child}")[0])
            host, port = first_endpoint(info)
            brokers[int(child)] = {"host": host, "port": port, "endpoints": info.get("endpoints", [])}
    cluster_id = None
    if zk.exists("/cluster/id"):
        cluster_id = json.loads(zk.get("/cluster/id")[0])["id"]
    return {"controller_id": controller, "brokers": brokers, "cluster_id": cluster_id}


def read_admin_registry(admin, timeout):
    """Live brokers (id -> host, port, endpoints) and cluster id as the brokers report them (DescribeCluster), for
    a KRaft cluster. Its active controller is no broker (a KRaft broker names a random broker there), so
    controller_id is None."""
    cluster = admin.describe_cluster(request_timeout=timeout).result(timeout=timeout)
    brokers = {node.id: {"host": node.host, "port": node.port, "endpoints": [f"{node.host}:{node.port}"]}
               for node in cluster.nodes}
    return {"controller_id": None, "brokers": brokers, "cluster_id": cluster.cluster_id}


def read_scram_credentials(admin, names, timeout):
    """{user: [(mechanism, iterations)]} for each name; [] for a user without credentials (Kafka answers
    RESOURCE_NOT_FOUND for it). Any other error is raised."""
    if not names:  # an empty list would describe every user
        return {}
    futures = admin.describe_user_scram_credentials(names, request_timeout=timeout)
    existing = {}
    for name in names:
        try:
            infos = futures[name].result(timeout * 2).scram_credential_infos
        except Exception as exc:
            if error_name(exc) != "RESOURCE_NOT_FOUND":
                raise
            infos = []
        # confluent-kafka's SCRAM_SHA_512 is Kafka's SCRAM-SHA-512, the spelling the choices use
        existing[name] = [(info.mechanism.name.replace("_", "-"), info.iterations) for info in infos]
    return existing


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
    admin = admin_client(params)
    timeout = params["request_timeout"]
    if params["zookeeper_connect"]:
        zk = zk_client(params)
        try:
            state = read_zk_registry(zk)
        finally:
            zk.stop()
            zk.close()
    else:
        state = read_admin_registry(admin, timeout)
    partitions = read_partitions(admin, timeout)
    state["min_insync"], state["unclean_election"] = read_settings(
        admin, sorted({p["topic"] for p in partitions}), sorted(state["brokers"]), timeout)
    # Partitions of a topic deleted meanwhile are gone: only those whose settings were read count.
    state["partitions"] = [p for p in partitions if p["topic"] in state["min_insync"]]
    return state


def wait_args(default_timeout):
    """Arguments of a module whose check the kafka_wait action plugin repeats until it holds."""
    return dict(wait_timeout=dict(type="int", default=default_timeout),
                poll_interval=dict(type="int", default=1))

