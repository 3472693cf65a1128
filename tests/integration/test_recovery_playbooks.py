"""playbooks/rebuild_broker.yml and playbooks/replace_broker.yml on the lab: check mode, a throttle that
holds, and a replacement under load that loses nothing (make test-long: long_recovery_playbooks.py, a failed
rebuild's throttle removed and a live broker fenced; long_recovery_refusals.py, their refusals). The same tests
run on the ZooKeeper lab (make test) and the KRaft lab (make test-kraft): there the rebuilt and the new broker's
log dirs are formatted, and a stopped broker's rate waits until it runs.

The replacement runs last: it powers kafka2 off and brings kafka4 in as broker 2, and puts the lab back
as it was afterwards (kafka4 a spare again, kafka2 booted as broker 2)."""

import time

import pytest
from lab_hosts import service_starts, ssh_run
from throttles import throttles_anywhere

from lab import ansible, config, machines
from lab.cli import up
from lab.measure import LogBytesSampler, copy_window
from lab.monitoring import prometheus
from lab.traffic import AckedProducer, fill, read_all

DATA_DIR = "/var/lib/kafka/data"
MIB = 1024 * 1024
REPLACE = ("-e", "failed_host=kafka2", "-e", "replacement_host=kafka4")


def _conn(bootstrap_servers, zookeeper_connect):
    return dict(bootstrap_servers=bootstrap_servers, zookeeper_connect=zookeeper_connect)


def _wait_healthy(run_module, conn, broker_id, timeout=600):
    result = run_module("kafka_broker_wait_healthy", broker_id=broker_id, wait_timeout=timeout, **conn)
    assert not result["failed"], result.get("msg")


def _data_listing(host):
    # Without Kafka's own background removal of deleted topics' folders (<partition>.<id>-delete), which
    # earlier tests leave behind and which can happen at any moment.
    return ssh_run(host, f"find {DATA_DIR} -maxdepth 1 ! -name '*-delete' | sort")


def test_rebuild_check_mode_shows_the_plan_and_changes_nothing(
        run_playbook, bootstrap_servers, brokers, topic):
    kafka3 = config.host("kafka3")
    before = (service_starts(brokers, "kafka"), _data_listing(kafka3))
    proc = run_playbook("rebuild_broker.yml", "-e", "broker_host=kafka3", "--check")
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "rebuild broker 3 on kafka3" in proc.output and "ETA" in proc.output
    assert (service_starts(brokers, "kafka"), _data_listing(kafka3)) == before
    assert throttles_anywhere(bootstrap_servers) == {}


BULK = 96 * MIB // (64 * 1024)  # messages of 64 KiB


@pytest.fixture
def bulk_topic(bootstrap_servers, topic):
    """The test topic with 96 MiB in it, for a rebuild to copy."""
    assert fill(bootstrap_servers, topic, 96 * MIB) == BULK
    return topic


def test_rebuild_under_load_holds_the_throttle_and_loses_nothing(
        run_playbook, run_module, bootstrap_servers, zookeeper_connect, bulk_topic):
    throttle = 4 * MIB
    producer = AckedProducer(bootstrap_servers, bulk_topic, rate=200)
    sampler = LogBytesSampler(config.host("kafka3"))
    producer.start()
    sampler.start()
    try:
        proc = run_playbook("rebuild_broker.yml", "-e", "broker_host=kafka3",
                            "-e", f"replication_throttle_bytes_per_sec={throttle}")
    finally:
        samples = sampler.stop()
        unreported = producer.stop()
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "broker 3 rebuilt on kafka3" in proc.output

    copied, seconds = copy_window(samples)
    assert copied > 80 * MIB, f"the rebuild copied only {copied} bytes"
    rate = copied / seconds
    assert rate <= 1.10 * throttle, f"{rate / MIB:.2f} MiB/s under a {throttle / MIB} MiB/s throttle"

    assert throttles_anywhere(bootstrap_servers) == {}
    assert unreported == 0 and producer.failed == []
    assert producer.acked <= read_all(bootstrap_servers, bulk_topic, len(producer.acked) + BULK)
    conn = _conn(bootstrap_servers, zookeeper_connect)
    health = run_module("kafka_broker_wait_healthy", broker_id=3, **conn)
    assert health["done"] is True, health["lagging"]


def _spare_again_and_kafka2_back(run_module, conn):
    """Undo a replacement: kafka4 a bare spare again, kafka2 booted if it was powered off and its broker
    enabled and started if it was fenced (broker 2 starts on its old data and catches up), and Prometheus scraping
    the inventory's kafka2 again (monitoring.yml: the replacement had taken its place)."""
    ssh_run(config.host("kafka4"), "systemctl disable --now kafka prometheus-node-exporter 2>/dev/null; rm -rf "
                             f"/etc/kafka /etc/systemd/system/kafka.service {DATA_DIR}; systemctl daemon-reload")
    up(config.load_hosts())
    ssh_run(config.host("kafka2"), "systemctl enable --now kafka")
    _wait_healthy(run_module, conn, 2)
    restored = ansible.playbook("playbooks/monitoring.yml", "--limit", "monitoring")
    assert restored.returncode == 0, restored.stdout[-3000:]


def _tools_without_config_command(folder):
    """A Kafka tools home without Kafka's core jar: LogDirsCommand runs, ConfigCommand does not."""
    (folder / "libs").mkdir(parents=True)
    for jar in config.kafka_libs().iterdir():
        if not jar.name.startswith("kafka_2.13-"):
            (folder / "libs" / jar.name).symlink_to(jar)
    return folder


