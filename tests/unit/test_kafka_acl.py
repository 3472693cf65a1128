"""ACL bindings: the plan and the rules an argument spec cannot express, on hand-written bindings, and the
kafka_acl module with a fake AdminClient."""


import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    ResourcePatternType,
    ResourceType,
)
from test_modules import done, run_module

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_acl


def binding(principal="User:orders-app", resource_type="topic", resource_name="orders", pattern_type="literal",
            operation="read", permission="allow", host="*"):
    """A binding as the argument spec gives it, every field there."""
    return {"principal": principal, "resource_type": resource_type, "resource_name": resource_name,
            "pattern_type": pattern_type, "operation": operation, "permission": permission, "host": host}


EMPTY = {"create": [], "delete": []}


# --- plan ------------------------------------------------------------------------------------------------

def test_present_creates_the_missing_binding_only_and_never_deletes():
    existing = [binding(operation="write"), binding(principal="User:billing")]
    assert kafka_acl.plan([binding(), binding(operation="write")], existing, "present") == {
        "create": [binding()], "delete": []}
    assert kafka_acl.plan([binding()], [binding()] + existing, "present") == EMPTY


def test_absent_deletes_exactly_the_declared_bindings_that_exist():
    existing = [binding(), binding(operation="write"), binding(principal="User:billing")]
    declared = [binding(), binding(operation="describe")]  # describe is not there
    assert kafka_acl.plan(declared, existing, "absent") == {"create": [], "delete": [binding()]}
    assert kafka_acl.plan([binding()], [], "absent") == EMPTY


@pytest.mark.parametrize("field, other", [("host", "10.0.0.7"), ("permission", "deny"),
                                          ("pattern_type", "prefixed"), ("principal", "User:billing"),
                                          ("resource_type", "group"), ("resource_name", "orders2"),
                                          ("operation", "describe")])
def test_a_binding_that_differs_by_one_field_is_another_binding(field, other):
    existing = [binding(**{field: other})]
    assert kafka_acl.plan([binding()], existing, "present") == {"create": [binding()], "delete": []}
    assert kafka_acl.plan([binding()], existing, "absent") == EMPTY


def test_a_binding_declared_twice_is_planned_once_in_declared_order():
    declared = [binding(operation="write"), binding(), binding(operation="write")]
    assert kafka_acl.plan(declared, [], "present") == {"create": [binding(operation="write"), binding()],
                                                       "delete": []}
    assert kafka_acl.plan(declared, [binding(operation="write")], "absent") == {
        "create": [], "delete": [binding(operation="write")]}


# --- the rules, each error naming the entry ------------------------------------------------------------

def _error(**fields):
    with pytest.raises(kafka_acl.AclError) as caught:
        kafka_acl.check(binding(**fields), "acls[1]")
    return str(caught.value)


def test_the_cluster_takes_its_one_name_literal():
    cluster = dict(resource_type="cluster", operation="idempotent_write")
    assert kafka_acl.check(binding(resource_name=None, **cluster), "acls[0]") == binding(
        resource_name="kafka-cluster", **cluster)
    assert _error(resource_name="prod", **cluster) == (
        "acls[1] (User:orders-app idempotent_write on cluster prod): the cluster resource is named "
        "'kafka-cluster' with pattern_type literal (leave resource_name and pattern_type out)")
    assert "the cluster resource is named" in _error(resource_name=None, pattern_type="prefixed", **cluster)


@pytest.mark.parametrize("name", [None, ""])
def test_another_resource_needs_a_name(name):
    assert _error(resource_type="group", resource_name=name) == (
        f"acls[1] (User:orders-app read on group {name}): resource_name is required for a group (\"*\" is "
        "every one)")


def test_a_principal_without_its_type_is_refused():
    assert _error(principal="orders-app") == (
        "acls[1] (orders-app read on topic orders): principal 'orders-app' is not TYPE:NAME, e.g. User:orders-app")
    assert "is not TYPE:NAME" in _error(principal="User:")


def test_an_operation_the_resource_type_is_never_checked_for_is_refused():
    assert _error(resource_type="group", operation="write") == (
        "acls[1] (User:orders-app write on group orders): operation 'write' has no effect on a group; use one of: "
        "read, describe, delete, describe_configs, alter_configs, all")
    assert "has no effect on a topic" in _error(operation="idempotent_write")
    assert "has no effect on a cluster" in _error(resource_type="cluster", resource_name=None, operation="read")
    assert "has no effect on a transactional_id" in _error(resource_type="transactional_id")


