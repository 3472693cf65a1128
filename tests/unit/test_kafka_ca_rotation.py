"""The CA rotation plan on hand-written host states (fingerprints OLD and NEW)."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_ca_rotation as rot

OLD, NEW = "old-ca", "new-ca"
START = {"trusted": [OLD], "issuer": OLD}
TRUST_BOTH = {"trusted": [OLD, NEW], "issuer": OLD}
REISSUED = {"trusted": [OLD, NEW], "issuer": NEW}
FINISHED = {"trusted": [NEW], "issuer": NEW}
HOSTS = ("kafka1", "kafka2", "zk1")


def _plan(default, **overrides):
    return rot.rotation_plan({h: overrides.get(h, default) for h in HOSTS}, OLD, NEW)


def _rules(plan):
    return [r["rule"] for r in plan["refusals"]]


def test_from_the_start_every_phase_on_every_host():
    plan = _plan(START)
    assert plan["refusals"] == [] and plan["done"] == []
    assert plan["todo"] == [{"phase": p, "hosts": list(HOSTS)} for p in rot.PHASES]


def test_a_run_cut_off_in_the_first_phase_resumes_with_the_hosts_left():
    plan = _plan(START, kafka1=TRUST_BOTH)
    assert plan["refusals"] == []
    assert plan["todo"][0] == {"phase": "trust-both", "hosts": ["kafka2", "zk1"]}


def test_reissue_follows_once_every_host_trusts_both():
    plan = _plan(TRUST_BOTH, zk1=REISSUED)
    assert plan["refusals"] == [] and plan["done"] == ["trust-both"]
    assert plan["todo"] == [{"phase": "reissue", "hosts": ["kafka1", "kafka2"]},
                            {"phase": "drop-old", "hosts": list(HOSTS)}]


def test_a_finished_rotation_has_nothing_left():
    plan = _plan(FINISHED)
    assert plan["refusals"] == [] and plan["done"] == list(rot.PHASES) and plan["todo"] == []


def test_a_host_with_a_new_certificate_while_another_trusts_only_the_old_ca_is_refused():
    plan = _plan(START, kafka1=REISSUED)
    assert _rules(plan) == ["phase_order"]
    assert plan["refusals"][0]["message"].startswith(
        "Refusing: kafka1 already presents a certificate from the new CA while kafka2, zk1 not yet trusts")


def test_a_host_trusting_only_the_new_ca_while_another_presents_the_old_is_refused():
    assert _rules(_plan(TRUST_BOTH, kafka2=FINISHED)) == ["phase_order"]


def test_unknown_trust_is_refused_and_names_the_host():
    plan = _plan(START, zk1={"trusted": ["someone-else"], "issuer": "someone-else"})
    assert _rules(plan) == ["unknown_trust"] and "zk1" in plan["refusals"][0]["message"]
    # Trusting only the new CA while presenting the old one's certificate: the others would be cut off.
    assert _rules(_plan(START, zk1={"trusted": [NEW], "issuer": OLD})) == ["unknown_trust"]
    # A certificate from a CA the host itself does not trust.
    assert _rules(_plan(START, zk1={"trusted": [OLD], "issuer": NEW})) == ["unknown_trust"]


def test_the_same_ca_and_no_hosts_are_refused():
    assert _rules(rot.rotation_plan({"kafka1": START}, OLD, OLD)) == ["same_ca"]
    assert _rules(rot.rotation_plan({}, OLD, NEW)) == ["no_hosts"]


def test_truststore_per_phase():
    assert rot.truststore(None, "O", "N") == ["O"]
    assert rot.truststore("trust-both", "O", "N") == ["O", "N"]
    assert rot.truststore("reissue", "O", "N") == ["O", "N"]
    assert rot.truststore("drop-old", "O", "N") == ["N"]


def test_the_new_ca_cross_signed_by_the_old_is_presented_only_between_reissue_and_drop_old():
    # Before the reissue the certificate is the old CA's: nothing to bridge; after drop-old no client may
    # trust the old CA alone any more.
    assert rot.presented_chain(None, "leaf", "X") == ["leaf"]
    assert rot.presented_chain("trust-both", "leaf", "X") == ["leaf"]
    assert rot.presented_chain("reissue", "leaf", "X") == ["leaf", "X"]
    assert rot.presented_chain("drop-old", "leaf", "X") == ["leaf"]


def test_describe():
    assert rot.describe("drop-old") == "drop-old: every host trusts the new CA only"
