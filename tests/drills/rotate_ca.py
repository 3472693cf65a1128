"""Drill: a certificate renewed by site.yml, then rotate_ca.yml replacing the CA, on a freshly deployed lab under
an acks=all canary, without loss.

On a fresh lab (site.yml): a canary topic, a before snapshot; then a canary that trusts only the old CA writes
through site.yml renewing kafka2's certificate (inside a widened renewal window: kafka2 alone restarts), and
through `-e stop_after=reissue` (trust-both and reissue: it verifies the reissued brokers through the next CA
cross-signed by the old), and a canary with the kit's trust (both CAs by then, its ca.pem) through the rest
(drop-old, then the promotion), on the same ledger. Afterwards: how many times each broker and member restarted
(once per phase expected), whether a client trusting only the old CA is refused and one trusting only the new
CA accepted, whether site.yml changes nothing; the Spark validator (validate_recovery.yml) checks the ledger.

Fails (exit 1) on: a failed playbook, a failed send, a lost record, a host not restarted exactly once per phase
(kafka2 alone for the renewal),
the old CA still accepted, site.yml changing something. Prints the figures and writes them to
.cache/drills/rotate-ca.json.

Run: make security-drills (after the conversion drill), or python tests/drills/rotate_ca.py (takes the lab down
and up).
"""

import shutil
import sys
import time
import uuid

import drill

sys.path.insert(0, str(drill.REPO))

from canary import Canary, ensure_topic  # noqa: E402
from lab import cluster_settings, config  # noqa: E402
from lab.measure import service_starts_since  # noqa: E402
from lab.traffic import reaches_every_broker  # noqa: E402

WORK = drill.REPO / ".cache" / "drills" / "rotate-ca"
PKI = config.ROOT / "pki"  # the lab's kafka_pki_dir
RATE = 200  # canary records per second
# A host certificate of the default validity ends with its CA (it never outlives it), so a renewal could not end later:
# kafka2 first gets one of SHORT_DAYS (its file removed on the controller: the pki role issues a missing one, through
# site.yml), which then falls inside a renewal window one day longer, the new one for 35 days more (as
# long_renew_certificate.py does).
SHORT_DAYS = 60
SHORT_KAFKA2 = f"all:\n  hosts:\n    kafka2: {{kafka_pki_host_validity_days: {SHORT_DAYS}}}\n"
RENEW_KAFKA2 = (f"all:\n  hosts:\n    kafka2: {{kafka_pki_renew_before_days: {SHORT_DAYS + 1}, "
                f"kafka_pki_host_validity_days: {SHORT_DAYS + 36}}}\n")


def run(command):
    return drill.run(command, WORK / "logs")


UNITS = {"kafka_broker": "kafka", "zookeeper": "zookeeper"}
HOSTS = [h.name for h in config.load_hosts() if set(h.groups) & set(UNITS)]  # the cluster's, in inventory order


def starts_since(since):
    """Per lab host of the cluster, how many times systemd started its kafka or zookeeper unit since `since`."""
    return {h.name: service_starts_since(h, UNITS[g], since)
            for h in config.load_hosts() for g in h.groups if g in UNITS}


