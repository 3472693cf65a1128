"""The plan of moving a cluster secured by the previous layout (brokers on a SASL_SSL BROKER listener with one SCRAM
password, KRaft controllers on a SASL_SSL CONTROLLER listener with one PLAIN password) to members that log in by
certificate (docs/design/least-privilege.md): which steps, read from the configuration every host runs, unit-tested
on hand-written states. A step changes one thing on one kind of host and is followed by a gated roll of those hosts;
after each step every member still reaches every other one (both listeners are open while anything uses the old one).

A host's state is {"config": {key: value} of its server.properties or controller.properties (CONFIG_KEYS only),
"restart_pending": bool}; a host whose file changed but which did not restart yet runs the file minus its latest
step (as kafka_secure_conversion). The last step is not a roll: the old SCRAM credentials of the members and of the
kit's admin are deleted once nothing logs in with them.
"""

from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_secure_conversion import (
    _listener_protocols,
    accepted_exposures,
    step_table,
)
from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal

KAFKA, CONTROLLER, ZOOKEEPER, CLUSTER = "kafka", "controller", "zookeeper", "cluster"
OLD_BROKER, NEW_BROKER = "BROKER", "REPLICATION"
OLD_QUORUM, NEW_QUORUM = "CONTROLLER", "CONTROLPLANE"

# (name, kind of host it changes, what it does), in the only safe order. On a ZooKeeper cluster the controller steps
# do not apply, on KRaft the ZooKeeper ones. On KRaft the brokers reach the controllers on CONTROLPLANE from the
# step that opens REPLICATION (both are their certificates' first use); the controllers close CONTROLLER once no
# broker uses it.
STEPS = (
    ("zookeeper-tls-both", ZOOKEEPER,
     "ZooKeeper members take this layout's settings (a login required) accepting TLS 1.2 beside 1.3, which the "
     "previous layout's members speak to each other"),
    ("controlplane-listener", CONTROLLER,
     "controllers open the CONTROLPLANE listener (certificates) beside CONTROLLER"),
    ("quorum-over-certificates", CONTROLLER,
     "controllers reach each other on CONTROLPLANE (the voters' new port), still accepting CONTROLLER"),
    ("replication-listener", KAFKA, "brokers open the REPLICATION listener (certificates) beside BROKER (on KRaft, "
                                    "and reach the controllers on CONTROLPLANE)"),
    ("replicate-over-certificates", KAFKA, "brokers replicate over REPLICATION"),
    ("broker-listener-removed", KAFKA, "brokers close the BROKER listener and drop their SCRAM login"),
    ("controller-listener-removed", CONTROLLER, "controllers close the CONTROLLER listener and its PLAIN login"),
    ("zookeeper-tls13-only", ZOOKEEPER, "ZooKeeper members accept TLS 1.3 alone (kafka_tls_protocols)"),
    ("old-passwords-deleted", CLUSTER, "the members' and the old admin's SCRAM credentials are deleted"),
)
STEP_NAMES, KINDS, _WHAT = step_table(STEPS)

def broker_steps(config):
    """The steps a broker's configuration has done."""
    listeners, done = _listener_protocols(config), set()
    quorum = config.get("controller.listener.names", "").split(",")[0]  # a KRaft broker's
    if NEW_BROKER in listeners and quorum in ("", NEW_QUORUM):
        done.add("replication-listener")
    if config.get("inter.broker.listener.name") == NEW_BROKER:
        done.add("replicate-over-certificates")
    if listeners and OLD_BROKER not in listeners:
        done.add("broker-listener-removed")
    return done


def controller_steps(config):
    """The steps a KRaft controller's configuration has done."""
    listeners, done = _listener_protocols(config), set()
    names = [n for n in config.get("controller.listener.names", "").split(",") if n]
    if NEW_QUORUM in listeners:
        done.add("controlplane-listener")
    if names[:1] == [NEW_QUORUM]:
        done.add("quorum-over-certificates")
    if listeners and OLD_QUORUM not in listeners:
        done.add("controller-listener-removed")
    return done


def zookeeper_steps(config, keep_tls12=False):
    """The steps a ZooKeeper member's zoo.cfg has done (keep_tls12: the inventory's kafka_tls_protocols hold TLS 1.2,
    so the member keeps it)."""
    protocols = config.get("ssl.quorum.enabledProtocols")
    if protocols is None:  # the previous layout's zoo.cfg names no TLS version
        return set()
    return {"zookeeper-tls-both"} | ({"zookeeper-tls13-only"} if keep_tls12 or "TLSv1.2" not in protocols else set())


