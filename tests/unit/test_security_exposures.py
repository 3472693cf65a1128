"""The refusal for a secure default turned off without saying so."""

import pytest

from ansible_collections.kafkaops.toolkit.plugins.module_utils import security_exposures as exposures
from ansible_collections.kafkaops.toolkit.plugins.module_utils.security_exposures import EXPOSURES, exposure_refusals

SECURE = {name: not opening for name, (opening, _) in EXPOSURES.items()}


def test_secure_defaults_are_not_refused():
    assert exposure_refusals(SECURE, []) == []


@pytest.mark.parametrize("name", sorted(EXPOSURES))
def test_each_exposure_is_refused_until_accepted(name):
    opened = {**SECURE, name: EXPOSURES[name][0]}
    refusals = exposure_refusals(opened, [])
    assert [r["rule"] for r in refusals] == ["secure-default-off-on-purpose"]
    message = refusals[0]["message"]
    assert message.startswith(f"{name}={str(EXPOSURES[name][0]).lower()} turns off a secure default: ")
    assert EXPOSURES[name][1] in message and f"add {name} to kafka_security_exposures_accepted" in message
    assert exposure_refusals(opened, [name]) == []
    assert exposure_refusals(opened, [other for other in EXPOSURES if other != name]) == refusals


def test_values_as_extra_vars_give_them():
    """-e kafka_plaintext_listener=true reaches the role as a string."""
    assert len(exposure_refusals({"kafka_plaintext_listener": "true", "zookeeper_quorum_tls": "false"}, [])) == 2
    assert exposure_refusals({"kafka_plaintext_listener": "false", "zookeeper_quorum_tls": "yes"}, []) == []


def test_an_escape_hatch_may_not_set_a_guarded_key_unseen():
    from ansible_collections.kafkaops.toolkit.plugins.module_utils.security_exposures import escape_hatch_refusals
    settings = {"num.replica.fetchers": 4, "ssl.cipher.suites": "TLS_AES_128_GCM_SHA256",
                "listener.name.client.ssl.client.auth": "none"}
    refusals = escape_hatch_refusals("kafka", "kafka_extra_properties", settings, [])
    assert [r["rule"] for r in refusals] == ["secure-default-off-on-purpose"] * 2
    assert "kafka_extra_properties sets ssl.cipher.suites, which decides who gets in" in refusals[0]["message"]
    assert "add kafka_extra_properties.listener.name.client.ssl.client.auth to" in refusals[1]["message"]
    assert len(escape_hatch_refusals("kafka", "kafka_extra_properties", settings,
                                     ["kafka_extra_properties.ssl.cipher.suites"])) == 1
    assert escape_hatch_refusals("zookeeper", "zookeeper_extra_config", {"skipACL": "yes", "globalOutstandingLimit": 1},
                                 [])[0]["message"].startswith("zookeeper_extra_config sets skipACL")
    jvm = escape_hatch_refusals("jvm", "zookeeper_jvm_extra_opts", ["-Xss1m", "-Dzookeeper.skipACL=yes"], [])
    assert len(jvm) == 1 and "sets -Dzookeeper.skipACL," in jvm[0]["message"]


def test_an_older_tls_only_when_accepted():
    from ansible_collections.kafkaops.toolkit.plugins.module_utils.security_exposures import tls_protocol_refusals
    assert tls_protocol_refusals(["TLSv1.3"], []) == []
    assert "offers TLSv1.2 besides TLSv1.3" in tls_protocol_refusals(["TLSv1.3", "TLSv1.2"], [])[0]["message"]
    assert tls_protocol_refusals(["TLSv1.3", "TLSv1.2"], ["kafka_tls_protocols"]) == []
    assert "it must hold TLSv1.3" in tls_protocol_refusals(["TLSv1.2"], ["kafka_tls_protocols"])[0]["message"]


def test_quorum_tuning_passes_the_escape_hatch_and_the_controllers_listener_does_not():
    assert exposures.escape_hatch_refusals("kafka", "kafka_controller_extra_properties",
                                           {"controller.quorum.election.timeout.ms": 2000}, []) == []
    refused = exposures.escape_hatch_refusals("kafka", "kafka_controller_extra_properties",
                                              {"controller.listener.names": "PLAIN"}, [])
    assert [r["rule"] for r in refused] == ["secure-default-off-on-purpose"]
