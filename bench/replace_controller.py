"""replace_controller.yml on a fresh KRaft lab with a dynamic quorum (Kafka 4.4), under an acks=all canary:

1. wiped: a follower controller's metadata dir is emptied (the controller stopped first, as a disk swap does), and
   the playbook brings it back on its host with a new directory id;
2. host lost: a follower controller's host loses power, and the spare host (kafka4) takes its node id;
   then the lab is put back (the spare bare again, the host booted, the same playbook makes it the voter again).

Per run: the playbook's wall time, the canary's acknowledged and failed sends while it ran and its unavailable
seconds (writes that waited more than 1 s for their acknowledgement, canary/availability.py), the voters after.
At the end the Spark validator (validate_recovery.yml) checks every acknowledged record against the snapshot taken
before. Exits 1 on a failed playbook, a failed send, a lost record or a quorum without three caught-up voters.
Figures also go to .cache/drills/replace-controller.json.

Run: make bench-replace-controller (takes the lab down and up with KAFKAOPS_LAB_KAFKA_VERSION=4.4.0 and
KAFKAOPS_LAB_METADATA_MODE=kraft; about 15 minutes)
"""

import pathlib
import sys
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests" / "drills"), str(REPO / "tests" / "integration")]

import drill  # noqa: E402
from lab_hosts import quorum  # noqa: E402

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft, kafka_versions  # noqa: E402
from canary.availability import unavailable_seconds  # noqa: E402
from canary.ledger import read_acked, read_failed  # noqa: E402
from lab import config, machines  # noqa: E402
from lab.cli import up  # noqa: E402

WORK = REPO / ".cache" / "drills" / "replace-controller"
RATE = 200  # canary records per second
META = "/var/lib/kafka-controller/metadata"


def run(*args):
    return drill.run(["ansible-playbook", *args], WORK / "logs")


def follower(controllers):
    rows = kafka_kraft.parse_quorum_replication(quorum(controllers[0]))
    leader = kafka_kraft.quorum_leader(rows)
    return next(h for h in controllers if 9000 + int(h.name.removeprefix("ctrl")) != leader)  # the lab's node ids


def timed(ledger, label, action):
    """Run action() (a playbook run), the canary's sends in its window, and the voters after."""
    start = time.time()
    seconds = action()
    end = time.time()
    entries = [e for e in read_acked(ledger) if start <= e["sent_at"] <= end]
    failures = [f for f in read_failed(ledger) if start <= f["sent_at"] <= end]
    figures = {"run": label, "seconds": round(seconds), "acked": len(entries), "failed": len(failures),
               "unavailable_s": unavailable_seconds(entries, failures)}
    print(figures, flush=True)
    return figures


def caught_up_voters(host):
    rows = kafka_kraft.parse_quorum_replication(quorum(host))
    return sorted(r["node_id"] for r in rows if r["status"] in kafka_kraft.VOTER
                  and kafka_kraft.controller_rejoined(rows, r["node_id"], 10) is None)


def main():
    assert kafka_versions.facts(config.KAFKA_VERSION)["quorum"] == "dynamic", \
        f"the lab's release {config.KAFKA_VERSION} deploys a static quorum: set KAFKAOPS_LAB_KAFKA_VERSION=4.4.0"
    started = time.monotonic()
    drill.fresh_lab(WORK)
    _, deploy_s = run("playbooks/site.yml")
    figures = {"release": config.KAFKA_VERSION, "deploy_s": round(deploy_s), "runs": []}
    controllers = [h for h in config.load_hosts() if "kafka_controller" in h.groups]
    spare = config.host("kafka4")

    canary, ledger, snapshots, before = drill.canary_with_snapshot(WORK, "bench-replace", RATE)
    try:
        lost = follower(controllers)
        drill.on_host(lost.name, f"systemctl stop kafka-controller && rm -rf {META}"
                                 f" && install -d -o kafka -g kafka -m 0750 {META}")
        figures["runs"].append(timed(ledger, f"wiped metadata dir of {lost.name}, replaced on its host", lambda: run(
            "playbooks/replace_controller.yml", "-e", f"failed_host={lost.name}")[1]))
        figures["voters_after_wiped"] = caught_up_voters(controllers[0])

        lost = follower(controllers)
        reader = next(h for h in controllers if h is not lost)
        machines.power_off(lost)
        figures["runs"].append(timed(ledger, f"{lost.name} powered off, replaced by kafka4", lambda: run(
            "playbooks/replace_controller.yml", "-e", f"failed_host={lost.name}", "-e", "replacement_host=kafka4")[1]))
        figures["voters_after_host_lost"] = caught_up_voters(reader)
        figures["spare_is_a_voter"] = f"{spare.fqdn}:9090" in quorum(reader, "status")

        drill.on_host(spare.name, "systemctl disable --now kafka-controller; rm -rf /etc/kafka-controller "
                                  "/etc/systemd/system/kafka-controller.service /var/lib/kafka-controller "
                                  "&& systemctl daemon-reload")
        up(config.load_hosts())
        figures["runs"].append(timed(ledger, f"{lost.name} booted on its old disk, made the voter again", lambda: run(
            "playbooks/replace_controller.yml", "-e", f"failed_host={lost.name}")[1]))
        figures["voters_at_end"] = caught_up_voters(reader)
    finally:
        assert canary.stop() == 0, "canary: records never reported"
    figures["canary"] = canary.summary()
    losses, problems = drill.validate(before, ledger, snapshots, WORK / "report", [figures["canary"]])
    figures.update(losses)
    figures["longest_unavailable_s"] = max(r["unavailable_s"] for r in figures["runs"])
    figures["bench_s"] = round(time.monotonic() - started)
    for key in ("voters_after_wiped", "voters_after_host_lost", "voters_at_end"):
        problems += [f"{key}: caught-up voters {figures[key]}"] if figures[key] != [9001, 9002, 9003] else []
    problems += ["the spare is not a voter after the replacement"] if not figures["spare_is_a_voter"] else []
    drill.finish("replace-controller", figures, problems, "nothing lost, no failed send, three caught-up voters")


if __name__ == "__main__":
    main()
