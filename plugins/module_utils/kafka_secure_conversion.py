"""The plan of converting a running open cluster to the secured one (for the coming secure_cluster.yml): which
steps, read from the configuration every host runs, unit-tested on hand-written states.

A step changes one thing on one kind of host and is followed by a gated roll of those hosts; after each
step every client that worked before still works (both listeners, both ZooKeeper ports, both kinds of
quorum connection are open while anything still uses the old one). The PLAINTEXT listener and ZooKeeper's
plaintext client port go only when asked for (remove_plaintext), last.

A host's state is {"config": {key: value} of its server.properties or zoo.cfg (running_config), "restart_pending":
bool}.
A host whose file changed but which did not restart yet runs the file minus its latest step: that step
counts as not done, so a rerun rolls it. A playbook shows the plan, stops on a refusal and runs the steps.
"""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_connection
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_identity import parse_properties
from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal
from ansible_collections.kafkaops.toolkit.plugins.module_utils.security_exposures import EXPOSURES

KAFKA, ZOOKEEPER = "kafka", "zookeeper"

# (name, kind of host it changes, what it does). The order is the only safe one: every step needs the
# ones before it (brokers can log in to ZooKeeper only on its TLS port; znodes can be locked only once
# every broker logs in). The quorum goes to TLS in ZooKeeper's three rolls: every member accepts both
# kinds (portUnification), then connects with TLS (sslQuorum), then accepts TLS only.
STEPS = (
    ("secure-listeners", KAFKA, "brokers open the SASL_SSL client and the TLS replication listeners beside PLAINTEXT"),
    ("secure-inter-broker", KAFKA, "brokers replicate over the TLS inter-broker listener"),
    ("zookeeper-tls-ports", ZOOKEEPER,
     "ZooKeeper opens its TLS client port beside the plaintext one and accepts TLS from other members"),
    ("zookeeper-tls-quorum", ZOOKEEPER, "ZooKeeper members connect to each other over TLS, still accepting plaintext"),
    ("brokers-log-in-to-zookeeper", KAFKA, "brokers connect to ZooKeeper over TLS and log in with SASL"),
    ("brokers-set-zookeeper-acls", KAFKA,
     "brokers create znodes with ACLs (zookeeper.set.acl), then the existing znodes are locked"),
    ("zookeeper-tls-quorum-only", ZOOKEEPER, "ZooKeeper members accept only TLS from each other"),
    ("kafka-plaintext-removed", KAFKA, "brokers close the PLAINTEXT listener"),
    ("zookeeper-plaintext-removed", ZOOKEEPER, "ZooKeeper closes its plaintext client port"),
)


def step_table(steps):
    """(names in order, step -> kind, step -> what) of a conversion's table of (name, kind, what)."""
    return tuple(n for n, _, _ in steps), {n: k for n, k, _ in steps}, {n: w for n, _, w in steps}


def accepted_exposures(settings):
    """The exposures (security_exposures.EXPOSURES) that role variables (name -> value) open: a step accepts them."""
    return sorted(name for name, value in settings.items() if name in EXPOSURES and value == EXPOSURES[name][0])


STEP_NAMES, KINDS, _WHAT = step_table(STEPS)
PLAINTEXT_REMOVAL = ("kafka-plaintext-removed", "zookeeper-plaintext-removed")

# Znodes whose ACLs show whether the existing tree was locked (the migrator walks all of Kafka's paths;
# these two hold the SCRAM credentials and the topics' assignments), and the chroot's own znode, which the
# migrator leaves as it is (CHROOT, probed when the cluster has a chroot).
ACL_PROBES = ("/config/users", "/brokers/topics")
CHROOT = "/"
_WORLD_WRITE = ("WRITE", "CREATE", "DELETE", "ADMIN", "ALL")


