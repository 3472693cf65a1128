"""What a chaos scenario must show to pass (tests/chaos/expectations.py), on hand-written figures: acks=all
loses nothing, a negative control must lose (one that loses nothing fails), the validator and the read-back
must agree, and a fault no probe confirmed does not count."""

from expectations import failures
from scenarios import SCENARIOS


def scenario(key):
    return next(s for s in SCENARIOS if s.key == key)


def figures(**changes):
    row = {"acked": 14000, "unreported": 0, "lost": 0, "not_read_back": 0, "duplicates": 0, "verdict": "ok",
           "failed_checks": [], "validator_exit": 0, "lost_by_reason": {},
           "notes": {"confirmed": ["kafka3 cannot connect to zk1, zk2, zk3 (timed out)"]}}
    row.update(changes)
    return row


LOSS = {"lost": 919, "not_read_back": 919, "verdict": "loss_or_regression", "failed_checks": ["lost_records"],
        "validator_exit": 2, "lost_by_reason": {"digest_mismatch": 919}}


def test_acks_all_that_lost_nothing_passes():
    assert failures(scenario("leader-cut-from-zk"), figures()) == []


def test_acks_all_that_lost_records_fails_with_the_count():
    assert failures(scenario("leader-cut-from-zk"), figures(**LOSS)) == [
        "919 acknowledged records lost ({'digest_mismatch': 919})",
        "the validator's verdict is loss_or_regression (exit 2, failed checks: lost_records)"]


def test_acks_all_with_duplicates_fails():
    assert failures(scenario("bounce-leader"), figures(duplicates=2)) == [
        "2 duplicate records despite the idempotent producer"]


def test_a_control_that_lost_records_the_validator_caught_passes():
    assert failures(scenario("leader-cut-from-all-acks1"), figures(**LOSS)) == []


def test_a_control_that_lost_nothing_fails():
    assert failures(scenario("leader-cut-from-all-acks1"), figures()) == [
        "the control lost no acknowledged record, so it did not show the validator catching loss"]


def test_a_control_whose_loss_the_validator_did_not_fail_on_fails():
    unflagged = dict(LOSS, validator_exit=0, verdict="ok", failed_checks=[])
    assert failures(scenario("leader-cut-from-zk-acks1"), figures(**unflagged)) == [
        "the validator counted 919 lost but did not fail on them (exit 0, failed checks: none)"]


def test_validator_and_read_back_must_agree():
    assert failures(scenario("leader-cut-from-all-acks1"), figures(**dict(LOSS, not_read_back=900))) == [
        "the Spark validator counts 919 lost, a plain consumer's read-back 900"]


def test_a_fault_no_probe_confirmed_does_not_count():
    assert failures(scenario("slow-leader"), figures(notes={"slowed": "kafka1"})) == [
        "no probe confirmed that the fault took effect"]


def test_no_acknowledgement_and_unanswered_sends_fail():
    assert failures(scenario("slow-leader"), figures(acked=0, unreported=5)) == [
        "the canary got no acknowledgement",
        "5 sends never got an answer (cluster unreachable past the flush)"]


def test_two_cut_followers_must_make_the_leader_refuse_writes():
    notes = {"confirmed": ["kafka1 cannot connect to kafka2"], "not_enough_replicas_after_s": None}
    assert failures(scenario("two-followers-cut"), figures(notes=notes)) == [
        "writes were never refused with NOT_ENOUGH_REPLICAS"]
    notes["not_enough_replicas_after_s"] = 21
    assert failures(scenario("two-followers-cut"), figures(notes=notes)) == []
