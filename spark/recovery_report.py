"""The validator's report: report.md (the verdict, the checks, the timeline, what was not checked) and chart.png
(the recovery timeline, the partitions longest without an acknowledgement, high watermarks), from the result
validate_recovery.py writes to result.json and the timeline's per-second series."""

import datetime
import json

import checks

TABLE_ROWS = 50  # rows of each table in report.md


def utc(seconds):
    """A Unix time as UTC text to the millisecond."""
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _table(rows, columns):
    if not rows:
        return "none\n"
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row.get(c)) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _timeline_text(timeline):
    if timeline is None:
        return ["## Timeline\n", "not drawn: see Not checked\n"]
    failed = timeline["failed_sends"]
    text = ["## Timeline\n",
            f"- acknowledgements from {utc(timeline['first_acked_at'])} to {utc(timeline['last_acked_at'])} UTC",
            f"- failed sends: {'not recorded (see Not checked)' if failed is None else failed}",
            f"- without any acknowledgement for more than {timeline['min_gap_s']:g} s: "
            f"{timeline['unavailable_window_count']} window(s), {timeline['unavailable_s']} s in all\n",
            "### Windows without any acknowledgement (all partitions)\n",
            _table([{"from (UTC)": utc(w["start"]), "to (UTC)": utc(w["end"]), "seconds": round(w["seconds"], 3)}
                    for w in timeline["unavailable_windows"][:TABLE_ROWS]], ["from (UTC)", "to (UTC)", "seconds"]),
            f"### Partitions longest without an acknowledgement (at most {len(timeline['worst_partitions'])})\n",
            _table([{**p, "unavailable_s": round(p["unavailable_s"], 3), "longest_s": round(p["longest_s"], 3)}
                    for p in timeline["worst_partitions"]],
                   ["topic", "partition", "windows", "unavailable_s", "longest_s"]),
            "### Marks\n",
            _table([{"at (UTC)": utc(m["at"]), "until (UTC)": utc(m["until"]) if "until" in m else "",
                     "label": m["label"]} for m in timeline["marks"]], ["at (UTC)", "until (UTC)", "label"])]
    return text


def write_report(report_dir, result, samples):
    ok = result["verdict"] == checks.VERDICT_OK
    duplicates = result["duplicate_records_total"]
    duplicates = "not checked" if duplicates is None else duplicates
    text = [f"# Recovery validation: {'NOTHING LOST' if ok else 'LOSS OR REGRESSION FOUND'}\n",
            f"- cluster: {result['cluster_id']}",
            f"- before: {result['before']} ({result['before_taken_at']})",
            f"- after: {result['after']} ({result['after_taken_at']})",
            f"- ledger: {result['ledger'] or 'none (acknowledged records not checked)'}",
            f"- checked at: {result['checked_at']}",
            f"- duplicate records (keys readable more than once; not loss): {duplicates}\n",
            "![the recovery timeline, the partitions longest without an acknowledgement, high watermarks]"
            "(chart.png)\n",
            "## Checks\n",
            _table([{"check": name, "problems": count,
                     "reasons": json.dumps(result["reasons"].get(name, {})),
                     "fails the verdict": name in result["failed_checks"]}
                    for name, count in result["counts"].items()],
                   ["check", "problems", "reasons", "fails the verdict"]),
            "## Not checked\n",
            "\n".join(f"- {reason}" for reason in result["not_checked"]) + "\n" if result["not_checked"]
            else "everything above was checked\n",
            "## Acknowledged records per topic\n",
            _table([{"topic": t, **c} for t, c in result["topics"].items()], ["topic", "acknowledged", "lost"]),
            *_timeline_text(result["timeline"]),
            f"## Lost records ({result['lost_records_total'] or 0} in all; at most {TABLE_ROWS} here, "
            "the rest in result.json up to --lost-limit)\n",
            _table(result["lost_records"][:TABLE_ROWS],
                   ["topic", "partition", "offset", "key", "reason", "sent_at", "expected_sha256", "actual_sha256"])]
    for name, rows in samples.items():
        text += [f"## {name.replace('_', ' ').capitalize()} (at most {TABLE_ROWS})\n",
                 _table(rows, list(rows[0]) if rows else [])]
    (report_dir / "report.md").write_text("\n".join(text))


def _dates(seconds):
    return [datetime.datetime.fromtimestamp(s, datetime.UTC) for s in seconds]


