"""SCRAM users: the plan and the rules an argument spec cannot express, on hand-written users and
credentials, and the kafka_scram_user module with a fake AdminClient. No password may show in a plan, a
diff, an error or the module's result."""

import json

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import (
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialsDescription,
    UserScramCredentialUpsertion,
)
from test_modules import done, run_module

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_scram
from ansible_collections.kafkaops.toolkit.plugins.modules import kafka_scram_user as module

SECRET = "s3cret-Orders"


def user(name="orders-app", password=SECRET, mechanism="SCRAM-SHA-512", iterations=8192):
    """A user as the argument spec gives it, every field there."""
    return {"name": name, "password": password, "mechanism": mechanism, "iterations": iterations}


def entry(reason, name="orders-app", mechanism="SCRAM-SHA-512", iterations=8192):
    return {"name": name, "mechanism": mechanism, "iterations": iterations, "reason": reason}


def _plan(declared, existing, state="present", update_password="on_create"):
    planned = kafka_scram.plan(declared, existing, state, update_password)
    assert SECRET not in json.dumps(planned) and SECRET not in json.dumps(kafka_scram.diff(existing, planned))
    return planned


# --- plan: present ---------------------------------------------------------------------------------------

def test_a_missing_credential_is_written_whether_the_user_is_left_out_or_empty():
    assert _plan([user()], {}) == {"upserts": [entry("missing")], "deletions": []}
    assert _plan([user()], {"orders-app": []}) == {"upserts": [entry("missing")], "deletions": []}


def test_a_credential_with_other_iterations_is_rewritten_even_on_create():
    existing = {"orders-app": [("SCRAM-SHA-512", 4096)]}
    expected = {"upserts": [entry("iterations differ")], "deletions": []}
    assert _plan([user()], existing, update_password="on_create") == expected
    assert _plan([user()], existing, update_password="always") == expected


def test_an_existing_credential_is_left_alone_on_create_and_rewritten_always():
    existing = {"orders-app": [("SCRAM-SHA-512", 8192)]}
    assert _plan([user()], existing, update_password="on_create") == {"upserts": [], "deletions": []}
    assert _plan([user()], existing, update_password="always") == {"upserts": [entry("update_password=always")],
                                                                    "deletions": []}


def test_each_mechanism_is_planned_on_its_own_and_another_one_stays():
    existing = {"orders-app": [("SCRAM-SHA-256", 4096)]}
    assert _plan([user()], existing) == {"upserts": [entry("missing")], "deletions": []}
    declared = [user(mechanism="SCRAM-SHA-256", iterations=4096), user(iterations=16384)]
    existing = {"orders-app": [("SCRAM-SHA-256", 4096), ("SCRAM-SHA-512", 8192)]}
    assert _plan(declared, existing) == {"upserts": [entry("iterations differ", iterations=16384)],
                                         "deletions": []}


# --- plan: absent ----------------------------------------------------------------------------------------

def test_absent_for_a_user_without_credentials_plans_nothing():
    assert _plan([user(password=None)], {}, "absent") == {"upserts": [], "deletions": []}
    assert _plan([user(password=None)], {"orders-app": []}, "absent") == {"upserts": [], "deletions": []}


def test_absent_deletes_the_declared_mechanism_only_whatever_its_iterations_and_update_password():
    existing = {"orders-app": [("SCRAM-SHA-256", 4096), ("SCRAM-SHA-512", 16384)]}
    expected = {"upserts": [], "deletions": [entry("absent", iterations=16384)]}
    assert _plan([user()], existing, "absent") == expected
    assert _plan([user()], existing, "absent", "always") == expected


# --- check: the rules, each error naming the entry and never a password -----------------------------------

def _error(declared, state="present"):
    with pytest.raises(kafka_scram.ScramError) as caught:
        kafka_scram.check(declared, state)
    assert SECRET not in str(caught.value)
    return str(caught.value)


def test_a_user_declared_twice_the_same_way_is_kept_once():
    assert kafka_scram.check([user(), user(name="billing"), user()], "present") == [user(), user(name="billing")]


def test_a_user_declared_twice_differently_is_refused_with_state_present_only():
    declared = [user(), user(name="billing"), user(password="another-" + SECRET)]
    assert _error(declared) == ("users[2] (orders-app, SCRAM-SHA-512) is also declared as users[0] with another "
                                "password or iterations: declare each user and mechanism once")
    assert "is also declared as users[0]" in _error([user(), user(iterations=4096)])
    assert kafka_scram.check(declared, "absent") == [user(), user(name="billing")]