# The keys broker_steps and zookeeper_steps read: the only ones a host's file gives the plan (no secrets among them).
CONFIG_KEYS = {
    KAFKA: ("listeners", "listener.security.protocol.map", "inter.broker.listener.name",
            "security.inter.broker.protocol", "zookeeper.ssl.client.enable", "zookeeper.set.acl",
            "controller.listener.names", "ssl.principal.mapping.rules"),
    ZOOKEEPER: ("clientPort", "secureClientPort", "portUnification", "sslQuorum", "ssl.quorum.enabledProtocols"),
    # a KRaft controller's controller.properties (the identity conversion and the admin certificate's rotation)
    "controller": ("listeners", "listener.security.protocol.map", "controller.listener.names",
                   "ssl.principal.mapping.rules"),
}


def running_config(kind, text):
    """The plan's part of a host's server.properties or zoo.cfg text."""
    config = parse_properties(text)
    return {key: config[key] for key in CONFIG_KEYS[kind] if key in config}


def _true(config, key):
    return str(config.get(key, "")).strip().lower() == "true"


def _listener_protocols(config):
    """Each listener's name and security protocol (kafka_connection.listeners); none for a config that names none (a
    host not configured yet: not Kafka's default listener, which would read as steps done)."""
    if not config.get("listeners"):
        return {}
    return {name: protocol for name, (protocol, _) in kafka_connection.listeners(config).items()}


def broker_steps(config):
    """The conversion steps a broker's configuration has done."""
    protocols = _listener_protocols(config)
    inter_broker = config.get("inter.broker.listener.name") or config.get("security.inter.broker.protocol",
                                                                          "PLAINTEXT")
    done = set()
    if "SASL_SSL" in protocols.values():
        done.add("secure-listeners")
    if protocols.get(inter_broker, inter_broker) in ("SSL", "SASL_SSL"):
        done.add("secure-inter-broker")
    if _true(config, "zookeeper.ssl.client.enable"):
        done.add("brokers-log-in-to-zookeeper")
    if _true(config, "zookeeper.set.acl"):
        done.add("brokers-set-zookeeper-acls")
    if protocols and "PLAINTEXT" not in protocols.values():
        done.add("kafka-plaintext-removed")
    return done


def zookeeper_steps(config):
    """The conversion steps a ZooKeeper member's configuration has done."""
    done = set()
    if config.get("secureClientPort") and (_true(config, "portUnification") or _true(config, "sslQuorum")):
        done.add("zookeeper-tls-ports")
    if _true(config, "sslQuorum"):
        done.add("zookeeper-tls-quorum")
        if not _true(config, "portUnification"):
            done.add("zookeeper-tls-quorum-only")
    if config.get("secureClientPort") and not config.get("clientPort"):
        done.add("zookeeper-plaintext-removed")
    return done


def _running_steps(kind, state):
    """The steps a host runs: what its file says, less the latest step when it has not restarted since."""
    done = (broker_steps if kind == KAFKA else zookeeper_steps)(state["config"])
    if state.get("restart_pending"):
        latest = [name for name in STEP_NAMES if name in done]
        done -= set(latest[-1:])
    return done


def znodes_secured(acls):
    """Whether the probed znodes are locked: none grants anyone (world:anyone) more than reading.

    acls: {path: [{"scheme", "id", "perms": [names]}]} of ACL_PROBES and, with a chroot, CHROOT; a missing
    ACL_PROBES path counts as not locked."""
    if not acls or any(path not in acls for path in ACL_PROBES):
        return False
    for path in acls:
        for acl in acls[path]:
            if (acl["scheme"], acl["id"]) == ("world", "anyone") and set(acl["perms"]) & set(_WORLD_WRITE):
                return False
    return True


def brokers_set_acls(brokers):
    """Whether every broker runs with zookeeper.set.acl (only then may the existing znodes be locked)."""
    return bool(brokers) and all("brokers-set-zookeeper-acls" in _running_steps(KAFKA, s) for s in brokers.values())


