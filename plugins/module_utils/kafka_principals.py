"""Who is who on a secured cluster (docs/design/least-privilege.md): the certificate subjects the pki role issues to
the cluster's members and to the kit's admin, the brokers' and controllers' ssl.principal.mapping.rules that turn
those subjects into principals, and the refusals that keep a password from making anyone a super user.

A subject is written as Kafka sees it (RFC 2253, X500Principal.getName(): the last RDN of the certificate first),
and issued in the reverse order (community.crypto's subject_ordered: O, then OU, then CN).
"""

import re

from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal

MEMBER_UNIT = "kafkaops-member"
ADMIN_NAME = "kafkaops-admin"
ADMIN_UNIT_PREFIX = "kafkaops-admin-g"

# A host name or an address: what the pki role puts in a CN. No comma, backslash or slash: a subject with one
# could not be matched exactly, and Kafka's rule parser treats / and \ apart.
_COMMON_NAME = "[-.:a-zA-Z0-9]+"
_CLUSTER_NAME = re.compile(r"^[-.a-zA-Z0-9_]+$")


def member_subject(common_name, cluster_name):
    """The subject of a broker's or KRaft controller's certificate, as community.crypto's subject_ordered."""
    return [{"O": cluster_name}, {"OU": MEMBER_UNIT}, {"CN": common_name}]


def host_subject(common_name, cluster_name, member):
    """The subject of a host's certificate: a member's (broker, KRaft controller) carries the marker; any other
    host's (a ZooKeeper member, the controller machine) its name alone."""
    return member_subject(common_name, cluster_name) if member else [{"CN": common_name}]


def admin_subject(generation, cluster_name):
    """The subject of the kit's admin certificate of the given generation (an int from 1)."""
    return [{"O": cluster_name}, {"OU": f"{ADMIN_UNIT_PREFIX}{generation}"}, {"CN": ADMIN_NAME}]


def mapping_rules(cluster_name, member_principal, admin_principal, admin_generations):
    """ssl.principal.mapping.rules: a member's certificate of this cluster maps to member_principal, the admin's of an
    accepted generation to admin_principal, anything else to its whole subject (DEFAULT), which no ACL names.

    The patterns match the whole subject, so a certificate with more or other RDNs, or of another cluster sharing
    the CA, does not match."""
    if not _CLUSTER_NAME.match(cluster_name):
        raise ValueError(f"cluster name {cluster_name!r}: letters, digits, '.', '-' and '_' only")
    cluster = cluster_name.replace(".", "[.]")
    rules = [f"RULE:^CN={_COMMON_NAME},OU={MEMBER_UNIT},O={cluster}$/{member_principal}/"]
    generations = sorted({int(g) for g in admin_generations})
    if generations:
        accepted = "|".join(str(g) for g in generations)
        rules.append(f"RULE:^CN={ADMIN_NAME},OU={ADMIN_UNIT_PREFIX}({accepted}),O={cluster}$/{admin_principal}/")
    return ",".join(rules + ["DEFAULT"])


def accepted_admin_generations(rules):
    """The generations of the kit's admin certificate that ssl.principal.mapping.rules (as mapping_rules writes them)
    map to the admin principal: [] for none."""
    found = re.search(rf"OU={ADMIN_UNIT_PREFIX}\(([0-9|]+)\)", rules or "")
    return sorted(int(g) for g in found.group(1).split("|")) if found else []


def tool_acls(canary, canary_prefix, validator, lag_exporter):
    """The ACL bindings (kafka_acl's form) of the kit's tool principals, exactly what each needs:
    the canary writes, reads and describes the topics named canary_prefix..., and reads as groups of that prefix;
    the validator (the Spark validator, the offsets snapshot, read-backs) describes and reads every topic, describes
    every group (their committed offsets) and the cluster, and reads as its own groups and Spark's; the lag exporter
    describes every group and topic (groups' committed offsets, partitions' ends) and reads no record; none may
    create, delete or alter anything."""
    def allow(principal, resource_type, name, operation, pattern="literal"):
        binding = {"principal": f"User:{principal}", "resource_type": resource_type, "operation": operation,
                   "pattern_type": pattern}
        return binding | ({"resource_name": name} if name else {})
    return ([allow(canary, "topic", canary_prefix, op, "prefixed") for op in ("write", "read", "describe")]
            + [allow(canary, "group", canary_prefix, "read", "prefixed")]
            + [allow(validator, "topic", "*", op) for op in ("read", "describe")]
            + [allow(validator, "group", "*", "describe"),
               allow(validator, "group", validator, "read", "prefixed"),
               allow(validator, "group", "spark-kafka-", "read", "prefixed"),
               allow(validator, "cluster", None, "describe")]
            + [allow(lag_exporter, "group", "*", "describe"), allow(lag_exporter, "topic", "*", "describe")])