def test_iterations_outside_what_kafka_takes_are_refused():
    assert _error([user(), user(iterations=4095)]) == (
        "users[1] (orders-app, SCRAM-SHA-512): iterations 4095 is not from 4096 to 16384 (Kafka refuses others)")
    assert "iterations 16385 is not from 4096 to 16384" in _error([user(iterations=16385)])
    declared = [user(iterations=4096), user(mechanism="SCRAM-SHA-256", iterations=16384)]
    assert kafka_scram.check(declared, "present") == declared


@pytest.mark.parametrize("password", [None, ""])
def test_present_needs_a_password_absent_does_not(password):
    assert _error([user(), user(name="billing", password=password)]) == (
        "users[1] (billing, SCRAM-SHA-512): a password is required with state present (from a vault variable)")
    assert kafka_scram.check([user(password=password)], "absent") == [user(password=password)]


# --- diff and documentation -----------------------------------------------------------------------------

def test_diff_shows_credentials_and_marks_the_ones_written():
    existing = {"orders-app": [("SCRAM-SHA-512", 4096)], "billing": [("SCRAM-SHA-256", 8192)], "new": []}
    planned = {"upserts": [entry("iterations differ"), entry("missing", name="new")],
               "deletions": [entry("absent", name="billing", mechanism="SCRAM-SHA-256")]}
    assert kafka_scram.diff(existing, planned) == {
        "before": "billing SCRAM-SHA-256 (8192 iterations)\norders-app SCRAM-SHA-512 (4096 iterations)\n",
        "after": "new SCRAM-SHA-512 (8192 iterations), password set\n"
                 "orders-app SCRAM-SHA-512 (8192 iterations), password set\n"}


def test_the_password_is_never_logged():
    assert module.ARGUMENT_SPEC["users"]["options"]["password"]["no_log"] is True


# --- the module, with a fake AdminClient -----------------------------------------------------------------

CONN = {"bootstrap_servers": "127.0.0.1:9092"}  # no zookeeper_connect: the module does not need it
ORDERS = {"name": "orders-app", "password": SECRET}  # as a user writes it: the argument spec fills in the rest


def _kafka_error(code):
    return KafkaException(KafkaError(code))


class FakeAdmin:
    """credentials {user: [(ScramMechanism, iterations)]}; errors {user: KafkaException} for describe and
    alter_errors {user: KafkaException} for alter."""

    def __init__(self, credentials, errors=None, alter_errors=None):
        self.credentials, self.errors, self.alter_errors = credentials, errors or {}, alter_errors or {}
        self.described, self.altered = [], []

    def describe_user_scram_credentials(self, users, request_timeout):
        self.described.append(users)
        futures = {}
        for user in users:
            if user in self.errors:
                futures[user] = done(error=self.errors[user])
            elif user in self.credentials:
                futures[user] = done(UserScramCredentialsDescription(
                    user, [ScramCredentialInfo(m, i) for m, i in self.credentials[user]]))
            else:
                futures[user] = done(error=_kafka_error(KafkaError.RESOURCE_NOT_FOUND))
        return futures

    def alter_user_scram_credentials(self, alterations, request_timeout):
        self.altered.extend(alterations)
        return {a.user: done(error=self.alter_errors.get(a.user)) for a in alterations}


def _run(monkeypatch, admin, args, check_mode=False, diff=False):
    result = run_module("kafka_scram_user", dict(CONN, _ansible_diff=diff, **args), monkeypatch,
                        check_mode=check_mode, admin_client=lambda params: admin)
    assert SECRET not in json.dumps(result)
    return result


def _upsertions(admin):
    return [(a.user, a.scram_credential_info.mechanism, a.scram_credential_info.iterations, a.password)
            for a in admin.altered if isinstance(a, UserScramCredentialUpsertion)]


def test_module_check_mode_plans_and_writes_nothing(monkeypatch):
    admin = FakeAdmin({"billing": [(ScramMechanism.SCRAM_SHA_512, 8192)]})
    users = [ORDERS, {"name": "billing", "password": SECRET}]
    result = _run(monkeypatch, admin, {"users": users}, check_mode=True, diff=True)
    assert admin.described == [["orders-app", "billing"]] and admin.altered == []
    assert "warnings" not in result  # e.g. Ansible's about an option named like a password without no_log
    assert result["changed"] is True and result["upserted"] == []
    assert result["plan"] == {"upserts": [entry("missing")], "deletions": []}
    assert result["diff"] == {"before": "billing SCRAM-SHA-512 (8192 iterations)\n",
                              "after": "billing SCRAM-SHA-512 (8192 iterations)\n"
                                       "orders-app SCRAM-SHA-512 (8192 iterations), password set\n"}


