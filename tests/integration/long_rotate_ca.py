"""rotate_ca.yml on the deployed lab under acks=all producers (about 10 minutes, so not in make test: `make
test-long` runs it; pytest collects long_*.py files only when named): a producer that trusts only the old CA
writes through trust-both and reissue without a failed send (it verifies the reissued brokers through the next
CA cross-signed by the old); a producer with the kit's trust (both CAs by then) writes through drop-old. Every
broker and member restarts once per phase; afterwards the old CA alone is refused, the new one accepted, the
next CA is the CA in use and site.yml changes nothing."""

import shutil
import time

from lab_hosts import service_start_count

from lab import config
from lab.traffic import AckedProducer, reaches_every_broker, read_all

PKI = config.PKI  # the lab's kafka_pki_dir


def test_the_ca_is_rotated_under_load_and_old_ca_clients_work_until_the_last_phase(
        run_playbook, tmp_path, brokers, zookeepers, bootstrap_servers, topic):
    old_ca = tmp_path / "old-ca.pem"
    shutil.copy(PKI / "ca" / "cert.pem", old_ca)
    started = time.time()

    trusting_old = AckedProducer(bootstrap_servers, topic, rate=300, config={"ssl.ca.location": str(old_ca)})
    trusting_old.start()
    try:
        proc = run_playbook("rotate_ca.yml", "-e", "stop_after=reissue")
    finally:
        unreported = trusting_old.stop()
    assert proc.returncode == 0
    assert "done: reissue: every host presents a certificate from the new CA" in proc.output
    assert "stopped after reissue; a rerun goes on with: drop-old" in proc.output
    assert unreported == 0 and trusting_old.failed == []
    assert reaches_every_broker(old_ca)  # new sessions too, with the reissued certificates
    new_ca = tmp_path / "new-ca.pem"
    shutil.copy(PKI / "ca-next" / "cert.pem", new_ca)
    assert service_start_count(brokers, "kafka", started) == {b.name: 2 for b in brokers}
    assert service_start_count(zookeepers, "zookeeper", started) == {z.name: 2 for z in zookeepers}

    with_kit_trust = AckedProducer(bootstrap_servers, topic, rate=300)  # the kit's ca.pem: both CAs now
    with_kit_trust.start()
    try:
        proc = run_playbook("rotate_ca.yml")
    finally:
        unreported = with_kit_trust.stop()
    assert proc.returncode == 0
    assert "rotation finished: every host trusts and presents the new CA alone" in proc.output
    assert unreported == 0 and with_kit_trust.failed == []
    assert service_start_count(brokers, "kafka", started) == {b.name: 3 for b in brokers}
    assert service_start_count(zookeepers, "zookeeper", started) == {z.name: 3 for z in zookeepers}
    assert read_all(bootstrap_servers, topic, len(trusting_old.acked) + len(with_kit_trust.acked)) == (
        trusting_old.acked | with_kit_trust.acked)

    assert not reaches_every_broker(old_ca)  # the old CA is gone...
    assert reaches_every_broker(new_ca)
    assert (PKI / "ca" / "cert.pem").read_bytes() == new_ca.read_bytes()  # ...and the next CA is the CA in use
    retired = [d for d in (PKI / "ca-retired").iterdir() if (d / "cert.pem").read_bytes() == old_ca.read_bytes()]
    assert len(retired) == 1 and not any((PKI / "ca-retired").glob("*/key.pem"))  # its certificate kept, no key

    proc = run_playbook("site.yml")
    assert proc.returncode == 0
    assert all(" changed=0 " in line for line in proc.stdout.splitlines() if " : ok=" in line), proc.stdout[-3000:]
