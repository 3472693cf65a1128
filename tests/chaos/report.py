"""Write docs/reliability.md from one chaos run: the run record (run_record.py) and the summaries the
scenarios left in .cache/chaos/<scenario>/summary.json (outcome.py).

  PYTHONPATH=. python tests/chaos/report.py [RESULTS_DIR] > docs/reliability.md   (make chaos does this)

Every sentence that states a result is computed here from those files: the commit and times, which rows
passed or FAILED and why, the totals, the controls' loss, and whether the Spark validator and a plain
consumer's read-back agree. The settings are the ones the harness read from the cluster; the procedure's
figures (rate, timeouts, lead) come from the harness's constants.
"""

import dataclasses
import datetime
import json
import pathlib
import sys

import outcome
import run_record
from harness import PARTITIONS, RATE
from scenarios import SCENARIOS, Scenario

from canary.availability import SLOW_ACK_S

REPO = pathlib.Path(__file__).resolve().parents[2]
REASON_CHARS = 160  # of a FAILED row's reason in the table; the details give all of it


def _time(text):
    return datetime.datetime.fromisoformat(text)


def duration(seconds):
    """75 -> "1 min 15 s"; 3720 -> "1 h 2 min"."""
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _first_line(text, limit=REASON_CHARS):
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit - 1] + "…"


def _numbers(keys):
    return ", ".join(keys) if keys else "none"


def _in_run(summary, run):
    """Whether the scenario started within the run (a summary from before or after it is another run's)."""
    started = _time(summary["started_at"])
    ended = _time(run["ended_at"]) if "ended_at" in run else None
    return _time(run["started_at"]) <= started and (ended is None or started <= ended)


def load(results_dir):
    """(the run record or None, {scenario key: summary or None}). A summary that started outside the run
    is another run's: it counts as not run."""
    path = results_dir / run_record.NAME
    run = json.loads(path.read_text()) if path.exists() else None
    summaries = {}
    for scenario in SCENARIOS:
        path = results_dir / scenario.key / "summary.json"
        summary = json.loads(path.read_text()) if path.exists() else None
        if summary and run and not _in_run(summary, run):
            summary = None
        summaries[scenario.key] = summary
    return run, summaries


def has_figures(summary):
    """Whether the scenario got as far as the validator (a row that failed earlier has no figures)."""
    return bool(summary) and "lost" in summary


def caught(summary):
    """Whether the validator failed on the loss it counted (exit non-zero, lost_records among its
    failures)."""
    return summary["validator_exit"] != 0 and "lost_records" in summary["failed_checks"]


def result_text(scenario, summary):
    """The table's result cell: computed from the verdict and the figures."""
    if summary is None:
        return "not run"
    if summary["outcome"] == outcome.RUNNING:
        return "NO VERDICT: the run stopped during this scenario"
    if summary["outcome"] == outcome.FAILED:
        return f"FAILED: {_first_line(summary['failure'])}"
    if not has_figures(summary):
        return "passed"
    lost = summary["lost"]
    if scenario.negative_control:
        return (f"passed: {lost:,} acknowledged records lost, "
                + ("the validator failed on them" if caught(summary) else "the validator did not fail"))
    return "passed: nothing lost" if lost == 0 else f"passed with {lost:,} lost"


def _row(scenario, summary):
    cells = [scenario.number, scenario.title, scenario.acks]
    if has_figures(summary):
        cells += [f"{summary['acked']:,}", f"{summary['lost']:,}", f"{summary['not_read_back']:,}",
                  summary["duplicates"], f"{summary['failed']:,}", summary["unavailable_s"]]
    else:
        cells += [""] * 6
    cells += [duration(summary["duration_s"]) if summary and "duration_s" in summary else "",
              result_text(scenario, summary)]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def run_lines(run):
    if run is None:
        return ["- No run record (.cache/chaos/run.json): these results are not from one `make chaos` run."]
    changes = "no uncommitted changes to tracked files"
    if run["dirty"]:
        changes = (f"with uncommitted changes to {len(run['changed'])} tracked file(s): "
                   f"{', '.join(run['changed'])}")
    lines = [f"- Commit `{run['commit']}` ({changes})."]
    if "ended_at" in run:
        wall = (_time(run["ended_at"]) - _time(run["started_at"])).total_seconds()
        lines.append(f"- Started {run['started_at']}, ended {run['ended_at']}: {duration(wall)} in all, "
                     "including the fresh lab and site.yml `make chaos` starts with.")
        lines.append(f"- pytest exited {run['pytest_status']}.")
    else:
        lines.append(f"- Started {run['started_at']}; no end recorded (the run did not finish).")
    return lines


