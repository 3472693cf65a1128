#!/usr/bin/python
"""Ansible module: declare Kafka SCRAM users idempotently."""

DOCUMENTATION = r"""
module: kafka_scram_user
short_description: Make Kafka SCRAM credentials exist, or not, as declared
version_added: 0.10.0
description:
  - Reads the SCRAM credentials (mechanism and iterations) of the declared users, plans what to write
    (I(state=present)) or delete (I(state=absent)) and applies the plan with the AdminClient.
  - A password cannot be read back, so an existing credential is rewritten only when its iterations
    differ or I(update_password=always). Passwords never appear in the result, the plan, the diff or an
    error message.
  - Needs a super user, or DESCRIBE and ALTER on the cluster.
requirements:
  - confluent-kafka on the host that runs the module (usually the controller)
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.attributes
attributes:
  check_mode:
    support: full
    details: Returns the plan and, with C(--diff), the credentials before and after; writes and deletes nothing.
  diff_mode:
    support: full
    details: The users' credentials (mechanism and iterations, never a password) before and after.
options:
  zookeeper_connect:
    description: Not used; accepted so the kit's connection variables pass.
    type: str
    required: false
  users:
    description:
      - One credential per user and mechanism, each declared once. A bad entry fails the task before
        anything is read (a rule here names it, e.g. C(users[2])).
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: The user name (the principal is C(User:<name>)).
        type: str
        required: true
      password:
        description: Required with I(state=present), ignored with I(state=absent). Never logged.
        type: str
      mechanism:
        description: The SCRAM mechanism.
        type: str
        choices: [SCRAM-SHA-512, SCRAM-SHA-256]
        default: SCRAM-SHA-512
      iterations:
        description: From 4096 to 16384 (Kafka refuses others).
        type: int
        default: 8192
  state:
    description: C(absent) deletes the declared user and mechanism pairs (a credential of another mechanism stays).
    type: str
    choices: [present, absent]
    default: present
  update_password:
    description:
      - C(on_create) writes only credentials that are missing or whose iterations differ; C(always)
        rewrites every declared credential, and the task always reports a change.
    type: str
    choices: [on_create, always]
    default: on_create
seealso:
  - module: kafkaops.toolkit.kafka_acl
    description: What these users may do.
  - module: kafkaops.toolkit.kafka_quorum_info
    description: On a KRaft cluster, waits until every broker has the new credentials.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: SCRAM users of the applications
  kafkaops.toolkit.kafka_scram_user:
    bootstrap_servers: kafka1:9092
    users:
      - {name: orders-app, password: "{{ vault_orders_app_password }}"}
      - {name: billing-app, password: "{{ vault_billing_app_password }}", iterations: 16384}
    update_password: on_create  # always to rotate the passwords
  delegate_to: localhost

- name: Remove a user's credential
  kafkaops.toolkit.kafka_scram_user:
    bootstrap_servers: kafka1:9092
    users: [{name: old-app}]
    state: absent
  delegate_to: localhost
"""