def test_module_writes_a_user_kafka_has_no_credentials_for(monkeypatch):
    admin = FakeAdmin({})  # describe answers RESOURCE_NOT_FOUND for orders-app
    result = _run(monkeypatch, admin, {"users": [dict(ORDERS, iterations=4096)]})
    assert _upsertions(admin) == [("orders-app", ScramMechanism.SCRAM_SHA_512, 4096, SECRET.encode())]
    assert result["changed"] is True and result["upserted"] == [entry("missing", iterations=4096)]


def test_module_leaves_an_existing_credential_alone_on_create_and_rewrites_it_always(monkeypatch):
    admin = FakeAdmin({"orders-app": [(ScramMechanism.SCRAM_SHA_512, 8192)]})
    result = _run(monkeypatch, admin, {"users": [ORDERS]})
    assert result["changed"] is False and admin.altered == []
    result = _run(monkeypatch, admin, {"users": [ORDERS], "update_password": "always"})
    assert _upsertions(admin) == [("orders-app", ScramMechanism.SCRAM_SHA_512, 8192, SECRET.encode())]
    assert result["changed"] is True and result["upserted"][0]["reason"] == "update_password=always"


def test_module_absent_deletes_the_credential_and_needs_no_password(monkeypatch):
    admin = FakeAdmin({"orders-app": [(ScramMechanism.SCRAM_SHA_256, 4096)]})
    result = _run(monkeypatch, admin, {"users": [{"name": "orders-app", "mechanism": "SCRAM-SHA-256"}],
                                       "state": "absent"})
    assert [(a.user, a.mechanism) for a in admin.altered if isinstance(a, UserScramCredentialDeletion)] == [
        ("orders-app", ScramMechanism.SCRAM_SHA_256)]
    assert (result["changed"], result["deleted"]) == (True, [entry("absent", mechanism="SCRAM-SHA-256",
                                                                    iterations=4096)])


def test_module_absent_for_a_user_without_credentials_is_unchanged(monkeypatch):
    admin = FakeAdmin({})
    result = _run(monkeypatch, admin, {"users": [{"name": "orders-app"}], "state": "absent"})
    assert result["changed"] is False and admin.altered == []


def test_module_fails_on_any_other_describe_error(monkeypatch):
    admin = FakeAdmin({}, errors={"orders-app": _kafka_error(KafkaError.CLUSTER_AUTHORIZATION_FAILED)})
    result = _run(monkeypatch, admin, {"users": [ORDERS]})
    assert result["failed"] is True and admin.altered == []
    assert result["msg"].startswith("cannot read the SCRAM credentials from 127.0.0.1:9092: ")
    assert result["msg"].endswith(". The connecting user must be a super user or have DESCRIBE and ALTER on the "
                                  "cluster resource")


def test_module_reports_the_users_whose_change_failed(monkeypatch):
    admin = FakeAdmin({}, alter_errors={"billing": _kafka_error(KafkaError.UNACCEPTABLE_CREDENTIAL)})
    result = _run(monkeypatch, admin, {"users": [ORDERS, {"name": "billing", "password": SECRET}]})
    assert result["failed"] is True and result["changed"] is True and list(result["errors"]) == ["billing"]
    assert [e["name"] for e in result["upserted"]] == ["orders-app"]
    assert result["msg"].startswith("the SCRAM credentials of 1 user(s) could not be changed: billing: ")


def _no_client(params):
    raise AssertionError("a bad user must fail before connecting")


def test_module_argument_spec_refuses_a_bad_choice_before_connecting(monkeypatch):
    result = run_module("kafka_scram_user", dict(CONN, users=[dict(ORDERS, mechanism="scram-sha-512")]),
                        monkeypatch, admin_client=_no_client)
    assert SECRET not in json.dumps(result)
    assert result["failed"] is True and result["msg"] == (
        "value of mechanism must be one of: SCRAM-SHA-512, SCRAM-SHA-256, got: scram-sha-512 found in users")


def test_module_names_the_entry_a_rule_refuses_before_connecting(monkeypatch):
    users = [ORDERS, dict(ORDERS, password="another-" + SECRET)]
    result = run_module("kafka_scram_user", dict(CONN, users=users), monkeypatch, admin_client=_no_client)
    assert SECRET not in json.dumps(result)
    assert result["failed"] is True and result["msg"].startswith(
        "users[1] (orders-app, SCRAM-SHA-512) is also declared as users[0]")
