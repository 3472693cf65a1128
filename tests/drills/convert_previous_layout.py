"""Drill: secure_cluster.yml moves a cluster secured by the previous layout of the roles (members logging in to each
other with one SCRAM password on a BROKER listener, the kit as kafkaops-admin with a password) to member
certificates, under an acks=all canary, without loss (docs/runbooks/credentials.md, "From the previous layout").

On a fresh lab: the cluster as the previous roles deployed it (git archive PREVIOUS_COMMIT);
site.yml must be refused (it would close the BROKER listener in one roll) and change nothing; a canary topic, and
the canary writes as the old admin login on CLIENT while secure_cluster.yml takes every step that rolls (each run
followed by the same command, which must change nothing; a before snapshot after the first step, once the
validator's principal exists); then, the canary stopped, the last step deletes the old SCRAM users, and the old
logins must be refused on CLIENT; rotate_credentials.yml moves the ZooKeeper login off the previous layout's
password (generation 0). With --kraft the same on a KRaft cluster of the previous layout (the controllers' steps
first, their CONTROLLER listener closed after the brokers' BROKER, still under the canary; no ZooKeeper). After that
the inventory needs none of the previous layout's passwords: site.yml must change nothing,
tests/integration/test_security.py must pass, and the Spark validator checks the ledger.

The previous layout's passwords are the lab's own (its secrets dir, where the previous inventory's lookups made
them); the drill gives them to the playbooks in an extra-vars file (0600), never on a command line.

Fails (exit 1) on: a failed playbook, a rerun that changed something, an old login still accepted, a failed send, a
lost record. Prints the figures and writes them to .cache/drills/convert-previous-layout.json.

Run: python tests/drills/convert_previous_layout.py   (part of make security-drills; takes the lab down and up)
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import uuid

import drill

from canary import Canary, ensure_topic
from lab import ansible, config
from lab.traffic import logs_in

PREVIOUS_COMMIT = "4cee222"  # the last commit whose roles deploy the previous layout (members by password)
RATE = 200  # canary records per second
# The previous inventory's password lookups (its group_vars/all.yml) -> the variables that hold them now
PREVIOUS_PASSWORDS = {"kafka-broker": "kafka_inter_broker_sasl_password",
                      "kafkaops-admin": "kafka_client_sasl_password",
                      "zookeeper-kafka": "zookeeper_sasl_password"}


NAME = "convert-previous-layout"
WORK = drill.REPO / ".cache" / "drills" / NAME  # with --kraft: NAME-kraft


def run(command, cwd=drill.REPO, env=None):
    return drill.run(command, WORK / "logs", cwd, env)


def forget_zookeeper_login_generations():
    """The ZooKeeper login of a cluster of the previous layout is generation 0 (its inventory's password): the kit's
    records of another lab's later generations would name logins this ensemble never had."""
    for path in config.SECRETS.glob("zookeeper-*"):
        if path.name.endswith(".current") or "-g" in path.name:
            path.unlink()


def previous_passwords_file(kraft):
    """The extra-vars file (0600) with the previous layout's passwords and the old admin's name."""
    path = WORK / "previous-passwords.json"
    values = {var: (config.SECRETS / name).read_text().strip() for name, var in PREVIOUS_PASSWORDS.items()
              if not (kraft and var.startswith("zookeeper"))}
    path.touch(mode=0o600)
    path.write_text(json.dumps(values | {"kafka_client_sasl_username": "kafkaops-admin"}))
    return f"@{path}"


def old_login_config(previous):
    """librdkafka settings of the old admin's SCRAM login on CLIENT, derived by the connection role."""
    return drill.client_config(WORK / "old-admin-settings.json", WORK / "logs", "-e", previous,
                               "-e", "kafka_client_security_protocol=SASL_SSL")


def convert(label, *extra):
    """secure_cluster.yml, then the same command again, which must change nothing."""
    return drill.run_twice(["ansible-playbook", "playbooks/secure_cluster.yml", *extra], label, WORK / "logs")


def main():
    global WORK
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kraft", action="store_true", help="a KRaft cluster of the previous layout (its controllers "
                                                             "on CONTROLLER with the PLAIN login)")
    kraft = parser.parse_args().kraft
    name = f"{NAME}-kraft" if kraft else NAME
    WORK = WORK.with_name(name)
    if kraft:
        os.environ["KAFKAOPS_LAB_METADATA_MODE"] = "kraft"  # the lab inventory's mode, for the old roles and the new
    started = time.monotonic()
    drill.fresh_lab(WORK)
    if not kraft:
        forget_zookeeper_login_generations()
    figures = {"previous_deploy_s": round(drill.deploy_roles_of(PREVIOUS_COMMIT, WORK, WORK / "logs")), "runs": []}
    previous = previous_passwords_file(kraft)
    old_admin = old_login_config(previous)
    old_member = old_admin | {"sasl.username": "kafka-broker",
                              "sasl.password": (config.SECRETS / "kafka-broker").read_text().strip()}

    # site.yml would close BROKER in one roll: refused, nothing changed
    site_refused, site_changed = drill.refused(
        ["ansible-playbook", "playbooks/site.yml", "-e", previous], WORK / "logs" / "site-refused.log",
        ["identity-replication-listener-kept", "replicates over its BROKER listener", "Nothing changed"])
    figures["site_on_previous_layout"] = {"refused": site_refused, "changed": site_changed}

    topic = f"drill-convert-{uuid.uuid4().hex[:6]}"
    ensure_topic(old_admin, topic, partitions=6, replication_factor=3)
    ledger, snapshots = WORK / "ledger", WORK / "snapshots"
    canary = Canary(old_admin, topic, ledger, rate=RATE).start()
    try:
        time.sleep(10)  # data in every partition
        figures["runs"].append(convert("replication-listener", "-e", previous, "-e", "stop_after=replication-listener"))
        run(["ansible-playbook", "playbooks/snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}", "-e", previous])
        last_roll = "controller-listener-removed" if kraft else "zookeeper-tls13-only"
        figures["runs"].append(convert(f"up to {last_roll}", "-e", previous, "-e", f"stop_after={last_roll}"))
    finally:
        assert canary.stop() == 0, "canary: records never reported"
    figures["canary"] = canary.summary()
    before = min(snapshots.glob("*/*/cluster.json")).parent

    figures["runs"].append(convert("old-passwords-deleted", "-e", previous))
    figures["old_logins_accepted"] = [name for name, conf in (("kafkaops-admin", old_admin),
                                                              ("kafka-broker", old_member)) if logs_in(conf)]
    if not kraft:
        _, seconds = run(["ansible-playbook", "playbooks/rotate_credentials.yml", "-e", "credentials=zookeeper",
                          "-e", previous])
        figures["runs"].append({"run": "rotate_credentials.yml -e credentials=zookeeper", "seconds": round(seconds)})

    # From here on the inventory holds none of the previous layout's passwords
    site, _ = run(["ansible-playbook", "playbooks/site.yml"])
    figures["site_after_changed"] = drill.changed_hosts(site.stdout)
    losses, problems = drill.validate(before, ledger, snapshots, WORK / "report", [figures["canary"]])
    figures.update(losses)
    security_tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                     "tests/integration/test_security.py"], cwd=drill.REPO, capture_output=True,
                                    text=True, env=ansible.environment())
    figures["security_tests"] = security_tests.stdout.strip().splitlines()[-1:]
    figures["drill_s"] = round(time.monotonic() - started)
    problems += [f"site.yml on the previous layout: {figures['site_on_previous_layout']}"] \
        if not site_refused or site_changed else []
    problems += [f"old logins still accepted on CLIENT: {figures['old_logins_accepted']}"] \
        if figures["old_logins_accepted"] else []
    problems += [f"site.yml after the conversion changed {figures['site_after_changed']}"] \
        if figures["site_after_changed"] else []
    problems += [f"tests/integration/test_security.py: {security_tests.stdout[-3000:]}"] \
        if security_tests.returncode else []
    os.unlink(previous[1:])
    shutil.rmtree(WORK / f"roles-{PREVIOUS_COMMIT}", ignore_errors=True)
    drill.finish(name, figures, problems,
                 "nothing lost, no failed send, the old logins refused, every rerun and site.yml changed nothing")


if __name__ == "__main__":
    main()
