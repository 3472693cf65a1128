"""Who is who: the subjects the pki role issues, the mapping rules the brokers and controllers apply to them (checked
with Kafka's own SslPrincipalMapper from the distribution `make setup` unpacks), and the refusals."""

import pathlib
import subprocess

import pytest

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_principals as p
from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_versions
from lab import config

REPO = pathlib.Path(__file__).resolve().parents[2]


def rfc2253(ordered):
    """The subject as Kafka sees it: the last RDN issued first."""
    return ",".join(f"{k}={v}" for rdn in reversed(ordered) for k, v in rdn.items())


def kafka_maps(rules, subjects, release="3.9.2"):
    """The principal names the release's SslPrincipalMapper gives the subjects under the rules."""
    libs = config.kafka_libs(release)
    assert libs.is_dir(), f"{libs} missing: run make setup"
    out = subprocess.run(["java", "-cp", f"{libs}/*", str(REPO / "tests/unit/java/MapPrincipals.java"), rules,
                          *subjects], capture_output=True, text=True, check=True, timeout=60).stdout
    return out.splitlines()


def test_subjects_read_as_kafka_reads_them():
    assert rfc2253(p.member_subject("kafka1.kafkalab.test", "prod")) == \
        "CN=kafka1.kafkalab.test,OU=kafkaops-member,O=prod"
    assert rfc2253(p.admin_subject(3, "prod")) == "CN=kafkaops-admin,OU=kafkaops-admin-g3,O=prod"


@pytest.mark.parametrize("release", kafka_versions.RELEASES)
def test_only_this_clusters_members_and_accepted_admin_generations_get_a_principal(release):
    rules = p.mapping_rules("prod.eu-1", "kafka-cluster", "kafkaops-admin", [2, 3])
    cases = {
        rfc2253(p.member_subject("kafka1.example.com", "prod.eu-1")): "kafka-cluster",
        rfc2253(p.member_subject("10.0.0.7", "prod.eu-1")): "kafka-cluster",
        rfc2253(p.admin_subject(2, "prod.eu-1")): "kafkaops-admin",
        rfc2253(p.admin_subject(3, "prod.eu-1")): "kafkaops-admin",
        # a retired admin generation, another cluster sharing the CA, a '.' that is not a wildcard, a certificate
        # of the CA without the marker, one with an extra RDN: each keeps its whole subject, which no ACL names
        rfc2253(p.admin_subject(1, "prod.eu-1")): rfc2253(p.admin_subject(1, "prod.eu-1")),
        rfc2253(p.member_subject("kafka1", "other")): rfc2253(p.member_subject("kafka1", "other")),
        rfc2253(p.member_subject("kafka1", "prodXeu-1")): rfc2253(p.member_subject("kafka1", "prodXeu-1")),
        "CN=zk1.example.com": "CN=zk1.example.com",
        "CN=kafka1,OU=kafkaops-member,O=prod.eu-1,C=DE": "CN=kafka1,OU=kafkaops-member,O=prod.eu-1,C=DE",
        "CN=x,OU=y,OU=kafkaops-member,O=prod.eu-1": "CN=x,OU=y,OU=kafkaops-member,O=prod.eu-1",
    }
    assert dict(zip(cases, kafka_maps(rules, list(cases), release), strict=True)) == cases


def test_without_admin_generations_only_members_map():
    rules = p.mapping_rules("c", "kafka-cluster", "kafkaops-admin", [])
    assert "kafkaops-admin" not in rules
    admin = rfc2253(p.admin_subject(1, "c"))
    assert kafka_maps(rules, [admin]) == [admin]


def test_a_cluster_name_the_rules_cannot_hold_is_an_error():
    with pytest.raises(ValueError, match="letters, digits"):
        p.mapping_rules("a/b", "kafka-cluster", "kafkaops-admin", [1])


def test_a_scram_user_named_as_a_super_user_is_refused():
    supers = ["User:kafka-cluster", "User:kafkaops-admin"]
    assert p.scram_super_user_refusals(supers, ["app", "canary"]) == []
    refusals = p.scram_super_user_refusals(supers, ["app", "kafkaops-admin"])
    assert [r["rule"] for r in refusals] == ["scram-user-is-super-user"]
    assert "SCRAM user 'kafkaops-admin', which is a super user" in refusals[0]["message"]


def test_short_or_published_passwords_are_refused():
    assert p.weak_password_refusals({"app": "x" * 16}) == []
    refusals = p.weak_password_refusals({"a": "short", "b": "REPLACE-kafka_scram_users-with-your-own",
                                         "c": "kafkabroker1-secret"})
    assert [r["rule"] for r in refusals] == ["password-too-weak"] * 3
    assert "the password of a has 5 characters, fewer than 16" in refusals[0]["message"]
    assert "the password of b is published" in refusals[1]["message"]
    assert "the password of c is published" in refusals[2]["message"]


