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

from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_secure_conversion import _listener_protocols
from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal

KAFKA, CONTROLLER, CLUSTER = "kafka", "controller", "cluster"
OLD_BROKER, NEW_BROKER = "BROKER", "REPLICATION"
OLD_QUORUM, NEW_QUORUM = "CONTROLLER", "CONTROLPLANE"

# (name, kind of host it changes, what it does), in the only safe order. On a ZooKeeper cluster the controller steps
# do not apply.
STEPS = (
    ("controlplane-listener", CONTROLLER,
     "controllers open the CONTROLPLANE listener (certificates) beside CONTROLLER"),
    ("quorum-over-certificates", CONTROLLER,
     "controllers reach each other on CONTROLPLANE (the voters' new port), still accepting CONTROLLER"),
    ("brokers-reach-controlplane", KAFKA, "brokers reach the controllers on CONTROLPLANE"),
    ("controller-listener-removed", CONTROLLER, "controllers close the CONTROLLER listener and its PLAIN login"),
    ("replication-listener", KAFKA, "brokers open the REPLICATION listener (certificates) beside BROKER"),
    ("replicate-over-certificates", KAFKA, "brokers replicate over REPLICATION"),
    ("broker-listener-removed", KAFKA, "brokers close the BROKER listener and drop their SCRAM login"),
    ("old-passwords-deleted", CLUSTER, "the members' and the old admin's SCRAM credentials are deleted"),
)
STEP_NAMES = tuple(name for name, _, _ in STEPS)
KINDS = {name: kind for name, kind, _ in STEPS}
_WHAT = {name: what for name, _, what in STEPS}
CONTROLLER_STEPS = tuple(name for name in STEP_NAMES if name in (
    "controlplane-listener", "quorum-over-certificates", "brokers-reach-controlplane", "controller-listener-removed"))

CONFIG_KEYS = ("listeners", "listener.security.protocol.map", "inter.broker.listener.name", "controller.listener.names")


def broker_steps(config):
    """The steps a broker's configuration has done."""
    listeners, done = _listener_protocols(config), set()
    if NEW_BROKER in listeners:
        done.add("replication-listener")
    if config.get("inter.broker.listener.name") == NEW_BROKER:
        done.add("replicate-over-certificates")
    if listeners and OLD_BROKER not in listeners:
        done.add("broker-listener-removed")
    if config.get("controller.listener.names", "").split(",")[0] == NEW_QUORUM:
        done.add("brokers-reach-controlplane")
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


def _running(kind, state):
    done = (broker_steps if kind == KAFKA else controller_steps)(state["config"])
    if state.get("restart_pending"):
        latest = [name for name in STEP_NAMES if name in done and KINDS[name] == kind]
        done -= set(latest[-1:])
    return done


def conversion_plan(brokers, controllers, old_credentials):
    """{"refusals", "done", "todo"}: the steps done on every host they apply to, and those left, in order.

    brokers / controllers: {host: state} (no controllers: a ZooKeeper cluster, whose controller steps do not apply);
    old_credentials: the SCRAM users of the previous layout still in the cluster (the members' and the old admin's)."""
    steps = [s for s in STEP_NAMES if controllers or s not in CONTROLLER_STEPS]
    done = []
    for name in steps:
        if KINDS[name] == CLUSTER:
            finished = not old_credentials and "broker-listener-removed" in done
        else:
            hosts = brokers if KINDS[name] == KAFKA else controllers
            finished = bool(hosts) and all(name in _running(KINDS[name], s) for s in hosts.values())
        if finished:
            done.append(name)
    refusals = _out_of_order(steps, done, brokers, controllers)
    return {"refusals": refusals, "done": done, "todo": [] if refusals else [s for s in steps if s not in done]}


def _out_of_order(steps, done, brokers, controllers):
    """A host that runs a step while one before it is not done on every host is no state this plan makes."""
    refusals = []
    for kind, hosts in ((KAFKA, brokers), (CONTROLLER, controllers)):
        for host, state in sorted(hosts.items()):
            running = _running(kind, state)
            for name in (s for s in steps if KINDS[s] == kind and s in running):
                missing = [s for s in steps[:steps.index(name)] if s not in done and KINDS[s] != CLUSTER]
                if missing:
                    refusals.append(refusal("identity-step-order", (
                        f"Refusing: {host} runs '{name}' ({_WHAT[name]}) while '{missing[0]}' ({_WHAT[missing[0]]}) "
                        "is not done on every host. That is no state this conversion makes; bring the host back to "
                        "the settings of the others, then run it again. Nothing changed.")))
                    break
    return refusals
