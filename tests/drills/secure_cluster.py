"""Drill: secure_cluster.yml takes an open cluster to the secured one under an acks=all canary, without loss.

On a fresh lab: the cluster as the previous version of the roles deployed it (git archive OPEN_COMMIT: PLAINTEXT
listener, plaintext ZooKeeper, no ACLs), a canary topic, a before snapshot; then the canary writes on PLAINTEXT
while the first step adds the secured listeners, and on SASL_SSL (same ledger, same topic, the keys going on)
through every other step, PLAINTEXT removal last. After each run the same command runs again and must change
nothing; after the last, site.yml must change nothing either (the converted cluster is the one the roles
deploy), and tests/integration/test_security.py must pass on it as on a fresh deploy. The Spark validator
(validate_recovery.yml) then checks the ledger against the cluster.

Fails (exit 1) on: a failed playbook, a rerun that changed something, a failed send, a lost record. Prints the
figures (acknowledged, failed, lost, each run's wall time) and writes them to .cache/drills/secure-cluster.json.

Run: make security-drills   (takes the lab down and up: about 15 minutes)
"""

import pathlib
import subprocess
import sys
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO))

import drill  # noqa: E402

from canary import Canary, ensure_topic  # noqa: E402
from lab import cluster_settings  # noqa: E402

OPEN_COMMIT = "7881921"  # the last commit whose roles deploy an open cluster
WORK = REPO / ".cache" / "drills" / "secure-cluster"
RATE = 200  # canary records per second
OPEN_CONNECTION = ["-e", "kafka_client_security_protocol=PLAINTEXT", "-e", "zookeeper_client_tls=false"]


def run(command, cwd=REPO, env=None):
    return drill.run(command, WORK / "logs", cwd, env)


def open_client_config():
    """librdkafka settings of the open cluster, derived by the connection role (PLAINTEXT listener)."""
    return drill.client_config(WORK / "open-client-settings.json", WORK / "logs", *OPEN_CONNECTION)


def convert(label, *extra):
    """secure_cluster.yml, then the same command again, which must change nothing."""
    return drill.run_twice(["ansible-playbook", "playbooks/secure_cluster.yml", *extra], label, WORK / "logs")


def main():
    started = time.monotonic()
    drill.fresh_lab(WORK)
    figures = {"open_deploy_s": round(drill.deploy_roles_of(OPEN_COMMIT, WORK, WORK / "logs")), "runs": []}

    plaintext = open_client_config()
    topic = f"drill-secure-{uuid.uuid4().hex[:6]}"
    ensure_topic(plaintext, topic, partitions=6, replication_factor=3)
    ledger = WORK / "ledger"
    canary = Canary(plaintext, topic, ledger, rate=RATE).start()
    time.sleep(10)  # data in every partition before the snapshot
    snapshots = WORK / "snapshots"
    run(["ansible-playbook", "playbooks/snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}", *OPEN_CONNECTION])
    before = max(snapshots.glob("*/*/cluster.json")).parent

    figures["runs"].append(convert("secure-listeners (canary on PLAINTEXT)", "-e", "stop_after=secure-listeners"))
    assert canary.stop() == 0, "PLAINTEXT canary: records never reported"
    figures["plaintext"] = canary.summary()

    secured = cluster_settings.kafka_config()
    canary = Canary(secured, topic, ledger, rate=RATE, first_seq=figures["plaintext"]["sent"]).start()
    try:
        figures["runs"].append(convert("every step but the plaintext removal (canary on SASL_SSL)"))
        figures["runs"].append(convert("remove_plaintext (canary on SASL_SSL)", "-e", "remove_plaintext=true"))
        site, _ = run(["ansible-playbook", "playbooks/site.yml"])
        figures["site_after_changed"] = drill.changed_hosts(site.stdout)
    finally:
        assert canary.stop() == 0, "SASL_SSL canary: records never reported"
    figures["sasl_ssl"] = canary.summary()

    losses, problems = drill.validate(before, ledger, snapshots, WORK / "report",
                                      [figures["plaintext"], figures["sasl_ssl"]])
    figures.update(losses)
    # The converted cluster passes the checks a freshly deployed one passes (no PLAINTEXT port, wrong passwords
    # and users without ACLs refused, znodes locked, file modes).
    security_tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                     "tests/integration/test_security.py"], cwd=REPO, capture_output=True, text=True)
    figures["security_tests"] = security_tests.stdout.strip().splitlines()[-1:]
    figures["drill_s"] = round(time.monotonic() - started)
    problems += [f"site.yml after the conversion changed {figures['site_after_changed']}"] \
        if figures["site_after_changed"] else []
    problems += [f"tests/integration/test_security.py: {security_tests.stdout[-3000:]}"] \
        if security_tests.returncode else []
    drill.finish("secure-cluster", figures, problems,
                 "nothing lost, no failed send, every rerun and site.yml changed nothing")

if __name__ == "__main__":
    main()