def _out_of_order(kind, hosts):
    """Hosts that run a step without one before it that applies to their kind: not a state this plan makes."""
    refusals = []
    kind_steps = [name for name in STEP_NAMES if KINDS[name] == kind]
    for host, state in sorted(hosts.items()):
        done = _running_steps(kind, state)
        for i, name in enumerate(kind_steps):
            missing = [earlier for earlier in kind_steps[:i] if earlier not in done]
            if name in done and missing:
                refusals.append(refusal("secure-step-order", (
                    f"Refusing: {host} runs '{name}' ({_WHAT[name]}) but not '{missing[0]}' "
                    f"({_WHAT[missing[0]]}). That is not a state this playbook makes, so it cannot tell which "
                    "clients still work; bring the host's configuration back to the open or the secured "
                    "settings (kafka.yml / zookeeper.yml with the same variables as the other hosts) first.")))
                break
    return refusals


def conversion_plan(brokers, zookeepers, znode_acls=None, remove_plaintext=False, stop_after=None):
    """Which steps are done, which are left and which this run takes.

    brokers / zookeepers: {host: state} (see the module's docstring; zookeepers None: a KRaft cluster); znode_acls:
    the ACL_PROBES' ACLs (None: not read, because not every broker sets ACLs yet); stop_after: the last step this run
    takes.
    Returns refusals, done, todo (in order, this run's), left_after (steps not taken by this run) and the
    sentence that says what the cluster accepts after it."""
    if stop_after is not None and stop_after not in STEP_NAMES:
        return {"refusals": [refusal("secure-unknown-step", (
            f"Refusing: stop_after={stop_after!r} is not a step; the steps are {', '.join(STEP_NAMES)}."))],
            "done": [], "todo": [], "left_after": [], "after": ""}
    if zookeepers is None:
        return _kraft_plan(brokers)
    hosts = {KAFKA: brokers, ZOOKEEPER: zookeepers}
    refusals = _out_of_order(KAFKA, brokers) + _out_of_order(ZOOKEEPER, zookeepers)
    if stop_after in PLAINTEXT_REMOVAL and not remove_plaintext:
        refusals.append(refusal("secure-plaintext-removal-needs-flag", (
            f"Refusing: stop_after={stop_after} removes a plaintext port, which happens only with "
            "remove_plaintext=true (every client must have moved to the secured ports first).")))
    if not brokers or not zookeepers:
        refusals.append(refusal("secure-no-hosts", "Refusing: the inventory names no brokers or no ZooKeeper members."))
    wanted = [name for name in STEP_NAMES if remove_plaintext or name not in PLAINTEXT_REMOVAL]
    done = []
    for name in STEP_NAMES:
        on_every_host = all(name in _running_steps(KINDS[name], s) for s in hosts[KINDS[name]].values())
        if name == "brokers-set-zookeeper-acls":
            on_every_host = on_every_host and znodes_secured(znode_acls)
        if on_every_host:
            done.append(name)
    left = [name for name in wanted if name not in done]
    todo = left[:left.index(stop_after) + 1] if stop_after in left else ([] if stop_after in done else left)
    return {"refusals": refusals, "done": done, "todo": todo, "left_after": left[len(todo):],
            "after": after_sentence(done + todo)}


def _kraft_plan(brokers):
    """A KRaft cluster has no secure steps to take: the kit deploys it secured (its open clusters are converted in
    ZooKeeper mode, before a migration). One of whose brokers has no SASL_SSL listener is refused."""
    refusals = [] if brokers else [refusal("secure-no-hosts", "Refusing: the inventory names no brokers.")]
    open_brokers = sorted(host for host, state in brokers.items()
                          if "secure-listeners" not in broker_steps(state["config"]))
    if open_brokers:
        refusals.append(refusal("secure-open-kraft", (
            f"Refusing: {', '.join(open_brokers)} run(s) KRaft mode without a secured listener. secure_cluster.yml "
            "secures open clusters in ZooKeeper mode (before their migration to KRaft); nothing changed.")))
    return {"refusals": refusals, "done": [], "todo": [], "left_after": [], "after": "Kafka clients: SASL_SSL (SCRAM)."}