def test_all_is_taken_on_every_resource_type():
    for resource_type in ("topic", "group", "cluster", "transactional_id"):
        name = "kafka-cluster" if resource_type == "cluster" else "orders"
        checked = binding(resource_type=resource_type, resource_name=name, operation="all")
        assert kafka_acl.check(checked, "acls[0]") == checked


def test_a_host_name_is_refused_an_address_is_taken():
    assert _error(host="app1.example.com") == (
        "acls[1] (User:orders-app read on topic orders): host 'app1.example.com' is neither \"*\" nor an IP address")
    for host in ("*", "10.0.0.7", "fd00::7"):
        assert kafka_acl.check(binding(host=host), "acls[0]") == binding(host=host)


# --- what the module reads and shows ---------------------------------------------------------------------

def test_resources_are_the_distinct_patterns_to_describe():
    bindings = [binding(), binding(operation="write"), binding(pattern_type="prefixed"),
                binding(resource_type="group", resource_name="g")]
    assert kafka_acl.resources(bindings) == [("group", "g", "literal"), ("topic", "orders", "literal"),
                                             ("topic", "orders", "prefixed")]


def test_diff_shows_the_bindings_before_and_after_as_lines():
    existing = [binding(), binding(principal="User:billing")]
    planned = {"create": [binding(operation="write")], "delete": [binding()]}
    assert kafka_acl.diff(existing, planned) == {
        "before": "allow User:billing read on topic:orders (literal) from *\n"
                  "allow User:orders-app read on topic:orders (literal) from *\n",
        "after": "allow User:billing read on topic:orders (literal) from *\n"
                 "allow User:orders-app write on topic:orders (literal) from *\n"}


# --- the module, with a fake AdminClient -----------------------------------------------------------------

CONN = {"bootstrap_servers": "127.0.0.1:9092"}  # no zookeeper_connect: the module does not need it
READ_ORDERS = {"principal": "User:orders-app", "resource_type": "topic", "resource_name": "orders",
               "operation": "read"}  # as a user writes it: the argument spec fills in the defaults


class FakeAdmin:
    def __init__(self, acls, describe_error=None, create_errors=()):
        self.acls, self.describe_error, self.create_errors = list(acls), describe_error, create_errors
        self.described, self.created, self.deleted = [], [], []

    def describe_acls(self, flt, request_timeout):
        self.described.append(flt)
        if self.describe_error:
            return done(error=self.describe_error)
        return done([a for a in self.acls if a.restype == flt.restype and a.name == flt.name
                      and a.resource_pattern_type == flt.resource_pattern_type])

    def create_acls(self, acls, request_timeout):
        self.created.extend(acls)
        return {a: done(error=KafkaException(KafkaError(KafkaError.INVALID_REQUEST)) if a.principal
                         in self.create_errors else None) for a in acls}

    def delete_acls(self, filters, request_timeout):
        self.deleted.extend(filters)
        return {f: done([a for a in self.acls if a == AclBinding(f.restype, f.name, f.resource_pattern_type,
                                                                  f.principal, f.host, f.operation,
                                                                  f.permission_type)]) for f in filters}


def _client(principal="User:orders-app", name="orders", operation=AclOperation.READ, host="*",
            restype=ResourceType.TOPIC):
    return AclBinding(restype, name, ResourcePatternType.LITERAL, principal, host, operation,
                      AclPermissionType.ALLOW)


def _run(monkeypatch, admin, args, check_mode=False, diff=False):
    return run_module("kafka_acl", dict(CONN, _ansible_diff=diff, **args), monkeypatch, check_mode=check_mode,
                      admin_client=lambda params: admin)


def test_module_check_mode_plans_shows_the_diff_and_changes_nothing(monkeypatch):
    admin = FakeAdmin([_client(principal="User:billing")])
    result = _run(monkeypatch, admin, {"acls": [READ_ORDERS]}, check_mode=True, diff=True)
    assert (result["changed"], result["plan"], result["created"]) == (True, {"create": [binding()],
                                                                            "delete": []}, [])
    assert result["diff"] == {"before": "allow User:billing read on topic:orders (literal) from *\n",
                              "after": "allow User:billing read on topic:orders (literal) from *\n"
                                       "allow User:orders-app read on topic:orders (literal) from *\n"}
    assert admin.created == [] and admin.deleted == []
    assert "warnings" not in result