RETURN = r"""
plan:
  description:
    - C(upserts) and C(deletions), each a list of {name, mechanism, iterations, reason}; the reasons are
      C(missing), C(iterations differ), C(update_password=always) and C(absent).
  returned: always
  type: dict
  sample:
    upserts:
      - {name: billing-app, mechanism: SCRAM-SHA-512, iterations: 16384, reason: iterations differ}
    deletions: []
existing:
  description:
    - The credentials the declared users had before the run, user -> [{mechanism, iterations}] (a user without any
      is left out). rotate_credentials.yml reads which mechanism a login has from it.
  returned: always
  type: dict
  sample:
    kafkaops-canary: [{mechanism: SCRAM-SHA-512, iterations: 8192}]
  version_added: 0.12.0
upserted:
  description: Plan entries written (none in check mode).
  returned: always
  type: list
  elements: dict
  sample:
    - {name: billing-app, mechanism: SCRAM-SHA-512, iterations: 16384, reason: iterations differ}
deleted:
  description: Plan entries deleted (none in check mode).
  returned: always
  type: list
  elements: dict
  sample: []
errors:
  description: User -> error, for the users whose change failed.
  returned: on failure
  type: dict
  sample: {billing-app: "KafkaError{code=CLUSTER_AUTHORIZATION_FAILED,...}"}
diff:
  description: The users' credentials as lines, before and after; a credential the plan writes is marked
    C(password set).
  returned: with --diff
  type: dict
  sample:
    before: "billing-app SCRAM-SHA-512 (8192 iterations)\norders-app SCRAM-SHA-512 (8192 iterations)\n"
    after: "billing-app SCRAM-SHA-512 (16384 iterations), password set\norders-app SCRAM-SHA-512 (8192 iterations)\n"
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_scram
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    BROKER_CONNECTION_ARGS,
    admin_client,
    check_resolvable,
    describe_error,
    error_name,
    read_scram_credentials,
)

ARGUMENT_SPEC = dict(
    BROKER_CONNECTION_ARGS,
    users=dict(type="list", elements="dict", required=True, options=dict(
        name=dict(type="str", required=True),
        password=dict(type="str", no_log=True),
        mechanism=dict(type="str", choices=["SCRAM-SHA-512", "SCRAM-SHA-256"], default="SCRAM-SHA-512"),
        iterations=dict(type="int", default=8192),
    )),
    state=dict(type="str", choices=["present", "absent"], default="present"),
    # Not a secret: no_log=False says so to Ansible, which warns about any option named like a password.
    update_password=dict(type="str", choices=["on_create", "always"], default="on_create", no_log=False),
)


def apply(admin, plan, passwords, timeout):
    """Write and delete as planned; passwords {(name, mechanism): password}. Returns (upserted, deleted,
    errors {user: error}): the client answers per user, so a failure fails all of that user's entries."""
    from confluent_kafka import admin as ck
    alterations = [ck.UserScramCredentialUpsertion(
        e["name"], ck.ScramCredentialInfo(ck.ScramMechanism[e["mechanism"].replace("-", "_")], e["iterations"]),
        passwords[(e["name"], e["mechanism"])].encode("utf-8")) for e in plan["upserts"]]
    alterations += [ck.UserScramCredentialDeletion(e["name"], ck.ScramMechanism[e["mechanism"].replace("-", "_")])
                    for e in plan["deletions"]]
    errors = {}
    for name, future in admin.alter_user_scram_credentials(alterations, request_timeout=timeout).items():
        try:
            future.result(timeout * 2)
        except Exception as exc:
            errors[name] = f"{describe_error(exc)}{_hint(exc)}"
    upserted = [e for e in plan["upserts"] if e["name"] not in errors]
    deleted = [e for e in plan["deletions"] if e["name"] not in errors]
    return upserted, deleted, errors


def _hint(exc):
    """What to do about the errors that have one answer."""
    if error_name(exc) == "CLUSTER_AUTHORIZATION_FAILED":
        return ". The connecting user must be a super user or have DESCRIBE and ALTER on the cluster resource"
    return ""


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    p = module.params
    timeout = p["request_timeout"]
    try:
        declared = kafka_scram.check(p["users"], p["state"])
    except kafka_scram.ScramError as exc:
        module.fail_json(msg=str(exc))
    # The AdminClient has no close(): its connections go with the object, dropped when main() returns.
    # Keep the reference until then: a collected client cancels its requests.
    admin = None
    try:
        check_resolvable("bootstrap_servers", p["bootstrap_servers"])
        admin = admin_client(p)
        existing = read_scram_credentials(admin, list(dict.fromkeys(u["name"] for u in declared)), timeout)
    except Exception as exc:
        module.fail_json(msg=f"cannot read the SCRAM credentials from {p['bootstrap_servers']}: "
                             f"{describe_error(exc)}{_hint(exc)}")
    plan = kafka_scram.plan(declared, existing, p["state"], p["update_password"])
    result = dict(changed=bool(plan["upserts"] or plan["deletions"]), plan=plan, upserted=[], deleted=[],
                  existing={name: [{"mechanism": m, "iterations": i} for m, i in pairs]
                            for name, pairs in existing.items() if pairs})
    if module._diff:
        result["diff"] = kafka_scram.diff(existing, plan)
    if module.check_mode or not result["changed"]:
        module.exit_json(**result)
    passwords = {(u["name"], u["mechanism"]): u["password"] for u in declared}
    try:
        upserted, deleted, errors = apply(admin, plan, passwords, timeout)
    except Exception as exc:
        module.fail_json(msg=f"changing the SCRAM credentials on {p['bootstrap_servers']} failed: {describe_error(exc)}"
                             f"{_hint(exc)}. Nothing was changed: fix the cause and rerun", **result)
    result.update(changed=bool(upserted or deleted), upserted=upserted, deleted=deleted)
    if errors:
        lines = "; ".join(f"{name}: {error}" for name, error in errors.items())
        module.fail_json(msg=f"the SCRAM credentials of {len(errors)} user(s) could not be changed: {lines}. "
                             "The other users' were; fix the cause and rerun", errors=errors, **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
