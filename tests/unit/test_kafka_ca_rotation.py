"""The CA rotation plan on hand-written host states (fingerprints OLD and NEW)."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_ca_rotation as rot

OLD, NEW = "old-ca", "new-ca"
START = {"trusted": [OLD], "issuer": OLD, "restart_pending": False}
TRUST_BOTH = {"trusted": [OLD, NEW], "issuer": OLD, "restart_pending": False}
REISSUED = {"trusted": [OLD, NEW], "issuer": NEW, "restart_pending": False}
FINISHED = {"trusted": [NEW], "issuer": NEW, "restart_pending": False}
HOSTS = ("kafka1", "kafka2", "zk1")


def _plan(default, **overrides):
    return rot.rotation_plan({h: overrides.get(h, default) for h in HOSTS}, OLD, NEW)


def _todo(plan):
    return [{k: v for k, v in item.items() if k != "text"} for item in plan["todo"]]


def _rules(plan):
    return [r["rule"] for r in plan["refusals"]]


def test_from_the_start_every_phase_on_every_host():
    plan = _plan(START)
    assert plan["refusals"] == [] and plan["done"] == []
    assert _todo(plan) == [{"phase": p, "hosts": list(HOSTS)} for p in rot.PHASES]
    assert plan["todo"][0]["text"] == (
        "trust-both: every host trusts the old and the new CA (files and a restart for kafka1, kafka2, zk1)")


def test_a_run_cut_off_in_the_first_phase_resumes_with_the_hosts_left():
    plan = _plan(START, kafka1=TRUST_BOTH)
    assert plan["refusals"] == []
    assert _todo(plan)[0] == {"phase": "trust-both", "hosts": ["kafka2", "zk1"]}


def test_reissue_follows_once_every_host_trusts_both():
    plan = _plan(TRUST_BOTH, zk1=REISSUED)
    assert plan["refusals"] == [] and plan["done"] == ["trust-both"]
    assert _todo(plan) == [{"phase": "reissue", "hosts": ["kafka1", "kafka2"]},
                            {"phase": "drop-old", "hosts": list(HOSTS)}]


def test_a_finished_rotation_has_nothing_left():
    plan = _plan(FINISHED)
    assert plan["refusals"] == [] and plan["done"] == list(rot.PHASES) and plan["todo"] == []


def test_a_host_with_a_new_certificate_while_another_trusts_only_the_old_ca_is_refused():
    plan = _plan(START, kafka1=REISSUED)
    assert _rules(plan) == ["rotate-phase-order"]
    assert plan["refusals"][0]["message"].startswith(
        "Refusing: kafka1 already presents a certificate from the new CA while kafka2, zk1 not yet trusts")


def test_a_host_trusting_only_the_new_ca_while_another_presents_the_old_is_refused():
    assert _rules(_plan(TRUST_BOTH, kafka2=FINISHED)) == ["rotate-phase-order"]


def test_unknown_trust_is_refused_and_names_the_host():
    plan = _plan(START, zk1={**START, "trusted": ["someone-else"], "issuer": "someone-else"})
    assert _rules(plan) == ["rotate-unknown-trust"] and "zk1" in plan["refusals"][0]["message"]
    # Trusting only the new CA while presenting the old one's certificate: the others would be cut off.
    assert _rules(_plan(START, zk1={**START, "trusted": [NEW], "issuer": OLD})) == ["rotate-unknown-trust"]
    # A certificate from a CA the host itself does not trust.
    assert _rules(_plan(START, zk1={**START, "trusted": [OLD], "issuer": NEW})) == ["rotate-unknown-trust"]


def test_the_same_ca_and_no_hosts_are_refused():
    assert _rules(rot.rotation_plan({"kafka1": TRUST_BOTH}, OLD, OLD)) == ["rotate-same-ca"]
    assert _rules(rot.rotation_plan({}, OLD, NEW)) == ["rotate-no-hosts"]


def test_a_host_whose_files_changed_but_which_did_not_restart_still_runs_the_phase_before():
    pending = {**REISSUED, "restart_pending": True}
    plan = _plan(REISSUED, kafka1=pending)
    assert plan["refusals"] == [] and plan["done"] == ["trust-both"]
    assert _todo(plan)[0] == {"phase": "reissue", "hosts": ["kafka1"]}
    # Nothing done yet and a restart pending for another reason: still nothing done.
    assert _plan(START, kafka1={**START, "restart_pending": True})["todo"][0]["hosts"] == list(HOSTS)


def test_stop_after_takes_the_phases_up_to_it_and_promotes_only_after_the_last():
    assert rot.rotation_plan({"zk1": START}, OLD, NEW, "reissue")["this_run"] == ["trust-both", "reissue"]
    assert not rot.rotation_plan({"zk1": START}, OLD, NEW, "reissue")["promote"]
    plan = rot.rotation_plan({"zk1": TRUST_BOTH}, OLD, NEW)
    assert plan["this_run"] == ["reissue", "drop-old"] and plan["promote"]
    # A phase already done: nothing to take, nothing to promote yet.
    assert rot.rotation_plan({"zk1": REISSUED}, OLD, NEW, "trust-both")["this_run"] == []
    assert not rot.rotation_plan({"zk1": REISSUED}, OLD, NEW, "trust-both")["promote"]
    assert _rules(rot.rotation_plan({"zk1": START}, OLD, NEW, "trust-everything")) == ["rotate-unknown-phase"]


def test_every_phase_done_leaves_only_the_promotion():
    plan = _plan(FINISHED)
    assert plan["this_run"] == [] and plan["promote"]


def test_a_promotion_cut_off_after_the_copy_finishes_and_anything_else_with_one_ca_twice_is_refused():
    on_new = {"trusted": [NEW], "issuer": NEW, "restart_pending": False}
    assert rot.rotation_plan({"zk1": on_new, "kafka1": on_new}, NEW, NEW)["promote"]
    plan = rot.rotation_plan({"zk1": on_new, "kafka1": REISSUED}, NEW, NEW)
    assert _rules(plan) == ["rotate-same-ca"] and not plan["promote"] and plan["this_run"] == []


def test_before_the_next_ca_is_made_every_host_has_every_phase_left():
    plan = rot.rotation_plan({"zk1": START}, OLD, None)
    assert plan["refusals"] == [] and plan["this_run"] == list(rot.PHASES)


def test_the_issuing_ca_the_trusted_cas_and_the_chain_per_phase():
    old, new, cross = "/p/ca/cert.pem", "/p/ca-next/cert.pem", "/p/ca-next/cross-signed.pem"
    assert [rot.issuing_ca_files("/p", "", "", p)["cert"] for p in ("", *rot.PHASES)] == [old, old, new, new]
    assert rot.issuing_ca_files("/p", "/mine/ca.pem", "/mine/ca.key", "")["cert"] == "/mine/ca.pem"
    assert [rot.trusted_ca_certs("/p", "", "", p) for p in ("", *rot.PHASES)] == [
        [old], [old, new], [old, new], [new]]
    # Before the reissue the certificate is the old CA's: nothing to bridge; after drop-old no client may trust
    # the old CA alone any more.
    assert [rot.chain_certs("/p", p) for p in ("", *rot.PHASES)] == [[], [], [cross], []]


def test_cross_signing_needs_a_ca_that_allows_one_below_it():
    assert rot.cross_signing_works({"basic_constraints": ["CA:TRUE", "pathlen:1"]})
    assert rot.cross_signing_works({"basic_constraints": ["CA:TRUE"]})
    assert not rot.cross_signing_works({"basic_constraints": ["CA:TRUE", "pathlen:0"]})


def test_a_hosts_state_names_the_ca_that_issued_its_certificate():
    def ca(name, fp):
        return {"subject_ordered": [["commonName", name]], "subject_key_identifier": fp, "fingerprints": {"sha256": fp}}
    old, new = ca("Old", "O1"), ca("New", "N1")
    cert = {"issuer_ordered": [["commonName", "New"]], "authority_key_identifier": "N1"}
    assert rot.host_state([old, new], cert, [old, new], 0) == {
        "trusted": ["O1", "N1"], "issuer": "N1", "restart_pending": False}
    assert rot.host_state([old], cert, [old, None], True)["issuer"] == "a CA named commonName=New"


def test_describe():
    assert rot.describe("drop-old") == "drop-old: every host trusts the new CA only"


def test_every_host_and_the_controller_take_each_phase_of_this_run_in_its_group():
    plan = rot.rotation_plan({"zk1": TRUST_BOTH, "kafka1": TRUST_BOTH}, OLD, NEW, "reissue")
    assert plan["groups"] == {"ca_rotation_phase_0": ["kafka1", "zk1", "localhost"]}
    assert rot.rotation_plan({"zk1": START}, OLD, NEW, "trust-everything")["groups"] == {}