def test_replace_a_powered_off_broker_under_load_loses_nothing(
        run_playbook, run_module, bootstrap_servers, zookeeper_connect, topic, tmp_path):
    conn = _conn(bootstrap_servers, zookeeper_connect)
    kafka2, kafka4 = config.host("kafka2"), config.host("kafka4")
    filled = fill(bootstrap_servers, topic, 32 * MIB)
    producer = AckedProducer(bootstrap_servers, topic, rate=300)
    producer.start()
    machines.power_off(kafka2)
    try:
        deadline = time.monotonic() + 60  # its ZooKeeper session expires after 18 s
        while True:
            info = run_module("kafka_cluster_info", **conn)  # may fail while clients notice the loss
            if not info["failed"] and "2" not in info["brokers"]:
                break
            assert time.monotonic() < deadline, "broker 2 still registered 60 s after its host lost power"
            time.sleep(2)

        planned = run_playbook("replace_broker.yml", *REPLACE, "--check")
        assert planned.returncode == 0, planned.output[-3000:]
        assert "replace broker 2 (kafka2: not registered) with kafka4" in planned.output
        assert "ETA ~" in planned.output
        assert ssh_run(kafka4, "ls /etc/kafka 2>&1 || true").count("No such") == 1
        assert throttles_anywhere(bootstrap_servers) == {}

        # A replacement host whose data dir holds another cluster's meta.properties is refused.
        ssh_run(kafka4, f"mkdir -p {DATA_DIR} && printf 'version=0\\nbroker.id=7\\ncluster.id=other\\n' "
                        f"> {DATA_DIR}/meta.properties")
        refused = run_playbook("replace_broker.yml", *REPLACE)
        assert refused.returncode != 0
        assert f"Refusing to use kafka4 as broker 2: {DATA_DIR} holds the data of broker.id 7, not 2" in refused.output
        assert ssh_run(kafka4, "ls /etc/kafka 2>&1 || true").count("No such") == 1
        assert throttles_anywhere(bootstrap_servers) == {}
        ssh_run(kafka4, f"rm -rf {DATA_DIR}")

        if zookeeper_connect:  # ZooKeeper: the stopped broker's rate goes through Kafka's ConfigCommand
            # The stopped broker's throttle fails after the topics' and live brokers' throttles were written:
            # the run fails, and removes them.
            broken = run_playbook("replace_broker.yml", *REPLACE,
                                  "-e", f"kafka_tools_home={_tools_without_config_command(tmp_path / 'tools')}")
            assert broken.returncode != 0
            assert "replication throttle (present) for broker 2 failed" in broken.output
            assert throttles_anywhere(bootstrap_servers) == {}

        # A run whose catch-up times out fails (throttle removed); its rerun resumes and completes.
        # (at 1 MiB/s: on KRaft the catch-up wait starts only once the broker's own rate is set)
        timed_out = run_playbook("replace_broker.yml", *REPLACE, "-e", "catch_up_timeout=1",
                                 "-e", f"replication_throttle_bytes_per_sec={MIB}")
        assert timed_out.returncode != 0
        assert "broker 2 did not register" in timed_out.output or "is still out of the ISR" in timed_out.output
        assert throttles_anywhere(bootstrap_servers) == {}

        proc = run_playbook("replace_broker.yml", *REPLACE)
        assert proc.returncode == 0, proc.stdout[-3000:]
        assert "COMMIT THIS INVENTORY CHANGE" in proc.output and "kafka_broker_id: 2" in proc.output
        assert "rerun: already registered by the replacement" in proc.output
        # broker 2 was down when throttled: its follower rate went through ZooKeeper (KRaft: set once it ran),
        # and came off again
        assert "throttle removed: follower rate on broker(s) 2; leader rate on broker(s) 1,3" in proc.output
        unreported = producer.stop()

        info = run_module("kafka_cluster_info", **conn)
        assert info["brokers"]["2"]["host"] == kafka4.fqdn
        assert info["under_replicated"] == [] and info["offline"] == []
        assert [p for p in info["partitions"] if p["leader"] != p["replicas"][0]] == []  # preferred leaders
        assert throttles_anywhere(bootstrap_servers) == {}
        assert unreported == 0 and producer.failed == []
        assert producer.acked <= read_all(bootstrap_servers, topic, len(producer.acked) + filled)
        meta = ssh_run(kafka4, f"cat {DATA_DIR}/meta.properties")
        assert ("broker.id=2" if zookeeper_connect else "node.id=2") in meta
        assert f"cluster.id={info['cluster_id']}" in meta
        # Prometheus scrapes kafka4 in kafka2's place, its broker and its node exporter, before the inventory changes
        deadline = time.monotonic() + 30  # Prometheus rereads its targets files within seconds
        while True:
            scraped = {(t["labels"]["job"], t["labels"]["host"])
                       for t in prometheus("/api/v1/targets")["activeTargets"]}
            replaced = {("kafka_broker", "kafka4"), ("node", "kafka4")} <= scraped
            if (replaced and not {("kafka_broker", "kafka2"), ("node", "kafka2")} & scraped
                    or time.monotonic() > deadline):
                break
            time.sleep(2)
        assert {("kafka_broker", "kafka4"), ("node", "kafka4")} <= scraped
        assert not {("kafka_broker", "kafka2"), ("node", "kafka2")} & scraped
    finally:
        producer.stop()
        _spare_again_and_kafka2_back(run_module, conn)
    assert run_module("kafka_cluster_info", **conn)["brokers"]["2"]["host"] == kafka2.fqdn
