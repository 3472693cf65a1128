"""Which secure defaults an inventory turns off, and the refusal for each one it did not accept on purpose
(kafka_security_exposures_accepted): the roles' preflights read this, so the rule and its words live here."""

from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal

# Variable -> (the value that opens the exposure, what it exposes).
EXPOSURES = {
    "kafka_plaintext_listener": (True, (
        "the PLAINTEXT listener lets anyone who reaches kafka_plaintext_port produce and consume unencrypted, "
        "logged in as nobody (User:ANONYMOUS; the ACLs still apply)")),
    "kafka_plaintext_super_user": (True, (
        "every client of the PLAINTEXT listener (User:ANONYMOUS) is a super user: no ACL applies to it, as on an "
        "open cluster")),
    "kafka_zookeeper_set_acl": (False, (
        "without zookeeper.set.acl (or without a ZooKeeper login: zookeeper_sasl_username over TLS) Kafka's znodes "
        "stay writable by any ZooKeeper client: topic assignments, configs (unclean election back on), SCRAM "
        "credentials")),
    "zookeeper_client_tls": (False, (
        "brokers and the kit reach ZooKeeper on its plaintext port, without a login: every znode they read or "
        "write, SCRAM credentials included, crosses the network in clear")),
    "zookeeper_plaintext_client": (True, (
        "the plaintext client port lets any host talk to ZooKeeper unencrypted and without a certificate")),
    "zookeeper_quorum_tls": (False, (
        "members replicate every znode to each other in clear, SCRAM credentials included")),
    "zookeeper_quorum_port_unification": (True, (
        "members also accept plaintext connections from each other")),
    "kafka_previous_broker_listener": (True, (
        "the previous layout's BROKER listener: a broker's SCRAM password (kafka_inter_broker_sasl_password) makes a "
        "super user there; only while secure_cluster.yml moves the members to certificates")),
    "kafka_previous_controller_listener": (True, (
        "the previous layout's CONTROLLER listener: the members' PLAIN password (kafka_inter_broker_sasl_password) "
        "makes a super user on the KRaft controllers; only while secure_cluster.yml moves the members to "
        "certificates")),
    "zookeeper_previous_tls12": (True, (
        "ZooKeeper's ports also accept TLS 1.2, as the previous layout's members speak it; only while "
        "secure_cluster.yml moves them")),
    "kafka_metrics_open": (True, (
        "every node's metrics endpoint answers anyone who reaches its port, in clear and without a login: topic "
        "names, client ids, principals' request counts and the cluster's health")),
    "zookeeper_admin_server_enabled": (True, (
        "ZooKeeper's HTTP admin server answers anyone who reaches zookeeper_admin_server_port, without TLS or a "
        "login")),
}

# The escape hatches (a role's extra properties or JVM options) must not undo what the roles secure unseen: a key or
# option that decides who gets in, what they may do or how TLS holds is refused unless accepted by name, as
# "<variable>.<key>" (e.g. kafka_extra_properties.ssl.cipher.suites). Prefixes, matched on the key or option.
GUARDED = {
    "kafka": ("listener", "advertised.listeners", "inter.broker", "controller.listener.names", "security.", "ssl.",
              "sasl.", "super.users", "authorizer.", "allow.everyone.if.no.acl.found", "principal.builder.class",
              "connections.max.reauth.ms", "delegation.token", "zookeeper.set.acl", "zookeeper.ssl",
              "zookeeper.clientCnxnSocket"),
    "zookeeper": ("ssl.", "authProvider", "enforce.auth", "skipACL", "clientPort", "secureClientPort", "sslQuorum",
                  "portUnification", "4lw.", "admin.", "superUser", "requireClientAuthScheme",
                  "sessionRequireClientSASLAuth", "DigestAuthenticationProvider"),
    "jvm": ("-Dzookeeper.", "-Dcom.sun.management.jmxremote", "-Djavax.net.", "-Djava.security.", "-Djdk.tls.",
            "-Dhttps.", "-javaagent", "-agentlib:jdwp"),
}


def escape_hatch_refusals(kind, variable, settings, accepted):
    """One refusal per key of settings ({key: value}, or a list of JVM options) that a role's escape hatch may not set
    unseen (GUARDED[kind]), unless kafka_security_exposures_accepted names "<variable>.<key>"."""
    keys = settings if isinstance(settings, list) else list(settings)
    refusals = []
    for key in keys:
        name = key.split("=", 1)[0] if kind == "jvm" else key
        if name.startswith(GUARDED[kind]) and f"{variable}.{name}" not in accepted:
            refusals.append(refusal("secure-default-off-on-purpose", (
                f"{variable} sets {name}, which decides who gets in, what they may do or how TLS holds: the roles set "
                f"those themselves, and an extra setting could undo them unseen. If you mean it, add "
                f"{variable}.{name} to kafka_security_exposures_accepted; otherwise remove it.")))
    return refusals


def tls_protocol_refusals(protocols, accepted):
    """TLS versions other than 1.3 (kafka_tls_protocols) only when accepted by name; 1.3 always (the kit's own
    clients, ZooKeeper's included, speak it)."""
    if "TLSv1.3" not in protocols:
        return [refusal("secure-default-off-on-purpose", (
            f"kafka_tls_protocols is {list(protocols)}: it must hold TLSv1.3, which every client of the kit speaks; "
            "add TLSv1.2 beside it (accepted by name) for applications that cannot."))]
    older = [p for p in protocols if p != "TLSv1.3"]
    if not older or "kafka_tls_protocols" in accepted:
        return []
    return [refusal("secure-default-off-on-purpose", (
        f"kafka_tls_protocols offers {', '.join(older)} besides TLSv1.3: every listener and ZooKeeper port then "
        "accepts an older TLS, for clients whose library has no 1.3. If that is what you want, add "
        "kafka_tls_protocols to kafka_security_exposures_accepted; otherwise set it back to [TLSv1.3]."))]


# Which GUARDED list each escape hatch variable is checked against
ESCAPE_HATCHES = {"kafka_extra_properties": "kafka", "kafka_controller_extra_properties": "kafka",
                  "zookeeper_extra_config": "zookeeper", "kafka_jvm_extra_opts": "jvm",
                  "zookeeper_jvm_extra_opts": "jvm", "kafka_jvm_performance_opts": "jvm"}


def exposure_refusals(settings, accepted, escape_hatches=None, tls_protocols=None):
    """One refusal (refusal.refusal: {rule, message}) per setting of `settings` ({variable: value}, a bool or a string
    such as "true") that opens an exposure not named in `accepted`; none for a setting kept secure or accepted on
    purpose. Then the escape hatches' ({variable: its value}, ESCAPE_HATCHES' variables) and the TLS versions'
    (kafka_tls_protocols), when given."""
    refusals = []
    for variable, value in (escape_hatches or {}).items():
        refusals += escape_hatch_refusals(ESCAPE_HATCHES[variable], variable, value or {}, accepted)
    if tls_protocols is not None:
        refusals += tls_protocol_refusals(tls_protocols, accepted)
    for name, value in settings.items():
        opening_value, what = EXPOSURES[name]
        if boolean(value) == opening_value and name not in accepted:
            refusals.append(refusal("secure-default-off-on-purpose", (
                f"{name}={str(opening_value).lower()} turns off a secure default: {what}. If that is what you want "
                f"(converting an open cluster, a network nobody else reaches), add {name} to "
                "kafka_security_exposures_accepted; otherwise set it back.")))
    return refusals
