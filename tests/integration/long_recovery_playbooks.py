"""The recovery playbooks' slower lab cases (make test-long; test_recovery_playbooks.py has the rest): a rebuild
whose catch-up times out still removes its throttle, and replace_broker.yml fences a live broker when asked (then
puts the lab back: kafka4 a spare again, broker 2 on kafka2)."""

from lab_hosts import ssh_run
from test_recovery_playbooks import (
    MIB,
    REPLACE,
    _conn,
    _spare_again_and_kafka2_back,
    _wait_healthy,
    bulk_topic,  # noqa: F401 (fixture)
)
from throttles import throttles_anywhere

from lab import config


def test_a_rebuild_that_fails_still_removes_its_throttle(
        run_playbook, run_module, bootstrap_servers, zookeeper_connect, bulk_topic):  # noqa: F811
    # 1 MiB/s cannot copy 96 MiB in 60 s: the wait times out and the run fails after the wipe. (20 s was not always
    # enough for the broker to register first: on a busy 4.4 lab the wait timed out before, with another message.)
    proc = run_playbook("rebuild_broker.yml", "-e", "broker_host=kafka3", "-e", "catch_up_timeout=60",
                        "-e", f"replication_throttle_bytes_per_sec={MIB}")
    assert proc.returncode != 0
    assert "is still out of the ISR" in proc.output
    assert throttles_anywhere(bootstrap_servers) == {}
    _wait_healthy(run_module, _conn(bootstrap_servers, zookeeper_connect), 3)


def test_replace_fences_a_live_broker_when_asked(
        run_playbook, run_module, bootstrap_servers, zookeeper_connect, topic):
    conn = _conn(bootstrap_servers, zookeeper_connect)
    kafka2, kafka4 = config.host("kafka2"), config.host("kafka4")
    try:
        proc = run_playbook("replace_broker.yml", *REPLACE, "-e", "fence_failed_host=true")
        assert proc.returncode == 0, proc.output[-3000:]
        assert "will be stopped and disabled" in proc.output
        state = ssh_run(kafka2, "systemctl is-enabled kafka; systemctl is-active kafka || true").split()
        assert state == ["disabled", "inactive"]
        info = run_module("kafka_cluster_info", **conn)
        assert info["brokers"]["2"]["host"] == kafka4.fqdn and info["under_replicated"] == []
        assert throttles_anywhere(bootstrap_servers) == {}
    finally:
        _spare_again_and_kafka2_back(run_module, conn)
    assert run_module("kafka_cluster_info", **conn)["brokers"]["2"]["host"] == kafka2.fqdn