def _running(kind, state, keep_tls12=False):
    if kind == ZOOKEEPER:
        done = zookeeper_steps(state["config"], keep_tls12)
    else:
        done = (broker_steps if kind == KAFKA else controller_steps)(state["config"])
    if state.get("restart_pending"):
        latest = [name for name in STEP_NAMES if name in done and KINDS[name] == kind]
        done -= set(latest[-1:])
    return done


# The previous layout's logins the inventory must still hold for the steps that use them: the members' login while
# a step renders the BROKER or the CONTROLLER listener (or a broker's login to it), the kit's old admin login until
# every broker opens REPLICATION.
NEEDS = {
    "kafka_inter_broker_sasl_password": ("controlplane-listener", "quorum-over-certificates", "replication-listener",
                                         "replicate-over-certificates"),
    "kafka_client_sasl_username": ("controlplane-listener", "quorum-over-certificates", "replication-listener"),
    "kafka_client_sasl_password": ("controlplane-listener", "quorum-over-certificates", "replication-listener"),
}


def applicable_steps(controllers, zookeepers):
    """The move's steps for a cluster with these controllers or ZooKeeper members ({host: state}; the other kind's
    steps do not apply), in order."""
    present = {KAFKA: True, CLUSTER: True, CONTROLLER: bool(controllers), ZOOKEEPER: bool(zookeepers)}
    return [name for name in STEP_NAMES if present[KINDS[name]]]


def conversion_plan(brokers, controllers, old_credentials, inventory_has=(), zookeepers=None, keep_tls12=False):
    """{"refusals", "done", "todo"}: the steps done on every host they apply to, and those left, in order.

    brokers / controllers / zookeepers: {host: state} (no controllers: a ZooKeeper cluster, no zookeepers: a KRaft
    one; the other kind's steps do not apply); old_credentials: the SCRAM users of the previous layout still in the
    cluster (the members' and the old admin's), None when not read (it is read once the brokers' BROKER listener is
    closed); inventory_has: which of NEEDS' variables the inventory sets; keep_tls12: the inventory's
    kafka_tls_protocols hold TLS 1.2."""
    hosts = {KAFKA: brokers, CONTROLLER: controllers or {}, ZOOKEEPER: zookeepers or {}}
    steps = applicable_steps(controllers, zookeepers)
    done = []
    for name in steps:
        if KINDS[name] == CLUSTER:
            finished = old_credentials == [] and "broker-listener-removed" in done
        else:
            finished = bool(hosts[KINDS[name]]) and all(
                name in _running(KINDS[name], s, keep_tls12) for s in hosts[KINDS[name]].values())
        if finished:
            done.append(name)
    refusals = _out_of_order(steps, done, hosts, keep_tls12)
    todo = [s for s in steps if s not in done]
    for variable, steps_using in NEEDS.items():
        using = [s for s in todo if s in steps_using]
        if using and variable not in inventory_has:
            refusals.append(refusal("identity-previous-login-missing", (
                f"Refusing: the step '{using[0]}' still needs the previous layout's {variable}, which the inventory no "
                "longer sets: keep it there until the move to member certificates is done "
                "(docs/runbooks/credentials.md). Nothing changed.")))
    return {"refusals": refusals, "done": done, "todo": [] if refusals else todo}


def replication_listener_refusal(host, running_inter_broker, listeners):
    """Why a roll must not render listeners (names) for a broker that replicates over running_inter_broker (its file's
    inter.broker.listener.name, None without one): a roll never closes the listener a broker replicates over, or the
    brokers rolled and those not yet could not replicate from each other (site.yml on a cluster of the previous layout
    would close BROKER in one roll). None when it may."""
    if not running_inter_broker or running_inter_broker in listeners:
        return None
    return refusal("identity-replication-listener-kept", (
        f"Refusing: {host} replicates over its {running_inter_broker} listener, which this run would close in one "
        "roll: the brokers restarted and those not yet could not replicate from each other. "
        + ("It runs the previous layout (members logging in with a password): playbooks/secure_cluster.yml moves it "
           "to member certificates step by step (docs/runbooks/credentials.md)." if running_inter_broker == OLD_BROKER
           else "Move replication to another listener first (kafka_inter_broker_listener), then close this one.")))


def follows(secure_plan):
    """Whether secure_cluster.yml plans the move to member certificates: once its secure steps left nothing to do (an
    open cluster's secure steps leave its members on certificates already: it then finds nothing to do here)."""
    return not (secure_plan["refusals"] or secure_plan["todo"] or secure_plan["left_after"])


def previous_users_readable(brokers):
    """Whether the previous layout's SCRAM users are read: once no broker's file has the BROKER listener (then the kit
    reaches every broker with its certificate)."""
    return bool(brokers) and all("broker-listener-removed" in broker_steps(s["config"]) for s in brokers.values())


