"""Certificate renewal through site.yml: a host's certificate within kafka_pki_renew_before_days of its end is
reissued, installed, and its broker alone restarted through the gates, while an acks=all producer writes
without a failed delivery or a lost message. (A host certificate of the default validity ends with its CA, whose end
is rotate_ca.yml's: the test first gives kafka2 one that ends sooner.)"""

import datetime

from cryptography import x509
from lab_hosts import service_starts, ssh_run

from lab import config
from lab.traffic import AckedProducer, read_all

PKI = config.PKI  # the lab's kafka_pki_dir
# kafka2's certificate falls inside a renewal window one day longer than it has left; the new one is for 35 more.
RENEW_KAFKA2 = "all:\n  hosts:\n    kafka2: {{kafka_pki_renew_before_days: {0}, kafka_pki_host_validity_days: {1}}}\n"
SHORT_DAYS = 60  # kafka2's certificate before the test: it ends before the CA, so a renewal can end later


def _give_kafka2_a_short_certificate(run_playbook, tmp_path):
    """Reissue kafka2's certificate for SHORT_DAYS (its file removed on the controller: the pki role issues a missing
    one), through site.yml's gated roll."""
    (PKI / "hosts" / "kafka2" / "cert.pem").unlink()
    overlay = tmp_path / "short.yml"
    overlay.write_text(f"all:\n  hosts:\n    kafka2: {{kafka_pki_host_validity_days: {SHORT_DAYS}}}\n")
    proc = run_playbook("site.yml", "-i", "inventories/lab", "-i", str(overlay))
    assert proc.returncode == 0, proc.output[-3000:]


def _certificates():
    return {host.name: x509.load_pem_x509_certificate(host.joinpath("cert.pem").read_bytes())
            for host in (PKI / "hosts").iterdir() if host.joinpath("cert.pem").exists()}


def test_a_certificate_near_its_end_is_reissued_and_only_its_broker_restarts(
        run_playbook, tmp_path, brokers, zookeepers, bootstrap_servers, topic):
    _give_kafka2_a_short_certificate(run_playbook, tmp_path)
    certificates_before = _certificates()
    window = (certificates_before["kafka2"].not_valid_after_utc - datetime.datetime.now(datetime.UTC)).days + 1
    overlay = tmp_path / "renew.yml"
    overlay.write_text(RENEW_KAFKA2.format(window, window + 35))
    brokers_before, members_before = service_starts(brokers, "kafka"), service_starts(zookeepers, "zookeeper")
    producer = AckedProducer(bootstrap_servers, topic, rate=300)
    producer.start()
    try:
        proc = run_playbook("site.yml", "-i", "inventories/lab", "-i", str(overlay))
    finally:
        unreported = producer.stop()
    assert proc.returncode == 0
    shown = [proc.output[max(i - 100, 0):i + 300] for i, _ in enumerate(proc.output)
             if proc.output.startswith("kafka2/cert.pem", i)]
    assert "it expires" in proc.output and f"within kafka_pki_renew_before_days ({window})" in proc.output, \
        shown or proc.output[-3000:]  # what the pki role said of kafka2's certificate

    certificates_after = _certificates()
    changed = sorted(h for h in certificates_after if certificates_after[h] != certificates_before.get(h))
    assert changed == ["kafka2"], changed
    renewed = certificates_after["kafka2"]
    lifetime = renewed.not_valid_after_utc - renewed.not_valid_before_utc  # ends a second early: 94 days 23:59:59
    assert round(lifetime.total_seconds() / 86400) == window + 35, lifetime
    kafka2 = config.host("kafka2")
    installed = x509.load_pem_x509_certificate(
        ssh_run(kafka2, "sed -n '/BEGIN CERTIFICATE/,/END CERTIFICATE/p' /etc/kafka/tls/keystore.pem").encode())
    assert installed == renewed  # the broker has the new certificate...

    brokers_after = service_starts(brokers, "kafka")
    assert [b for b in brokers_before if brokers_after[b] != brokers_before[b]] == ["kafka2"]  # ...and alone restarted
    assert service_starts(zookeepers, "zookeeper") == members_before
    assert unreported == 0 and producer.failed == []
    assert read_all(bootstrap_servers, topic, len(producer.acked)) == producer.acked
