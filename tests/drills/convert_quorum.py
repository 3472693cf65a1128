"""Drill: convert_quorum_to_dynamic.yml on a static Kafka 4.4 quorum, under an acks=all canary, without loss.

On a fresh KRaft lab of 4.4.0 deployed with kafka_controller_quorum: static (an inventory overlay, as a migrated
cluster's quorum is): a canary topic and a before snapshot; then the playbook's --check (the plan, nothing changed)
and a run without -e confirm_irreversible=true (refused, nothing changed, kraft.version still 0); then the conversion
(kraft.version 1, every controller and broker rolled to controller.quorum.bootstrap.servers); then site.yml with the
inventory as committed afterwards (kafka_controller_quorum: dynamic, 4.4's default) must change nothing, and
replace_controller.yml must replace a follower whose metadata dir was wiped. The Spark validator (validate_recovery.yml)
checks the canary's ledger.

Fails (exit 1) on: a failed playbook, a run that should be refused and is not or changes a host, a failed send, a
lost record, a voter without its directory id or a config still listing the voters afterwards, site.yml changing
something. Figures: .cache/drills/convert-quorum.json.

Run: make test-convert-quorum (takes the lab down and up with KAFKAOPS_LAB_KAFKA_VERSION=4.4.0 and
KAFKAOPS_LAB_METADATA_MODE=kraft; about 20 minutes)
"""

import time

import drill

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft, kafka_tools, kafka_versions
from lab import cluster_settings, config

WORK = drill.REPO / ".cache" / "drills" / "convert-quorum"
RATE = 200  # canary records per second
META = "/var/lib/kafka-controller/metadata"
CONFIGS = {"kafka_controller": "/etc/kafka-controller/controller.properties",
           "kafka_broker": "/etc/kafka/server.properties"}


def run(*args):
    return drill.run(["ansible-playbook", *args], WORK / "logs")


def quorum_and_kraft_version():
    conf = cluster_settings.kafka_config()
    home = str(config.kafka_libs().parent)
    rows = kafka_tools.read_quorum(home, conf, 30)["replication"]
    return [r for r in rows if r["status"] in kafka_kraft.VOTER], kafka_kraft.quorum_kraft_version(rows)


def hosts_listing_voters():
    return [h.name for h in config.load_hosts() for g in h.groups if g in CONFIGS
            and "controller.quorum.voters=" in drill.on_host(h.name, f"cat {CONFIGS[g]}")]


def main():
    assert kafka_versions.facts(config.KAFKA_VERSION)["converts_quorum"], \
        f"{config.KAFKA_VERSION} cannot convert a quorum: set KAFKAOPS_LAB_KAFKA_VERSION=4.4.0"
    started = time.monotonic()
    drill.fresh_lab(WORK)
    static = WORK / "static-quorum.yml"
    static.write_text("all:\n  hosts:\n" + "".join(f"    {h.name}: {{kafka_controller_quorum: static}}\n"
                                                  for h in config.load_hosts()))
    overlay = ["-i", "inventories/lab", "-i", str(static)]
    _, deploy_s = run("playbooks/site.yml", *overlay)
    voters, level = quorum_and_kraft_version()
    figures = {"release": config.KAFKA_VERSION, "deploy_s": round(deploy_s), "kraft_version_before": level,
               "directory_ids_before": sorted({r["directory_id"] for r in voters}),
               "listing_voters_before": hosts_listing_voters()}

    canary, ledger, snapshots, before = drill.canary_with_snapshot(WORK, "drill-convert", RATE)
    try:
        check, _ = run("playbooks/convert_quorum_to_dynamic.yml", *overlay, "--check")
        figures["check_changed"] = drill.changed_hosts(check.stdout)
        figures["check_shows_irreversible"] = "CANNOT BE UNDONE" in check.stdout
        refused, changed = drill.refused(["ansible-playbook", "playbooks/convert_quorum_to_dynamic.yml", *overlay],
                                         WORK / "logs" / "unconfirmed.log", ["[convert-needs-confirm]"])
        figures["unconfirmed_refused"], figures["unconfirmed_changed"] = refused, changed
        figures["kraft_version_after_refusals"] = quorum_and_kraft_version()[1]

        _, seconds = run("playbooks/convert_quorum_to_dynamic.yml", *overlay, "-e", "confirm_irreversible=true")
        figures["conversion_s"] = round(seconds)
        voters, level = quorum_and_kraft_version()
        figures["kraft_version_after"] = level
        figures["voters_without_directory_id"] = kafka_kraft.static_voters(voters)
        figures["listing_voters_after"] = hosts_listing_voters()
        site, _ = run("playbooks/site.yml")  # the inventory as committed: 4.4's default quorum, dynamic
        figures["site_after_changed"] = drill.changed_hosts(site.stdout)

        lost = next(h for h in config.load_hosts() if "kafka_controller" in h.groups
                    and 9000 + int(h.name.removeprefix("ctrl")) != kafka_kraft.quorum_leader(voters))
        drill.on_host(lost.name, f"systemctl stop kafka-controller && rm -rf {META}"
                                 f" && install -d -o kafka -g kafka -m 0750 {META}")
        _, seconds = run("playbooks/replace_controller.yml", "-e", f"failed_host={lost.name}")
        figures["replace_after_conversion_s"] = round(seconds)
        figures["voters_at_end"] = sorted(r["node_id"] for r in quorum_and_kraft_version()[0])
    finally:
        assert canary.stop() == 0, "canary: records never reported"
    problems = drill.validate_canary(canary, figures, before, ledger, snapshots, WORK / "report", started)
    expected = {"kraft_version_before": 0, "directory_ids_before": [kafka_kraft.STATIC_DIRECTORY_ID],
                "check_changed": [], "check_shows_irreversible": True, "unconfirmed_refused": True,
                "unconfirmed_changed": [], "kraft_version_after_refusals": 0, "kraft_version_after": 1,
                "voters_without_directory_id": [], "listing_voters_after": [], "site_after_changed": [],
                "voters_at_end": [9001, 9002, 9003]}
    problems += drill.mismatches(figures, expected)
    drill.finish("convert-quorum", figures, problems,
                 "refused without the confirmation, nothing lost, every voter with its directory id, no config "
                 "listing the voters, site.yml unchanged, a voter replaced afterwards")


if __name__ == "__main__":
    main()
