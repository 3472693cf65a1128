"""Filters for rolling_restart.yml's record of each step (pure; unit-tested)."""


def kafka_roll_step(times, host, broker_id, was_controller):
    """One restarted broker's record from the step's timestamps (picked, safe, stopped, started, healthy):
    seconds in the safe-to-stop gate, the stop, the start, the healthy gate (catch-up) and in all."""
    t = {k: float(v) for k, v in times.items()}
    return {
        "host": host, "broker_id": broker_id, "was_controller": was_controller,
        "safe_to_stop_gate": round(t["safe"] - t["picked"], 1),
        "stop": round(t["stopped"] - t["safe"], 1),
        "start": round(t["started"] - t["stopped"], 1),
        "healthy_gate": round(t["healthy"] - t["started"], 1),
        "total": round(t["healthy"] - t["picked"], 1),
    }


def kafka_roll_step_line(step):
    """The summary line of one step, for people."""
    role = " (controller)" if step["was_controller"] else ""
    return (f"{step['host']} (broker {step['broker_id']}){role}: {step['total']}s = safe-to-stop gate "
            f"{step['safe_to_stop_gate']}s + stop {step['stop']}s + start {step['start']}s + healthy gate "
            f"{step['healthy_gate']}s")


class FilterModule:
    def filters(self):
        return {"kafka_roll_step": kafka_roll_step, "kafka_roll_step_line": kafka_roll_step_line}