def test_module_reads_only_the_declared_resources_with_exact_patterns(monkeypatch):
    admin = FakeAdmin([])
    acls = [READ_ORDERS, dict(READ_ORDERS, operation="write"),
            {"principal": "User:orders-app", "resource_type": "cluster", "operation": "idempotent_write"}]
    _run(monkeypatch, admin, {"acls": acls}, check_mode=True)
    assert admin.described == [
        AclBindingFilter(ResourceType.BROKER, "kafka-cluster", ResourcePatternType.LITERAL, None, None,
                         AclOperation.ANY, AclPermissionType.ANY),
        AclBindingFilter(ResourceType.TOPIC, "orders", ResourcePatternType.LITERAL, None, None,
                         AclOperation.ANY, AclPermissionType.ANY)]


def test_module_creates_the_missing_binding_only(monkeypatch):
    admin = FakeAdmin([_client()])
    acls = [READ_ORDERS, {"principal": "User:orders-app", "resource_type": "cluster",
                          "operation": "idempotent_write"}]
    result = _run(monkeypatch, admin, {"acls": acls})
    assert admin.created == [_client(name="kafka-cluster", operation=AclOperation.IDEMPOTENT_WRITE,
                                     restype=ResourceType.BROKER)]
    assert result["changed"] is True and result["created"] == [binding(
        resource_type="cluster", resource_name="kafka-cluster", operation="idempotent_write")]


def test_module_with_everything_there_is_unchanged(monkeypatch):
    admin = FakeAdmin([_client()])
    result = _run(monkeypatch, admin, {"acls": [READ_ORDERS]})
    assert result["changed"] is False and admin.created == [] and admin.deleted == []


def test_module_absent_deletes_through_a_filter_matching_the_binding_alone(monkeypatch):
    admin = FakeAdmin([_client(), _client(host="10.0.0.7"), _client(principal="User:billing")])
    result = _run(monkeypatch, admin, {"acls": [READ_ORDERS], "state": "absent"})
    assert admin.deleted == [AclBindingFilter(ResourceType.TOPIC, "orders", ResourcePatternType.LITERAL,
                                              "User:orders-app", "*", AclOperation.READ, AclPermissionType.ALLOW)]
    assert (result["changed"], result["deleted"]) == (True, [binding()])


def _no_client(params):
    raise AssertionError("a bad binding must fail before connecting")


def test_module_argument_spec_refuses_a_bad_choice_before_connecting(monkeypatch):
    result = run_module("kafka_acl", dict(CONN, acls=[dict(READ_ORDERS, operation="Read")]), monkeypatch,
                        admin_client=_no_client)
    assert result["failed"] is True
    assert result["msg"] == ("value of operation must be one of: read, write, describe, describe_configs, alter, "
                             "alter_configs, create, delete, all, idempotent_write, cluster_action, got: Read "
                             "found in acls")


def test_module_names_the_entry_a_rule_refuses_before_connecting(monkeypatch):
    acls = [READ_ORDERS, dict(READ_ORDERS, host="app1.example.com")]
    result = run_module("kafka_acl", dict(CONN, acls=acls), monkeypatch, admin_client=_no_client)
    assert result["failed"] is True and result["msg"].startswith(
        "acls[1] (User:orders-app read on topic orders): host 'app1.example.com' is neither")


def test_module_without_an_authorizer_says_so(monkeypatch):
    admin = FakeAdmin([], describe_error=KafkaException(KafkaError(KafkaError.SECURITY_DISABLED)))
    result = _run(monkeypatch, admin, {"acls": [READ_ORDERS]})
    assert result["failed"] is True and result["msg"].startswith("cannot read the ACLs from 127.0.0.1:9092: ")
    assert result["msg"].endswith(". No authorizer is configured on the brokers: set authorizer.class.name "
                                  "(kafka.security.authorizer.AclAuthorizer) before declaring ACLs")


def test_module_reports_the_bindings_that_failed_and_those_made(monkeypatch):
    admin = FakeAdmin([], create_errors=("User:bad",))
    acls = [READ_ORDERS, dict(READ_ORDERS, principal="User:bad")]
    result = _run(monkeypatch, admin, {"acls": acls})
    assert result["failed"] is True and result["changed"] is True and result["created"] == [binding()]
    assert list(result["errors"]) == ["allow User:bad read on topic:orders (literal) from *"]
    assert result["msg"].startswith("1 ACL binding(s) could not be changed: allow User:bad read on topic:orders "
                                    "(literal) from *: ")
