"""The KRaft upgrade of the lab from Kafka 3.9.2 to 4.4.0 under an acks=all canary: the wall time of the rolls and of
the finalize run, the brokers' roll ratio (as bench-roll: the roll's time against the sum of each broker's own stop,
start and healthy gate, read from the run's timeline marks), and per step (controllers, brokers, finalize) the
canary's longest outage and unavailable seconds in all, acknowledged and failed sends; the Spark validator's verdict
last.

On a fresh KRaft lab of 3.9.2 (a static quorum, as a migrated cluster's): site.yml, a canary and a snapshot, then
upgrade_kafka.yml -e kafka_version=4.4.0 and -e finalize=true with KAFKAOPS_TIMELINE_MARKS set (plugins/callback/
timeline_marks.py marks each service action and gate). Figures: .cache/drills/bench-upgrade.json.

Run: make bench-upgrade   (takes the lab down and up; about 25 minutes)
"""

import pathlib
import sys
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests" / "drills")]

import drill  # noqa: E402

from canary.marks import read_marks  # noqa: E402
from lab import ansible, config  # noqa: E402

WORK = REPO / ".cache" / "drills" / "bench-upgrade"
RATE = 200  # canary records per second
TARGET = "4.4.0"
BROKER_PHASES = ("Kafka service: stop", "Kafka service: start", "Gate: wait until it is registered")


def step_spans(marks):
    """{"controllers" | "brokers": (first start, last end, floor)} from one run's marks: the controllers' restarts,
    the brokers' stop, start and healthy gate (the floor: the sum of those phases' own durations)."""
    kinds = {"controllers": [m for m in marks if ": Restart the controller" in m["label"]],
             "brokers": [m for m in marks if any(f": {phase}" in m["label"] for phase in BROKER_PHASES)]}
    return {kind: (min(m["at"] for m in found), max(m["until"] for m in found),
                   sum(m["until"] - m["at"] for m in found)) for kind, found in kinds.items() if found}


def main():
    assert config.KAFKA_VERSION == "3.9.2", "set KAFKAOPS_LAB_KAFKA_VERSION=3.9.2 KAFKAOPS_LAB_METADATA_MODE=kraft " \
                                            "(make bench-upgrade does)"
    started = time.monotonic()
    drill.fresh_lab(WORK)
    logs, marks_path = WORK / "logs", WORK / "marks.jsonl"
    drill.run(["ansible-playbook", "playbooks/site.yml"], logs)
    canary, ledger, snapshots, before = drill.canary_with_snapshot(WORK, "bench-upgrade", RATE)
    marked = ansible.environment(KAFKAOPS_TIMELINE_MARKS=str(marks_path))
    figures = {"from": config.KAFKA_VERSION, "to": TARGET, "steps": {}}
    try:
        for run, extra in (("rolls", []), ("finalize", ["-e", "finalize=true"])):
            marks_path.unlink(missing_ok=True)
            start = time.time()
            _, seconds = drill.run(["ansible-playbook", "playbooks/upgrade_kafka.yml", "-e", f"kafka_version={TARGET}",
                                    *extra], logs, env=marked)
            figures[f"{run}_s"] = round(seconds)
            spans = step_spans(read_marks(marks_path)) if run == "rolls" else {"finalize": (start, time.time(), None)}
            for step, (first, last, floor) in spans.items():
                figures["steps"][step] = drill.window(ledger, first, last) | {"wall_s": round(last - first, 1)}
                if step == "brokers":
                    figures["steps"][step] |= {"floor_s": round(floor, 1),
                                               "roll_ratio": round((last - first) / floor, 2)}
    finally:
        assert canary.stop() == 0, "canary: records never reported"
    figures["releases_after"] = drill.releases()
    # the rolls move leaders: their failed sends are counted per step; the finalize run restarts nothing
    problems = [p for p in drill.validate_canary(canary, figures, before, ledger, snapshots, WORK / "report", started)
                if "failed sends" not in p]
    problems += drill.mismatches(figures, {"releases_after": dict.fromkeys(figures["releases_after"], TARGET)})
    problems += [f"finalize: {figures['steps']['finalize']['failed']} failed sends"] \
        if figures["steps"]["finalize"]["failed"] else []
    drill.finish("bench-upgrade", figures, problems,
                 f"the lab upgraded from 3.9.2 to {TARGET} and finalized, nothing lost")


if __name__ == "__main__":
    main()
