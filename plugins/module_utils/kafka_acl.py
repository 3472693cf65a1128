"""Declared ACL bindings against the ones a cluster has (plain functions, unit-tested on hand-written lists).

A binding is a dict of FIELDS. The kafka_acl module's argument spec checks each field (required, type,
choices, defaults); what a spec cannot express is here: the rules across fields and the plan. Two
bindings are the same only when all seven fields are equal, as Kafka stores them.
"""

import ipaddress

FIELDS = ("principal", "resource_type", "resource_name", "pattern_type", "operation", "permission", "host")
# The authorizer only ever checks this name for the cluster resource; a cluster ACL on another name is dead.
CLUSTER_NAME = "kafka-cluster"
# What the authorizer checks on each resource type (Kafka's AclEntry.supportedOperations, plus all): an ACL
# for another operation is stored but never grants or denies anything. Groups also take describe_configs and
# alter_configs for group configs (KIP-848), which 3.9's list does not have yet.
SUPPORTED_OPERATIONS = {
    "topic": ("read", "write", "describe", "describe_configs", "alter", "alter_configs", "create", "delete"),
    "group": ("read", "describe", "delete", "describe_configs", "alter_configs"),
    "cluster": ("describe", "describe_configs", "alter", "alter_configs", "create", "idempotent_write",
                "cluster_action"),
    "transactional_id": ("describe", "write"),
}


class AclError(ValueError):
    """A declared binding Kafka would store but never use: the message names the entry and what to change."""


def check(binding, where):
    """The binding, with resource_name kafka-cluster filled in for the cluster. AclError naming `where`
    (e.g. "acls[2]") for a principal not TYPE:NAME, a cluster binding not on the literal kafka-cluster,
    another binding without a resource_name, an operation the resource type is never checked for, a host
    neither "*" nor an IP address."""
    b = dict(binding)
    if b["resource_type"] == "cluster":
        b["resource_name"] = b["resource_name"] or CLUSTER_NAME
    where = f"{where} ({b['principal']} {b['operation']} on {b['resource_type']} {b['resource_name']})"
    kind, _, name = b["principal"].partition(":")
    if not kind or not name:
        raise AclError(f"{where}: principal {b['principal']!r} is not TYPE:NAME, e.g. User:orders-app")
    if b["resource_type"] == "cluster" and (b["resource_name"], b["pattern_type"]) != (CLUSTER_NAME, "literal"):
        raise AclError(f"{where}: the cluster resource is named {CLUSTER_NAME!r} with pattern_type literal "
                       "(leave resource_name and pattern_type out)")
    if not b["resource_name"]:  # depends on resource_type, and a null or "" name passes a spec's required_if
        raise AclError(f"{where}: resource_name is required for a {b['resource_type']} (\"*\" is every one)")
    supported = SUPPORTED_OPERATIONS[b["resource_type"]] + ("all",)
    if b["operation"] not in supported:
        raise AclError(f"{where}: operation {b['operation']!r} has no effect on a {b['resource_type']}; use "
                       f"one of: {', '.join(supported)}")
    # Kafka matches the client's IP address, never a name: a host name here would never match.
    if b["host"] != "*":
        try:
            ipaddress.ip_address(b["host"])
        except ValueError:
            raise AclError(f"{where}: host {b['host']!r} is neither \"*\" nor an IP address") from None
    return b


def key(binding):
    return tuple(binding[field] for field in FIELDS)


def resources(bindings):
    """The distinct (resource_type, resource_name, pattern_type) of the bindings, sorted: what to read."""
    return sorted({(b["resource_type"], b["resource_name"], b["pattern_type"]) for b in bindings})


def plan(declared, existing, state):
    """{"create": [...], "delete": [...]} in declared order, a binding declared twice once. present creates
    each declared binding not in existing and deletes nothing; absent deletes each declared binding in
    existing and creates nothing (a binding that is not declared is never touched)."""
    have = {key(b) for b in existing}
    wanted = list({key(b): b for b in declared}.values())
    if state == "present":
        return {"create": [b for b in wanted if key(b) not in have], "delete": []}
    return {"create": [], "delete": [b for b in wanted if key(b) in have]}


def binding_string(b):
    """One line per binding, for diffs and messages: 'allow User:a read on topic:orders (literal) from *'."""
    return (f"{b['permission']} {b['principal']} {b['operation']} on {b['resource_type']}:{b['resource_name']} "
            f"({b['pattern_type']}) from {b['host']}")


def diff(existing, planned):
    """{"before": text, "after": text}: the existing bindings, and them once the plan is applied, one sorted binding
    string a line (the text Ansible's --diff shows line by line)."""
    before = {binding_string(b) for b in existing}
    after = (before - {binding_string(b) for b in planned["delete"]}) | {binding_string(b) for b in planned["create"]}
    return {"before": "".join(f"{b}\n" for b in sorted(before)), "after": "".join(f"{b}\n" for b in sorted(after))}