def _draw_marks(axis, marks, labelled):
    for i, mark in enumerate(marks):
        at = _dates([mark["at"]])[0]
        if "until" in mark:
            axis.axvspan(at, _dates([mark["until"]])[0], color=f"C{2 + i % 6}", alpha=0.08)
        axis.axvline(at, color=f"C{2 + i % 6}", linestyle="--", linewidth=0.8)
        if labelled:
            axis.text(at, 1.0, f" {mark['label']}", transform=axis.get_xaxis_transform(), rotation=90,
                      va="top", ha="right", fontsize=6, color=f"C{2 + i % 6}")


def _draw_timeline(axis, timeline, series):
    """Acknowledgements and failed sends per second, the windows without any acknowledgement shaded, the lost
    records at the second they were sent, and the caller's marks."""
    if timeline is None:
        axis.text(0.5, 0.5, "no timeline: the ledger has no acknowledgement times (or no ledger was given)",
                  ha="center", transform=axis.transAxes)
        return
    counted = dict(series["acknowledged"])  # seconds without an acknowledgement are absent: draw them as 0
    seconds = range(min(counted), max(counted) + 2)
    axis.step(_dates(seconds), [counted.get(s, 0) for s in seconds], where="post", linewidth=0.8,
              label="acknowledged / s (all topics)")
    if series["failed"]:
        failed_at, failed = zip(*series["failed"], strict=True)
        axis.bar(_dates(failed_at), failed, width=1 / 86400, align="edge", color="red", label="failed sends / s")
    for i, window in enumerate(timeline["unavailable_windows"]):
        axis.axvspan(*_dates([window["start"], window["end"]]), color="grey", alpha=0.35,
                     label=f"no acknowledgement for > {timeline['min_gap_s']:g} s" if i == 0 else None)
    if series["lost"]:
        lost_at, lost = zip(*series["lost"], strict=True)
        axis.scatter(_dates(lost_at), [0] * len(lost), s=[min(200, 40 + n) for n in lost], marker="X",
                     color="black", zorder=3, clip_on=False, label=f"lost records, when sent ({sum(lost)})")
    _draw_marks(axis, timeline["marks"], labelled=True)
    axis.set_ylabel("records / s")
    axis.set_title("Recovery timeline (UTC)")
    axis.legend(loc="lower left", fontsize=7)


def _draw_worst_partitions(axis, timeline, windows):
    if timeline is None or not timeline["worst_partitions"]:
        axis.text(0.5, 0.5, "no partition went more than a second without an acknowledgement"
                  if timeline else "no timeline", ha="center", transform=axis.transAxes)
        return
    worst = timeline["worst_partitions"]
    for row, p in enumerate(worst):
        spans = [(_dates([w["start"]])[0], datetime.timedelta(seconds=w["seconds"]))
                 for w in windows if (w["topic"], w["partition"]) == (p["topic"], p["partition"])]
        axis.broken_barh(spans, (row - 0.4, 0.8), color="grey")
    axis.set_yticks(range(len(worst)), [f"{p['topic']}-{p['partition']} ({p['unavailable_s']:.1f} s)"
                                        for p in worst], fontsize=7)
    axis.invert_yaxis()
    _draw_marks(axis, timeline["marks"], labelled=False)
    axis.set_title(f"Windows without an acknowledgement, the {len(worst)} partition(s) longest without one")


def _draw_watermarks(axis, hw_rows, limit):
    labels = [f"{t}-{p}" for t, p, _, _ in hw_rows]
    x = range(len(labels))
    axis.bar([i - 0.2 for i in x], [b or 0 for _, _, b, _ in hw_rows], 0.4, label="before")
    axis.bar([i + 0.2 for i in x], [a or 0 for _, _, _, a in hw_rows], 0.4, label="after")
    axis.set_xticks(list(x), labels, rotation=90, fontsize=7)
    axis.set_title(f"High watermark per partition (regressions first, at most {limit})")
    axis.legend()


def write_chart(path, timeline, series, hw_rows, hw_limit):
    """series: {"acknowledged", "failed", "lost": [(second, count)], "partition_windows": the worst partitions'
    windows}."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(13, 13))
    top, middle, bottom = fig.subplots(3, 1, height_ratios=[3, 2, 2])
    middle.sharex(top)
    _draw_timeline(top, timeline, series)
    _draw_worst_partitions(middle, timeline, series.get("partition_windows", []))
    _draw_watermarks(bottom, hw_rows, hw_limit)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
