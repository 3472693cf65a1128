"""Seconds of unavailability, from a canary ledger and its failed deliveries (their sent_at, acked_at
and at times)."""

SLOW_ACK_S = 1.0  # a write acknowledged (or failed) later than this counts toward unavailability


def unavailable_seconds(ledger_lines, failed_lines, slow_s=SLOW_ACK_S):
    """Seconds during which at least one write waited more than slow_s for its acknowledgement, or
    was never acknowledged: the length of the union of [sent_at, acked_at] (or [sent_at, failed at]) of
    those writes."""
    spans = sorted([(e["sent_at"], e["acked_at"]) for e in ledger_lines
                    if e["acked_at"] - e["sent_at"] > slow_s]
                   + [(f["sent_at"], f["at"]) for f in failed_lines])
    total, current = 0.0, None
    for start, end in spans:
        if current and start <= current[1]:
            current = (current[0], max(current[1], end))
            continue
        if current:
            total += current[1] - current[0]
        current = (start, end)
    if current:
        total += current[1] - current[0]
    return round(total, 1)