def outcome_lines(summaries):
    by_outcome = {}
    for scenario in SCENARIOS:
        summary = summaries[scenario.key]
        state = summary["outcome"] if summary else "not run"
        by_outcome.setdefault(state, []).append(scenario.number)
    passed, failed = by_outcome.get(outcome.PASSED, []), by_outcome.get(outcome.FAILED, [])
    not_run = by_outcome.get("not run", [])
    counts = [f"{len(passed)} passed", f"{len(failed)} FAILED ({_numbers(failed)})",
              f"{len(not_run)} not run ({_numbers(not_run)})"]
    if outcome.RUNNING in by_outcome:
        running = by_outcome[outcome.RUNNING]
        counts.append(f"{len(running)} without a verdict ({_numbers(running)})")
    return [f"- Scenarios: {', '.join(counts)}, of {len(SCENARIOS)}."]


def figure_lines(summaries):
    """Totals, the controls and the agreement of the two loss counts, from the rows with figures."""
    rows = [(s, summaries[s.key]) for s in SCENARIOS if has_figures(summaries[s.key])]
    durable = [(s, m) for s, m in rows if not s.negative_control]
    controls = [(s, m) for s, m in rows if s.negative_control]
    lost_in = [f"{s.number} ({m['lost']:,})" for s, m in durable if m["lost"]]
    lines = [f"- acks=all: {len(durable)} scenario(s) with figures, "
             f"{sum(m['acked'] for _, m in durable):,} acknowledged records, "
             f"{sum(m['lost'] for _, m in durable):,} lost"
             + (f" (in {', '.join(lost_in)})." if lost_in else ".")]
    if controls:
        each = [f"{s.number} lost {m['lost']:,}"
                + (", the validator failed on them" if caught(m) else ", the validator did not fail")
                for s, m in controls]
        lines.append(f"- Negative controls (acks=1) with figures: {'; '.join(each)}.")
    else:
        lines.append("- Negative controls (acks=1): none with figures.")
    disagree = [f"{s.number} (validator {m['lost']:,}, read-back {m['not_read_back']:,})"
                for s, m in rows if m["lost"] != m["not_read_back"]]
    lines.append(f"- The Spark validator and a plain consumer's read-back count the same loss in "
                 f"{len(rows) - len(disagree)} of {len(rows)} rows with figures"
                 + (f"; they disagree in {', '.join(disagree)}." if disagree else "."))
    without = [s.number for s in SCENARIOS if summaries[s.key] and not has_figures(summaries[s.key])]
    if without:
        lines.append(f"- Without figures (stopped before the validator): {', '.join(without)}.")
    return lines


def settings_lines(summaries):
    recorded = [(s.number, summaries[s.key]["settings"]) for s in SCENARIOS
                if summaries[s.key] and "settings" in summaries[s.key]]
    if not recorded:
        return ["No row recorded the cluster's settings."]
    distinct = []
    for number, settings in recorded:
        for seen, numbers in distinct:
            if seen == settings:
                numbers.append(number)
                break
        else:
            distinct.append((settings, [number]))

    def describe(settings):
        counts = ("brokers", "zookeeper_nodes", "partitions", "replication_factor")
        return (f"{settings['brokers']} brokers, {settings['zookeeper_nodes']} ZooKeeper nodes; the canary "
                f"topic: {settings['partitions']} partitions, replication factor "
                f"{settings['replication_factor']}, "
                + ", ".join(f"{key} {value}" for key, value in settings.items() if key not in counts))
    if len(distinct) == 1:
        return [f"Settings read from the cluster at each scenario's start, the same in every row that "
                f"recorded them: {describe(distinct[0][0])}."]
    return ["Settings read from the cluster at each scenario's start differ between rows:"] + [
        f"- rows {', '.join(numbers)}: {describe(settings)}." for settings, numbers in distinct]


def _default(field):
    return next(f.default for f in dataclasses.fields(Scenario) if f.name == field)


def _exceptions(field, unit="s"):
    default = _default(field)
    odd = [f"{getattr(s, field)} {unit} in scenario {s.number}" for s in SCENARIOS
           if getattr(s, field) != default]
    return f" ({', '.join(odd)})" if odd else ""