def main():
    started = time.monotonic()
    drill.fresh_lab(WORK)
    _, deploy_s = run(["ansible-playbook", "playbooks/site.yml"])
    figures = {"deploy_s": round(deploy_s), "runs": []}
    (PKI / "hosts" / "kafka2" / "cert.pem").unlink()
    short = WORK / "short-kafka2.yml"
    short.write_text(SHORT_KAFKA2)
    run(["ansible-playbook", "playbooks/site.yml", "-i", "inventories/lab", "-i", str(short)])

    secured = cluster_settings.kafka_config()
    old_ca = WORK / "old-ca.pem"
    shutil.copy(PKI / "ca" / "cert.pem", old_ca)
    topic = f"drill-rotate-{uuid.uuid4().hex[:6]}"
    ensure_topic(secured, topic, partitions=6, replication_factor=3)
    ledger = WORK / "ledger"
    canary = Canary(secured | {"ssl.ca.location": str(old_ca)}, topic, ledger, rate=RATE).start()
    time.sleep(10)  # data in every partition before the snapshot
    snapshots = WORK / "snapshots"
    run(["ansible-playbook", "playbooks/snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}"])
    before = max(snapshots.glob("*/*/cluster.json")).parent

    overlay = WORK / "renew-kafka2.yml"
    overlay.write_text(RENEW_KAFKA2)
    try:
        since = time.time()
        _, seconds = run(["ansible-playbook", "playbooks/site.yml", "-i", "inventories/lab", "-i", str(overlay)])
        figures["runs"].append({"run": "renewal of kafka2's certificate (site.yml; canary trusting the old CA only)",
                                "seconds": round(seconds), "starts": starts_since(since),
                                "expected": {h: int(h == "kafka2") for h in HOSTS}, "acked_so_far": canary.acked})
        since = time.time()
        _, seconds = run(["ansible-playbook", "playbooks/rotate_ca.yml", "-e", "stop_after=reissue"])
    finally:
        assert canary.stop() == 0, "old-CA canary: records never reported"
    figures["runs"].append({"run": "trust-both, reissue (canary trusting the old CA only)", "seconds": round(seconds),
                            "starts": starts_since(since), "expected": dict.fromkeys(HOSTS, 2)})
    figures["old_ca_only"] = canary.summary()
    figures["old_ca_accepted_after_reissue"] = reaches_every_broker(old_ca)
    new_ca = WORK / "new-ca.pem"
    shutil.copy(PKI / "ca-next" / "cert.pem", new_ca)

    since = time.time()
    canary = Canary(secured, topic, ledger, rate=RATE, first_seq=figures["old_ca_only"]["sent"]).start()
    try:
        _, seconds = run(["ansible-playbook", "playbooks/rotate_ca.yml"])
        site, _ = run(["ansible-playbook", "playbooks/site.yml"])
        figures["site_after_changed"] = drill.changed_hosts(site.stdout)
    finally:
        assert canary.stop() == 0, "kit-trust canary: records never reported"
    figures["runs"].append({"run": "drop-old, promotion, then site.yml (canary with the kit's trust)",
                            "seconds": round(seconds), "starts": starts_since(since),
                            "expected": dict.fromkeys(HOSTS, 1)})
    figures["kit_trust"] = canary.summary()
    figures["old_ca_accepted_after"] = reaches_every_broker(old_ca)
    figures["new_ca_accepted_after"] = reaches_every_broker(new_ca)
    figures["ca_in_use_is_the_new_one"] = (PKI / "ca" / "cert.pem").read_bytes() == new_ca.read_bytes()

    losses, problems = drill.validate(before, ledger, snapshots, WORK / "report",
                                      [figures["old_ca_only"], figures["kit_trust"]])
    figures.update(losses)
    figures["drill_s"] = round(time.monotonic() - started)
    for run_figures in figures["runs"]:
        if run_figures["starts"] != run_figures["expected"]:
            problems += [f"{run_figures['run']}: restarts {run_figures['starts']}, not {run_figures['expected']}"]
    problems += ["a client trusting only the old CA was refused before drop-old"] \
        if not figures["old_ca_accepted_after_reissue"] else []
    problems += ["a client trusting only the old CA is still accepted"] if figures["old_ca_accepted_after"] else []
    problems += ["a client trusting only the new CA is refused"] if not figures["new_ca_accepted_after"] else []
    problems += ["the next CA is not the CA in use"] if not figures["ca_in_use_is_the_new_one"] else []
    problems += [f"site.yml after the rotation changed {figures['site_after_changed']}"] \
        if figures["site_after_changed"] else []
    drill.finish("rotate-ca", figures, problems,
                 "nothing lost, no failed send, every host restarted once per phase, the old CA refused after")


if __name__ == "__main__":
    main()