def after_secure_steps(secure_plan, brokers, controllers, old_credentials, inventory_has, stop_after=None,
                       zookeepers=None, keep_tls12=False):
    """secure_cluster.yml's plan once its secure steps are done: the move's steps (up to stop_after), in the secure
    plan's shape (refusals, done, todo, left_after, after, plan)."""
    moved = conversion_plan(brokers, controllers, old_credentials, inventory_has, zookeepers, keep_tls12)
    here = applicable_steps(controllers, zookeepers)
    if stop_after in STEP_NAMES and stop_after not in here:
        moved["refusals"] = moved["refusals"] + [refusal("secure-unknown-step", (
            f"Refusing: stop_after={stop_after} is not a step of this cluster's move to member certificates; its "
            f"steps are {', '.join(here)}. Nothing changed."))]
        moved["todo"] = []
    todo = moved["todo"]
    if stop_after in todo:
        todo = todo[:todo.index(stop_after) + 1]
    elif stop_after is not None:
        todo = []  # a step done already (a rerun of a run that stopped there, or a secure step): nothing to take
    left = moved["todo"][len(todo):]
    members = ("by certificate" if not moved["refusals"] and not left
               else "the previous layout's passwords still work")
    return dict(secure_plan, refusals=moved["refusals"], done=secure_plan["done"] + moved["done"], todo=todo,
                left_after=left, after=f"{secure_plan['after']} Members: {members}.",
                plan=[describe(name) for name in todo])


def role_settings(steps):
    """The role variables each kind of host renders once `steps` are done (given to the roles while a step is taken)."""
    steps = set(steps)
    kafka = {
        "kafka_previous_broker_listener": "broker-listener-removed" not in steps,
        "kafka_inter_broker_listener": NEW_BROKER if "replicate-over-certificates" in steps else OLD_BROKER,
        "kafka_quorum_listener": NEW_QUORUM if "replication-listener" in steps else OLD_QUORUM,
    }
    controller = {
        "kafka_previous_controller_listener": "controller-listener-removed" not in steps,
        "kafka_quorum_listener": NEW_QUORUM if "quorum-over-certificates" in steps else OLD_QUORUM,
    }
    zookeeper = {"zookeeper_previous_tls12": "zookeeper-tls13-only" not in steps}
    return {KAFKA: kafka, CONTROLLER: controller, ZOOKEEPER: zookeeper}


def kit_connection(done, quorum_listener):
    """How the kit's own clients reach the cluster while the next step rolls, given the steps done on every host
    before it: the brokers with the previous admin's SCRAM login on CLIENT (the inventory's kafka_client_sasl_*) until
    every broker opens REPLICATION, then with the admin certificate there; the controllers (the controllers' roll,
    with the tool settings each controller has from this step on) on the listener they name first (quorum_listener)."""
    return {"kafka_client_security_protocol": "SSL" if "replication-listener" in set(done) else "SASL_SSL",
            "kafka_quorum_listener": quorum_listener}


def step_settings(name):
    """What secure_cluster.yml gives the hosts while it takes step `name` (every step before it is done): the
    variables of the step's hosts and the kit's connection."""
    index = STEP_NAMES.index(name)
    settings = role_settings(STEP_NAMES[:index + 1])
    own = settings.get(KINDS[name], {})
    hosts = dict(own, kafka_security_exposures_accepted=accepted_exposures(own))
    return {"kind": KINDS[name], "hosts": hosts,
            "kit": kit_connection(STEP_NAMES[:index], settings[CONTROLLER]["kafka_quorum_listener"])}


def describe(name):
    """A step as the plan shows it."""
    return f"{name} ({KINDS[name]}): {_WHAT[name]}"


def _out_of_order(steps, done, hosts, keep_tls12):
    """A host that runs a step while one before it is not done on every host is no state this plan makes."""
    refusals = []
    for kind in (ZOOKEEPER, CONTROLLER, KAFKA):
        for host, state in sorted(hosts[kind].items()):
            running = _running(kind, state, keep_tls12)
            for name in (s for s in steps if KINDS[s] == kind and s in running):
                missing = [s for s in steps[:steps.index(name)] if s not in done and KINDS[s] != CLUSTER]
                if missing:
                    refusals.append(refusal("identity-step-order", (
                        f"Refusing: {host} runs '{name}' ({_WHAT[name]}) while '{missing[0]}' ({_WHAT[missing[0]]}) "
                        "is not done on every host. That is no state this conversion makes; bring the host back to "
                        "the settings of the others, then run it again. Nothing changed.")))
                    break
    return refusals
