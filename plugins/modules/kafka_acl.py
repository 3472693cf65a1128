#!/usr/bin/python
"""Ansible module: declare Kafka ACL bindings idempotently."""

DOCUMENTATION = r"""
module: kafka_acl
short_description: Make Kafka ACL bindings exist, or not, exactly as declared
version_added: 0.10.0
description:
  - Reads the ACL bindings on the declared bindings' resources, plans what to create (I(state=present)) or
    delete (I(state=absent)) and applies the plan with the AdminClient.
  - A binding is all seven fields (one that differs only by host or permission is another binding).
    I(state=present) never removes a binding that is not declared; I(state=absent) removes exactly the
    declared bindings, each through a filter that matches it alone.
  - Needs an authorizer on the brokers, and a super user or ALTER and DESCRIBE on the cluster.
requirements:
  - confluent-kafka on the host that runs the module (usually the controller, with C(delegate_to=localhost))
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.attributes
attributes:
  check_mode:
    support: full
    details: Returns the plan and, with C(--diff), the bindings before and after; creates and deletes nothing.
  diff_mode:
    support: full
    details: The bindings on the declared resources before and after, one line each.
options:
  zookeeper_connect:
    description: Not used; accepted so the kit's connection variables pass.
    type: str
    required: false
  acls:
    description:
      - The bindings; a binding declared twice counts once. A bad field, or a binding Kafka would store but
        never use, fails the task before anything is read (the latter naming the entry, e.g. C(acls[2])).
    type: list
    elements: dict
    required: true
    suboptions:
      principal:
        description: C(TYPE:NAME), e.g. C(User:orders-app); C(User:*) is every user.
        type: str
        required: true
      resource_type:
        description: The resource type.
        type: str
        required: true
        choices: [topic, group, cluster, transactional_id]
      resource_name:
        description:
          - The name (a prefix with I(pattern_type=prefixed)); C(*) with a literal pattern is every resource.
          - Required except for C(cluster), whose only name is C(kafka-cluster) (filled in).
        type: str
      pattern_type:
        description: How I(resource_name) matches; the cluster is always literal.
        type: str
        choices: [literal, prefixed]
        default: literal
      operation:
        description: Refused on a resource type the authorizer never checks it on (e.g. C(write) on a group).
        type: str
        required: true
        choices: [read, write, describe, describe_configs, alter, alter_configs, create, delete, all,
                  idempotent_write, cluster_action]
      permission:
        description: Allow or deny the operation.
        type: str
        choices: [allow, deny]
        default: allow
      host:
        description: The client IP address, or C(*) for any (Kafka never matches a host name).
        type: str
        default: "*"
  state:
    description: Whether the bindings exist.
    type: str
    choices: [present, absent]
    default: present
seealso:
  - module: kafkaops.toolkit.kafka_scram_user
    description: The SCRAM credentials of the principals these bindings name.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Let orders-app produce to and consume from the orders topics
  kafkaops.toolkit.kafka_acl:
    bootstrap_servers: kafka1:9093
    security_protocol: SASL_SSL
    sasl_mechanism: SCRAM-SHA-512
    sasl_username: kafka-admin
    sasl_password: "{{ vault_kafka_admin_password }}"
    ssl_ca_location: /etc/kafka-kit/ca.pem
    acls:
      - {principal: "User:orders-app", resource_type: topic, resource_name: orders., pattern_type: prefixed,
         operation: write}
      - {principal: "User:orders-app", resource_type: group, resource_name: orders-app, operation: read}
      - {principal: "User:orders-app", resource_type: cluster, operation: idempotent_write}
  delegate_to: localhost

- name: Take back a binding (the connection options from module_defaults, as the playbooks pass them)
  kafkaops.toolkit.kafka_acl:
    acls: [{principal: "User:old-app", resource_type: topic, resource_name: orders, operation: read}]
    state: absent
  delegate_to: localhost
  module_defaults:
    group/kafkaops.toolkit.kafka: "{{ kafka_connection_args }}"
"""

