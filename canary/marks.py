"""Marks for the validator's timeline: what happened when (a fault, a playbook run and its phases), drawn on the
report's chart (spark/validate_recovery.py --marks FILE; validate_recovery.yml -e timeline_marks=FILE).

A marks file holds one JSON object per line: {"at": Unix time, "label": text}, with "until": Unix time for a
span. The demo and the chaos harness write the fault's; the collection's timeline_marks callback
(plugins/callback/timeline_marks.py) writes a playbook's span and its phases (tasks tagged `timeline`).
"""

import json
import time

# The environment variable naming the file the collection's timeline_marks callback appends a playbook's marks to.
PLAYBOOK_MARKS = "KAFKAOPS_TIMELINE_MARKS"


def add_mark(path, label, at=None, until=None):
    """Append one mark (at: now by default)."""
    mark = {"at": time.time() if at is None else at, "label": label}
    if until is not None:
        mark["until"] = until
    with open(path, "a", encoding="utf-8") as marks:
        marks.write(json.dumps(mark) + "\n")


def read_marks(path):
    """The marks of a file, in time order; ValueError naming the line when one is not a mark."""
    marks = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                mark = json.loads(line)
                at, label, until = float(mark["at"]), str(mark["label"]), mark.get("until")
                marks.append({"at": at, "label": label, **({} if until is None else {"until": float(until)})})
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{path} line {number} is not a mark ({exc!r}): each line must be "
                                 '{"at": <Unix time>, "label": "...", "until": <Unix time, optional>}') from None
    return sorted(marks, key=lambda m: m["at"])