def after_sentence(steps):
    """What the cluster accepts once the given steps are done: the line the plan and the end of the run show."""
    steps = set(steps)
    kafka = ("SASL_SSL (SCRAM) only" if "kafka-plaintext-removed" in steps
             else "SASL_SSL (SCRAM), and PLAINTEXT as a super user" if "secure-listeners" in steps
             else "PLAINTEXT only")
    zookeeper = ("TLS only" if "zookeeper-plaintext-removed" in steps
                 else "TLS and plaintext" if "zookeeper-tls-ports" in steps else "plaintext only")
    znodes = ("locked to the brokers' login" if "brokers-set-zookeeper-acls" in steps
              else "writable by any ZooKeeper client")
    return f"Kafka clients: {kafka}; ZooKeeper clients: {zookeeper}; Kafka's znodes: {znodes}."


def describe(name):
    """A step as the plan shows it."""
    return f"{name} ({KINDS[name]}): {_WHAT[name]}"


def role_settings(steps):
    """The role variables a host renders once `steps` are done (given to the roles while a step is taken),
    and the exposures among them that the run accepts on purpose."""
    steps = set(steps)
    plaintext_listener = "kafka-plaintext-removed" not in steps
    kafka = {
        "kafka_plaintext_listener": plaintext_listener,
        # The open cluster's clients and, until secure-inter-broker, the brokers themselves reach the others
        # as User:ANONYMOUS through PLAINTEXT: they keep the access they had while the authorizer is on.
        "kafka_plaintext_super_user": plaintext_listener,
        "kafka_inter_broker_listener": "REPLICATION" if "secure-inter-broker" in steps else "PLAINTEXT",
        "zookeeper_client_tls": "brokers-log-in-to-zookeeper" in steps,
        "kafka_zookeeper_set_acl": "brokers-set-zookeeper-acls" in steps,
    }
    zookeeper = {
        "zookeeper_plaintext_client": "zookeeper-plaintext-removed" not in steps,
        "zookeeper_quorum_tls": "zookeeper-tls-quorum" in steps,
        "zookeeper_quorum_port_unification": ("zookeeper-tls-ports" in steps
                                              and "zookeeper-tls-quorum-only" not in steps),
    }
    return {"kafka": kafka, "zookeeper": zookeeper, "accepted": accepted_exposures({**kafka, **zookeeper})}


def kit_connection(done):
    """How the kit's own clients (the gates) reach the cluster while the next step rolls, given the steps
    done on every host before it: the secured side as soon as every host offers it."""
    done = set(done)
    return {"kafka_client_security_protocol": "SSL" if "secure-listeners" in done else "PLAINTEXT",
            "zookeeper_client_tls": "zookeeper-tls-ports" in done}


def step_groups(todo, hosts, kinds=None):
    """{"secure_step_<step>": hosts} for each step of todo: every host of the step's kind (hosts: kind -> hosts;
    kinds: step -> kind, default KINDS) and localhost, the controller that rolls them. The groups
    secure_cluster_step.yml's plays run on."""
    kinds = kinds or KINDS
    return {f"secure_step_{name}": hosts[kinds[name]] + ["localhost"] for name in todo}


def step_settings(name):
    """What secure_cluster.yml gives the hosts while it takes step `name` (every step before it is done): the
    variables of the step's hosts (role_settings of the steps up to it, and the exposures they accept) and
    the kit's connection (kit_connection of the steps before it)."""
    index = STEP_NAMES.index(name)
    settings = role_settings(STEP_NAMES[:index + 1])
    hosts = dict(settings[KINDS[name]], kafka_security_exposures_accepted=settings["accepted"])
    return {"kind": KINDS[name], "hosts": hosts, "kit": kit_connection(STEP_NAMES[:index])}
