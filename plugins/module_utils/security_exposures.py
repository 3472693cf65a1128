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
}


def exposure_refusals(settings, accepted):
    """One refusal (refusal.refusal: {rule, message}) per setting of `settings` ({variable: value}, a bool or a string
    such as "true") that opens an exposure not named in `accepted`; none for a setting kept secure or accepted on
    purpose."""
    refusals = []
    for name, value in settings.items():
        opening_value, what = EXPOSURES[name]
        if boolean(value) == opening_value and name not in accepted:
            refusals.append(refusal("secure-default-off-on-purpose", (
                f"{name}={str(opening_value).lower()} turns off a secure default: {what}. If that is what you want "
                f"(converting an open cluster, a network nobody else reaches), add {name} to "
                "kafka_security_exposures_accepted; otherwise set it back.")))
    return refusals
