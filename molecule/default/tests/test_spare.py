"""The spare broker host stays empty until a replacement needs it."""

testinfra_hosts = ["ansible://kafka_spare"]


def test_spare_runs_no_broker(host):
    assert not host.file("/etc/systemd/system/kafka.service").exists
    assert host.process.filter(comm="java") == []
    assert not host.file("/var/lib/kafka/data/meta.properties").exists