def scram_users_to_make(tool_logins, scram_users):
    """kafka_scram_user's users: the kit's tool logins ({principal: {password, mechanism}}), then the inventory's
    kafka_scram_users without the next_password of a rotation (rotate_credentials.yml adds that one)."""
    return ([{"name": name, "password": login["password"], "mechanism": login["mechanism"]}
             for name, login in sorted(tool_logins.items())]
            + [{k: v for k, v in user.items() if k != "next_password"} for user in scram_users])


def tool_connection_args(admin_args, principal, login, client_bootstrap_servers):
    """The connection options of one of the kit's tools, from the admin's (the connection role's
    kafka_connection_args): its SCRAM login ({password, mechanism}) on the CLIENT listener (client_bootstrap_servers),
    the cluster's CA, no client certificate and no ZooKeeper. On a cluster the kit reaches in PLAINTEXT (one being
    secured), the admin's options as they are: there is no login to give a tool yet."""
    if admin_args["security_protocol"] == "PLAINTEXT":
        return dict(admin_args)
    return dict(admin_args, bootstrap_servers=client_bootstrap_servers, security_protocol="SASL_SSL",
                sasl_mechanism=login["mechanism"], sasl_username=principal, sasl_password=login["password"],
                ssl_certificate_location="", ssl_key_location="", zookeeper_connect="", zookeeper_tls=False,
                zookeeper_ssl_certificate_location="", zookeeper_ssl_key_location="", zookeeper_sasl_username="",
                zookeeper_sasl_password="")


def scram_super_user_refusals(super_users, scram_users):
    """A SCRAM credential in the name of a super user would let its password alone act as that super user on the
    CLIENT listener (SCRAM credentials are one store for every listener): refuse declaring one.

    super_users: ['User:name', ...]; scram_users: the names of the SCRAM users the inventory declares."""
    supers = {p.split(":", 1)[1] for p in super_users if p.startswith("User:")}
    return [refusal("scram-user-is-super-user", (
        f"Refusing: kafka_scram_users declares a SCRAM user '{name}', which is a super user (kafka_super_users). "
        "Its password alone would be a super user on the CLIENT listener. The cluster's members and the kit's admin "
        "log in by certificate; give an application its own name and ACLs (kafka_acls)."))
        for name in sorted(set(scram_users) & supers)]


MIN_PASSWORD_LENGTH = 16
# Passwords anyone can read: the placeholders of inventories/example (anything "REPLACE-..."), and the examples of
# Kafka's security documentation and of the SCRAM/PLAIN sections of its quickstarts.
PUBLISHED_PREFIX = "REPLACE-"
PUBLISHED = frozenset({
    "admin-secret", "alice-secret", "bob-secret", "kafkabroker1-secret", "kafkabroker-secret", "kafka-secret",
    "broker-secret", "client-secret", "secret", "password", "changeit", "test-secret", "zookeeper-secret",
})


def running_super_users(listed, plaintext_super_user=False, previous_member_user=""):
    """super.users of a broker or controller: the inventory's (kafka_super_users); User:ANONYMOUS while an open
    cluster is converted and its PLAINTEXT clients keep the access they had (plaintext_super_user); the previous
    layout's members' SCRAM user while its BROKER or CONTROLLER listener is open (previous_member_user)."""
    return (list(listed) + (["User:ANONYMOUS"] if plaintext_super_user else [])
            + ([f"User:{previous_member_user}"] if previous_member_user else []))


def credential_refusals(super_users, scram_users):
    """Every refusal of this module for an inventory: scram_users are {name, password, ...} as kafka_scram_users
    declares them. (The previous layout's passwords are not checked: the move to member certificates retires them,
    and a refusal would keep a cluster on them.)"""
    declared = {user["name"]: user.get("password", "") for user in scram_users}
    next_ones = {f"SCRAM user {u['name']} (next_password)": u["next_password"] for u in scram_users
                 if "next_password" in u}
    return (scram_super_user_refusals(super_users, declared)
            + weak_password_refusals({**{f"SCRAM user {n}": pw for n, pw in declared.items()}, **next_ones}))


def weak_password_refusals(passwords):
    """Refuse a password that is too short or that anyone can read (one this repository or Kafka's docs print).

    passwords: {variable or user name: password}."""
    refusals = []
    for name, password in sorted(passwords.items()):
        if password in PUBLISHED or password.startswith(PUBLISHED_PREFIX):
            why = "is published (in this repository's examples or Kafka's documentation)"
        elif len(password) < MIN_PASSWORD_LENGTH:
            why = f"has {len(password)} characters, fewer than {MIN_PASSWORD_LENGTH}"
        else:
            continue
        refusals.append(refusal("password-too-weak", (
            f"Refusing: the password of {name} {why}. Set a new one in your vault (for example "
            "`openssl rand -base64 24`) and run again.")))
    return refusals
