"""Drill: rotate_credentials.yml for every kind of credential the kit made, one after the other, under one acks=all
canary, on a freshly deployed lab (ZooKeeper mode, or KRaft with --kraft: there the ZooKeeper login does not exist).

  python tests/drills/rotate_credentials.py [--kraft]     (make bench-rotation)

Deploys, starts the canary as the canary principal, snapshots the offsets, then rotates the kit's admin certificate,
(ZooKeeper) the ZooKeeper login and last the tools' logins (canary, validator: the canary's own, after the rolls),
timing each run; afterwards every old credential must be refused (the tools' old passwords on CLIENT, the old admin
certificate maps to no super user: a topic it creates is refused), site.yml must change nothing, and the Spark
validator (its own rotated login) must find every acknowledged record. The canary keeps the session it opened with
the old canary password: the brokers re-authenticate it only after connections.max.reauth.ms (an hour), far beyond
the drill. Prints the figures (per run its wall seconds; acknowledged, failed sends, lost) and writes them to
.cache/drills/rotate-credentials[-kraft].json.
"""

import argparse
import os
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(__file__))
import drill  # noqa: E402

from canary import Canary, ensure_topic  # noqa: E402
from lab import cluster_settings  # noqa: E402
from lab.traffic import creates_a_topic, logs_in  # noqa: E402

RATE = 200  # canary records per second


def _fresh_login(principal):
    cluster_settings.load.cache_clear()  # the kit's files hold another login after a rotation
    return cluster_settings.kafka_config(principal=principal)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kraft", action="store_true", help="a KRaft lab (no ZooKeeper login to rotate)")
    kraft = parser.parse_args().kraft
    name = "rotate-credentials-kraft" if kraft else "rotate-credentials"
    work = drill.REPO / ".cache" / "drills" / name
    if kraft:
        os.environ["KAFKAOPS_LAB_METADATA_MODE"] = "kraft"
    started = time.monotonic()
    drill.fresh_lab(work)
    _, deploy_s = drill.run(["ansible-playbook", "playbooks/site.yml"], work / "logs")
    figures = {"deploy_s": round(deploy_s), "runs": []}

    old_tools = {p: _fresh_login(p) for p in ("canary", "validator")}
    old_admin = cluster_settings.kafka_config()
    kept_admin = work / "old-admin"  # the old generation's files: rotate_credentials.yml deletes them
    kept_admin.mkdir()
    for key in ("ssl.certificate.location", "ssl.key.location"):
        target = kept_admin / os.path.basename(old_admin[key])
        target.write_bytes(open(old_admin[key], "rb").read())
        old_admin[key] = str(target)

    topic = f"canary-drill-rotate-{uuid.uuid4().hex[:6]}"  # the canary principal writes kafka_canary_topic_prefix's
    ensure_topic(cluster_settings.kafka_config(), topic, partitions=6, replication_factor=3)
    ledger, snapshots = work / "ledger", work / "snapshots"
    canary = Canary(old_tools["canary"], topic, ledger, rate=RATE).start()
    # The rolling rotations first: a client whose own login was rotated cannot log in again when a roll disconnects
    # it (its old password is deleted), so the canary's own rotation comes last, after the rolls.
    kinds = ["admin"] + ([] if kraft else ["zookeeper"]) + ["canary,validator"]
    try:
        time.sleep(10)  # data in every partition
        drill.run(["ansible-playbook", "playbooks/snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}"],
                  work / "logs")
        for kind in kinds:
            _, seconds = drill.run(["ansible-playbook", "playbooks/rotate_credentials.yml", "-e",
                                    f"credentials={kind}"], work / "logs")
            print(f"rotate_credentials.yml -e credentials={kind}: {seconds:.0f} s", flush=True)
            figures["runs"].append({"credentials": kind, "seconds": round(seconds)})
        time.sleep(5)
    finally:
        assert canary.stop() == 0, "canary: records never reported"
    figures["canary"] = canary.summary()
    before = min(snapshots.glob("*/*/cluster.json")).parent

    figures["old_tool_logins_accepted"] = [p for p, conf in old_tools.items() if logs_in(conf)]
    figures["new_tool_logins_accepted"] = [p for p in old_tools if logs_in(_fresh_login(p))]
    # the old certificate's subject maps to no super user now
    figures["old_admin_creates_topic"] = creates_a_topic(old_admin, "drill-rotate-admin")
    site, _ = drill.run(["ansible-playbook", "playbooks/site.yml"], work / "logs")
    figures["site_after_changed"] = drill.changed_hosts(site.stdout)
    losses, problems = drill.validate(before, ledger, snapshots, work / "report", [figures["canary"]])
    figures.update(losses)
    figures["drill_s"] = round(time.monotonic() - started)
    problems += [f"old tool logins still accepted: {figures['old_tool_logins_accepted']}"] \
        if figures["old_tool_logins_accepted"] else []
    problems += [f"new tool logins refused: {sorted(set(old_tools) - set(figures['new_tool_logins_accepted']))}"] \
        if len(figures["new_tool_logins_accepted"]) != len(old_tools) else []
    problems += ["the old admin certificate still creates topics"] if figures["old_admin_creates_topic"] is None else []
    problems += [f"site.yml after the rotations changed {figures['site_after_changed']}"] \
        if figures["site_after_changed"] else []
    drill.finish(name, figures, problems, "nothing lost, no failed send, every old credential refused, the new ones "
                                          "work, site.yml changed nothing")


if __name__ == "__main__":
    main()
