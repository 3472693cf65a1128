"""What a scenario's figures must show for it to pass, as sentences saying what did not hold (none: it
passed). test_chaos.py asserts on them and summary.json keeps them as the reason a row FAILED.

Every scenario: the canary was acknowledged, every send got an answer, a probe confirmed the fault, and the
Spark validator and a plain consumer's read-back count the same loss. acks=all: nothing lost, no duplicate,
the validator passes. A negative control (acks=1): it lost acknowledged records and the validator failed
on them; a control that loses nothing did not show that the validator catches loss, and fails.
"""


def control_failures(summary):
    """What a negative control's figures lack."""
    found = []
    if summary["lost"] == 0:
        found.append("the control lost no acknowledged record, so it did not show the validator "
                     "catching loss")
    elif summary["validator_exit"] == 0 or "lost_records" not in summary["failed_checks"]:
        checks = ", ".join(summary["failed_checks"]) or "none"
        found.append(f"the validator counted {summary['lost']} lost but did not fail on them (exit "
                     f"{summary['validator_exit']}, failed checks: {checks})")
    return found


def durability_failures(summary):
    """What an acks=all scenario's figures show that acks=all must prevent."""
    found = []
    if summary["lost"]:
        found.append(f"{summary['lost']} acknowledged records lost ({summary['lost_by_reason']})")
    if summary["verdict"] != "ok" or summary["validator_exit"] != 0:
        found.append(f"the validator's verdict is {summary['verdict']} (exit {summary['validator_exit']}, "
                     f"failed checks: {', '.join(summary['failed_checks']) or 'none'})")
    if summary["duplicates"]:
        found.append(f"{summary['duplicates']} duplicate records despite the idempotent producer")
    return found


def failures(scenario, summary):
    """Every expectation the scenario's figures do not meet, as sentences ([] when it passed)."""
    found = []
    if summary["acked"] == 0:
        found.append("the canary got no acknowledgement")
    if summary["unreported"]:
        found.append(f"{summary['unreported']} sends never got an answer (cluster unreachable past the "
                     "flush)")
    if not summary["notes"].get("confirmed"):
        found.append("no probe confirmed that the fault took effect")
    if summary["lost"] != summary["not_read_back"]:
        found.append(f"the Spark validator counts {summary['lost']} lost, a plain consumer's read-back "
                     f"{summary['not_read_back']}")
    found += control_failures(summary) if scenario.negative_control else durability_failures(summary)
    if scenario.key == "two-followers-cut" and summary["notes"].get("not_enough_replicas_after_s") is None:
        found.append("writes were never refused with NOT_ENOUGH_REPLICAS")
    return found