RETURN = r"""
plan:
  description: The bindings to create and to delete, each as in I(acls) (all seven fields).
  returned: always
  type: dict
  sample:
    create:
      - {principal: "User:orders-app", resource_type: topic, resource_name: orders., pattern_type: prefixed,
         operation: write, permission: allow, host: "*"}
    delete: []
created:
  description: The bindings created (none in check mode).
  returned: always
  type: list
  elements: dict
  sample:
    - {principal: "User:orders-app", resource_type: topic, resource_name: orders., pattern_type: prefixed,
       operation: write, permission: allow, host: "*"}
deleted:
  description: The bindings deleted, as the cluster reported them (none in check mode).
  returned: always
  type: list
  elements: dict
  sample: []
errors:
  description: The bindings (one line each) whose change failed, and the error.
  returned: on failure
  type: dict
  sample: {"allow User:orders-app write on topic:orders. (prefixed) from *": "KafkaError{code=SECURITY_DISABLED,...}"}
diff:
  description: The bindings on the declared resources before and after, one line each, sorted.
  returned: with --diff
  type: dict
  sample:
    before: ""
    after: "allow User:orders-app write on topic:orders. (prefixed) from *\n"
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_acl
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    BROKER_CONNECTION_ARGS,
    admin_client,
    check_resolvable,
    describe_error,
    error_name,
)

ARGUMENT_SPEC = dict(
    BROKER_CONNECTION_ARGS,
    acls=dict(type="list", elements="dict", required=True, options=dict(
        principal=dict(type="str", required=True),
        resource_type=dict(type="str", required=True, choices=["topic", "group", "cluster", "transactional_id"]),
        resource_name=dict(type="str"),
        pattern_type=dict(type="str", choices=["literal", "prefixed"], default="literal"),
        operation=dict(type="str", required=True, choices=[
            "read", "write", "describe", "describe_configs", "alter", "alter_configs", "create", "delete", "all",
            "idempotent_write", "cluster_action"]),
        permission=dict(type="str", choices=["allow", "deny"], default="allow"),
        host=dict(type="str", default="*"),
    )),
    state=dict(type="str", choices=["present", "absent"], default="present"),
)

# The choices are confluent-kafka's enum names in lower case, but Kafka's cluster is its BROKER.
_RESOURCE_TYPES = {"topic": "TOPIC", "group": "GROUP", "cluster": "BROKER", "transactional_id": "TRANSACTIONAL_ID"}


def _to_client(b, cls=None):
    """b as an AclBinding, or with cls=AclBindingFilter as a filter matching it alone (no ANY, no MATCH)."""
    from confluent_kafka import admin as ck
    return (cls or ck.AclBinding)(ck.ResourceType[_RESOURCE_TYPES[b["resource_type"]]], b["resource_name"],
                                  ck.ResourcePatternType[b["pattern_type"].upper()], b["principal"], b["host"],
                                  ck.AclOperation[b["operation"].upper()],
                                  ck.AclPermissionType[b["permission"].upper()])


def from_client(acl):
    """An AclBinding read back, as a binding dict."""
    types = {client: ours for ours, client in _RESOURCE_TYPES.items()}
    return {"principal": acl.principal, "resource_type": types[acl.restype.name],
            "resource_name": acl.name, "pattern_type": acl.resource_pattern_type.name.lower(),
            "operation": acl.operation.name.lower(), "permission": acl.permission_type.name.lower(),
            "host": acl.host}


def read_existing(admin, declared, timeout):
    """Every binding on the declared resources, other principals' too (for the diff). An exact pattern
    type, not MATCH: a prefixed or wildcard binding is another resource."""
    from confluent_kafka import admin as ck
    futures = [admin.describe_acls(ck.AclBindingFilter(
        ck.ResourceType[_RESOURCE_TYPES[rtype]], name, ck.ResourcePatternType[pattern.upper()], None, None,
        ck.AclOperation.ANY, ck.AclPermissionType.ANY), request_timeout=timeout)
        for rtype, name, pattern in kafka_acl.resources(declared)]
    return [from_client(acl) for future in futures for acl in future.result(timeout * 2)]


def apply(admin, plan, timeout):
    """Delete and create as planned. Returns (created, deleted, errors {binding line: error})."""
    from confluent_kafka.admin import AclBindingFilter
    created, deleted, errors = [], [], {}
    if plan["delete"]:
        filters = [_to_client(b, AclBindingFilter) for b in plan["delete"]]
        futures = admin.delete_acls(filters, request_timeout=timeout)
        for binding, flt in zip(plan["delete"], filters, strict=True):
            try:
                deleted.extend(from_client(acl) for acl in futures[flt].result(timeout * 2))
            except Exception as exc:
                errors[kafka_acl.binding_string(binding)] = f"{describe_error(exc)}{_hint(exc)}"
    if plan["create"]:
        acls = [_to_client(b) for b in plan["create"]]
        futures = admin.create_acls(acls, request_timeout=timeout)
        for binding, acl in zip(plan["create"], acls, strict=True):
            try:
                futures[acl].result(timeout * 2)
                created.append(binding)
            except Exception as exc:
                errors[kafka_acl.binding_string(binding)] = f"{describe_error(exc)}{_hint(exc)}"
    return created, deleted, errors


def _hint(exc):
    """What to do about the errors that have one answer."""
    name = error_name(exc)
    if name == "SECURITY_DISABLED":
        return (". No authorizer is configured on the brokers: set authorizer.class.name "
                "(kafka.security.authorizer.AclAuthorizer) before declaring ACLs")
    if name == "CLUSTER_AUTHORIZATION_FAILED":
        return ". The connecting user must be a super user or have ALTER and DESCRIBE on the cluster resource"
    return ""


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    p = module.params
    timeout = p["request_timeout"]
    try:
        declared = [kafka_acl.check(b, f"acls[{i}]") for i, b in enumerate(p["acls"])]
    except kafka_acl.AclError as exc:
        module.fail_json(msg=str(exc))
    # The AdminClient has no close(): its connections go with the object, dropped when main() returns.
    # Keep the reference until then: a collected client cancels its requests.
    admin = None
    try:
        check_resolvable("bootstrap_servers", p["bootstrap_servers"])
        admin = admin_client(p)
        existing = read_existing(admin, declared, timeout)
    except Exception as exc:
        module.fail_json(msg=f"cannot read the ACLs from {p['bootstrap_servers']}: {describe_error(exc)}{_hint(exc)}")
    plan = kafka_acl.plan(declared, existing, p["state"])
    result = dict(changed=bool(plan["create"] or plan["delete"]), plan=plan, created=[], deleted=[])
    if module._diff:
        result["diff"] = kafka_acl.diff(existing, plan)
    if module.check_mode or not result["changed"]:
        module.exit_json(**result)
    try:
        created, deleted, errors = apply(admin, plan, timeout)
    except Exception as exc:
        module.fail_json(msg=f"changing the ACLs on {p['bootstrap_servers']} failed: "
                             f"{describe_error(exc)}{_hint(exc)}. "
                             "Nothing or part of the plan was applied: rerun to finish it", **result)
    result.update(changed=bool(created or deleted), created=created, deleted=deleted)
    if errors:
        lines = "; ".join(f"{line}: {error}" for line, error in errors.items())
        module.fail_json(msg=f"{len(errors)} ACL binding(s) could not be changed: {lines}. The others were; "
                             "fix the cause and rerun", errors=errors, **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
