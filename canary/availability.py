"""Seconds of unavailability, from a canary ledger and its failed deliveries (their sent_at, acked_at
and at times): in all, and the longest outage."""

SLOW_ACK_S = 1.0  # a write acknowledged (or failed) later than this counts toward unavailability


def unavailable_spans(ledger_lines, failed_lines, slow_s=SLOW_ACK_S):
    """The outages, [(start, end)] in time order: the union of [sent_at, acked_at] (or [sent_at, failed at]) of the
    writes that waited more than slow_s for their acknowledgement, or were never acknowledged."""
    spans = sorted([(e["sent_at"], e["acked_at"]) for e in ledger_lines
                    if e["acked_at"] - e["sent_at"] > slow_s]
                   + [(f["sent_at"], f["at"]) for f in failed_lines])
    merged = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def unavailable_seconds(ledger_lines, failed_lines, slow_s=SLOW_ACK_S):
    """Seconds during which at least one write waited more than slow_s or was never acknowledged (every outage)."""
    return round(sum(end - start for start, end in unavailable_spans(ledger_lines, failed_lines, slow_s)), 1)


def longest_unavailable_seconds(ledger_lines, failed_lines, slow_s=SLOW_ACK_S):
    """The longest single outage, in seconds (0 when there is none)."""
    return round(max((end - start for start, end in unavailable_spans(ledger_lines, failed_lines, slow_s)),
                     default=0), 1)