def procedure_lines():
    return [
        f"Each scenario (tests/chaos/): a fresh {PARTITIONS}-partition canary topic; the canary (python -m "
        f"canary) writes {RATE} records/s, acks=all with idempotence (acks=1 in the controls), with a "
        f"delivery timeout of {_default('delivery_timeout_s')} s{_exceptions('delivery_timeout_s')}; the "
        "before snapshot once every partition holds acknowledged records; the fault about "
        f"{_default('lead_s')} s after the canary started{_exceptions('lead_s')}, confirmed by a probe "
        "(tests/chaos/probes.py), then healed; the canary runs at least as long again and stops, the cluster "
        "is healthy again, and the Spark validator (playbooks/validate_recovery.yml) checks every "
        "acknowledged record against the topic, which a plain consumer also reads back.",
        "",
        "- **acked**: records the cluster acknowledged (the canary's ledger).",
        "- **lost**: acknowledged records not readable afterwards with the value written, as the Spark "
        "validator counts them; **read-back**: the same count by a plain consumer reading the topic back.",
        "- **dups**: keys readable at more than one offset (a retried write stored twice; not loss).",
        "- **failed**: sends the client gave up on (not acknowledged: the writer knows, nothing is lost).",
        f"- **unavail. s**: seconds during which some write waited more than {SLOW_ACK_S:g} s for its "
        "acknowledgement or failed (length of the union of those writes' send-to-answer spans).",
        "- **duration**: the scenario's own wall time, from its start to its verdict.",
        "- **result**: passed, or FAILED and why (tests/chaos/expectations.py). Rows ending in c are "
        "negative controls with acks=1, built to lose acknowledged records (tests/chaos/scenarios.py): one "
        "that loses none fails, since it would not show that the validator catches loss.",
    ]


def _flat(text, limit=1000):
    """One paragraph of a list item: whitespace runs (an Ansible error's newlines) as single spaces."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _details(scenario, summary):
    when = f"{summary['started_at']} to {summary.get('ended_at', '?')}"
    if "duration_s" in summary:
        when += f", {duration(summary['duration_s'])}"
    head = f"- **{scenario.number}** `{scenario.key}` ({summary['outcome']}; {when})"
    parts = []
    if summary["outcome"] == outcome.FAILED:
        parts.append(f"FAILED: {_flat(summary['failure'])}")
    if has_figures(summary):
        notes = dict(summary["notes"])
        confirmed = notes.pop("confirmed", [])
        parts.append(f"Probes confirmed: {'; '.join(confirmed) or 'nothing'}")
        if notes:
            parts.append("Notes: " + "; ".join(f"{k}: {v}" for k, v in notes.items()))
        share = summary["fault_at_s"] / summary["run_s"] if summary["run_s"] else 0
        errors = "; ".join(summary["failure_errors"]) or "none"
        parts.append(
            f"Before snapshot after {summary['acked_before_snapshot']:,} acknowledgements; canary ran "
            f"{summary['run_s']} s, fault at {summary['fault_at_s']} s ({share:.0%} in), fault and heal "
            f"took {summary['fault_s']} s, cluster healthy {summary['recovered_s']} s after the canary "
            f"stopped; sent {summary['sent']:,}; lost by reason {json.dumps(summary['lost_by_reason'])}; "
            f"failed sends' errors: {errors}")
    return head + (": " + ". ".join(parts) + "." if parts else ".")


def render(results_dir):
    run, summaries = load(results_dir)
    lines = [
        "# Reliability: acknowledged messages under injected faults",
        "",
        "Written by `make chaos` (tests/chaos/report.py) from one run; rerun a scenario with "
        "docs/runbooks/reproduce-a-fault.md.",
        "",
        "## The run",
        "",
        *run_lines(run),
        *outcome_lines(summaries),
        *figure_lines(summaries),
        "",
        "## How it was measured",
        "",
        *settings_lines(summaries),
        "",
        *procedure_lines(),
        "",
        "## Results",
        "",
        "| # | scenario | acks | acked | lost | read-back | dups | failed | unavail. s | duration | result |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *[_row(s, summaries[s.key]) for s in SCENARIOS],
        "",
        "## Details",
        "",
        *[_details(s, summaries[s.key]) for s in SCENARIOS if summaries[s.key]],
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / ".cache" / "chaos"))
