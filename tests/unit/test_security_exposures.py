"""The refusal for a secure default turned off without saying so."""

import pytest

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