def test_an_inventory_is_refused_for_each_bad_credential():
    refusals = p.credential_refusals(["User:kafka-cluster"], [{"name": "kafka-cluster", "password": "y" * 20},
                                                             {"name": "app", "password": "short"}])
    assert [r["rule"] for r in refusals] == ["scram-user-is-super-user", "password-too-weak"]
    assert "SCRAM user app has 5 characters" in refusals[1]["message"]


def test_the_tools_get_only_what_they_need():
    acls = p.tool_acls("kafkaops-canary", "canary", "kafkaops-validator", "kafkaops-lag-exporter")
    canary = {(a["resource_type"], a.get("resource_name"), a["pattern_type"], a["operation"])
              for a in acls if a["principal"] == "User:kafkaops-canary"}
    assert canary == {("topic", "canary", "prefixed", "write"), ("topic", "canary", "prefixed", "read"),
                      ("topic", "canary", "prefixed", "describe"), ("group", "canary", "prefixed", "read")}
    validator = [a for a in acls if a["principal"] == "User:kafkaops-validator"]
    assert {a["operation"] for a in validator} == {"read", "describe"}
    assert all(a["resource_type"] != "cluster" or a["operation"] == "describe" for a in validator)
    lag_exporter = {(a["resource_type"], a.get("resource_name"), a["operation"])
                    for a in acls if a["principal"] == "User:kafkaops-lag-exporter"}
    assert lag_exporter == {("group", "*", "describe"), ("topic", "*", "describe")}  # reads no record
    assert len(acls) == len(canary) + len(validator) + len(lag_exporter)


def test_a_tool_logs_in_with_its_own_password_on_the_client_listener_and_nothing_of_the_admins():
    admin = {"bootstrap_servers": "k1:9091", "zookeeper_connect": "zk1:2182/kafka", "security_protocol": "SSL",
             "ssl_ca_location": "/pki/ca.pem", "ssl_certificate_location": "/pki/admin/current/chain.pem",
             "ssl_key_location": "/pki/admin/current/key.pem", "zookeeper_tls": True,
             "zookeeper_sasl_username": "kafka", "zookeeper_sasl_password": "zk-secret"}
    login = {"password": "pw", "mechanism": "SCRAM-SHA-256"}
    tool = p.tool_connection_args(admin, "kafkaops-canary", login, "k1:9093")
    assert tool["bootstrap_servers"] == "k1:9093" and tool["security_protocol"] == "SASL_SSL"
    assert tool["sasl_mechanism"] == "SCRAM-SHA-256"  # the mechanism the login is in use under
    assert (tool["sasl_username"], tool["sasl_password"], tool["ssl_ca_location"]) == ("kafkaops-canary", "pw",
                                                                                        "/pki/ca.pem")
    assert not any(tool[k] for k in ("ssl_certificate_location", "ssl_key_location", "zookeeper_connect",
                                     "zookeeper_sasl_password"))
    assert p.tool_connection_args(dict(admin, security_protocol="PLAINTEXT"), "c", {}, "k1:9093") == \
        dict(admin, security_protocol="PLAINTEXT")


def test_the_tools_logins_and_the_inventorys_users_become_scram_users_without_a_next_password():
    logins = {"kafkaops-validator": {"password": "v", "mechanism": "SCRAM-SHA-512"},
              "kafkaops-canary": {"password": "c", "mechanism": "SCRAM-SHA-256"}}
    apps = [{"name": "app", "password": "a", "next_password": "n"}]
    assert p.scram_users_to_make(logins, apps) == [
        {"name": "kafkaops-canary", "password": "c", "mechanism": "SCRAM-SHA-256"},
        {"name": "kafkaops-validator", "password": "v", "mechanism": "SCRAM-SHA-512"},
        {"name": "app", "password": "a"}]


def test_a_next_password_too_weak_is_refused():
    refusals = p.credential_refusals([], [{"name": "app", "password": "a-good-long-password-1",
                                           "next_password": "short"}])
    assert [r["rule"] for r in refusals] == ["password-too-weak"] and "next_password" in refusals[0]["message"]


def test_the_running_super_users_add_the_converting_clusters_principals_only_while_asked():
    listed = ["User:kafka-cluster", "User:kafkaops-admin"]
    assert p.running_super_users(listed) == listed
    assert p.running_super_users(listed, True, "kafka-broker") == listed + ["User:ANONYMOUS", "User:kafka-broker"]
