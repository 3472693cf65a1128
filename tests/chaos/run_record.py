"""The record of one `make chaos` run, which report.py puts at the top of docs/reliability.md: the commit,
whether tracked files had uncommitted changes, and the measured start and end of the whole run.

  python tests/chaos/run_record.py start [RESULTS_DIR]          before the lab is rebuilt
  python tests/chaos/run_record.py end STATUS [RESULTS_DIR]     after pytest, with its exit status
"""

import datetime
import json
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
RESULTS = REPO / ".cache" / "chaos"
NAME = "run.json"


def now():
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _git(*args):
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout


def changed_paths(porcelain):
    """The paths `git status --porcelain` lists (renames: the new path)."""
    return [line[3:].split(" -> ")[-1] for line in porcelain.splitlines() if line.strip()]


def start(results=RESULTS):
    results.mkdir(parents=True, exist_ok=True)
    changed = changed_paths(_git("status", "--porcelain", "--untracked-files=no"))
    record = {"commit": _git("rev-parse", "HEAD").strip(), "dirty": bool(changed), "changed": changed,
              "started_at": now()}
    (results / NAME).write_text(json.dumps(record, indent=2) + "\n")
    return record


def end(status, results=RESULTS):
    path = results / NAME
    record = json.loads(path.read_text())
    record.update(ended_at=now(), pytest_status=int(status))
    path.write_text(json.dumps(record, indent=2) + "\n")
    return record


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "start":
        start(*(pathlib.Path(a) for a in args))
    elif command == "end":
        end(args[0], *(pathlib.Path(a) for a in args[1:]))
    else:
        sys.exit(f"usage: {__doc__}")
