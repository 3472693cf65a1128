"""Seconds of unavailability from a canary ledger: the union of the slow or failed writes' spans, and its longest
outage."""

from canary.availability import longest_unavailable_seconds, unavailable_seconds


def acked(sent, at):
    return {"sent_at": sent, "acked_at": at}


def failed(sent, at):
    return {"sent_at": sent, "at": at}


def test_prompt_acknowledgements_count_nothing():
    assert unavailable_seconds([acked(0, 0.01), acked(1, 1.9)], []) == 0


def test_overlapping_slow_writes_count_once_and_separate_outages_add_up():
    ledger = [acked(10, 15), acked(12, 18), acked(11, 11.1), acked(30, 33)]
    assert unavailable_seconds(ledger, []) == 8 + 3
    assert longest_unavailable_seconds(ledger, []) == 8
    assert longest_unavailable_seconds([acked(0, 0.01)], []) == 0


def test_failed_sends_count_from_send_to_failure():
    assert unavailable_seconds([acked(0, 4)], [failed(2, 22)]) == 22


def test_the_threshold_is_a_parameter():
    assert unavailable_seconds([acked(0, 0.5)], [], slow_s=0.2) == 0.5
