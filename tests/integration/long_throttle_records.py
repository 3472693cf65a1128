"""No leaked throttle and no endless wait, on the lab: a wait against a wrong address fails at once; a
rebuild killed with SIGKILL during its catch-up leaves a record, and remove_throttles.yml removes exactly
what it recorded while throttles set by hand before the run stay."""

import json
import time

from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource
from lab_hosts import ssh_run
from test_recovery_playbooks import BULK, MIB, _wait_healthy, bulk_topic  # noqa: F401 (fixture)
from throttles import throttles_anywhere

from lab import config
from lab.cluster_settings import kafka_config


def test_a_wait_against_a_name_that_does_not_resolve_fails_at_once(run_module, zookeeper_connect):
    started = time.monotonic()
    result = run_module("kafka_broker_wait_healthy", broker_id=1, wait_timeout=600,
                        bootstrap_servers="no-such-broker.invalid:9092", zookeeper_connect=zookeeper_connect)
    elapsed = time.monotonic() - started
    assert result["failed"] and "no-such-broker.invalid does not resolve" in result["msg"], result
    assert elapsed < 30, f"the wait took {elapsed:.0f}s to give up on an address that does not resolve"


def _alter(admin, restype, name, config_name, value, op):
    resource = ConfigResource(restype, str(name), incremental_configs=[
        ConfigEntry(config_name, value, incremental_operation=op)])
    admin.incremental_alter_configs([resource])[resource].result(30)


def _throttles_once_broker_3_answers(bootstrap_servers, timeout=120):
    """The throttles left, read once broker 3 (started by the killed run) answers; what it did meanwhile if not."""
    deadline, left = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        try:
            left = throttles_anywhere(bootstrap_servers)
        except Exception as exc:  # a broker that does not answer yet: a describe times out
            left = f"{type(exc).__name__}: {exc}"
        if isinstance(left, dict) and "broker 3" in left:
            return left
        time.sleep(2)
    seen = ssh_run(config.host("kafka3"),
                   "systemctl status kafka --no-pager -n 0; ss -ltn; tail -n 60 /var/log/kafka/server.log")
    raise AssertionError(f"broker 3 has no throttle {timeout} s after the kill: {left}\n{seen}")


def test_a_killed_rebuild_leaves_a_record_that_remove_throttles_removes_exactly(
        run_playbook, run_module, kill_playbook_at, bootstrap_servers, zookeeper_connect, bulk_topic, tmp_path):  # noqa: F811
    admin = AdminClient(kafka_config(bootstrap_servers))
    # Set by hand before the run: a leader entry the rebuild also wants, and broker 1's leader rate.
    by_hand = {f"topic {bulk_topic}": {"leader.replication.throttled.replicas": "0:1"},
               "broker 1": {"leader.replication.throttled.rate": "500000000"}}
    _alter(admin, ConfigResource.Type.TOPIC, bulk_topic, "leader.replication.throttled.replicas", "0:1",
           AlterConfigOpType.SET)
    _alter(admin, ConfigResource.Type.BROKER, 1, "leader.replication.throttled.rate", "500000000",
           AlterConfigOpType.SET)
    records = tmp_path / "records"
    try:
        kill_playbook_at("rebuild_broker.yml",
                         ["-e", "broker_host=kafka3", "-e", f"throttle_record_dir={records}",
                          "-e", f"replication_throttle_bytes_per_sec={MIB}"],
                         "Wait until the broker is in the ISR")

        recorded = list(records.glob("*/broker-3.json"))
        assert len(recorded) == 1, list(records.rglob("*"))
        added = json.loads(recorded[0].read_text())
        assert added["brokers"] == {"2": ["leader.replication.throttled.rate"],
                                    "3": ["follower.replication.throttled.rate"]}
        left = _throttles_once_broker_3_answers(bootstrap_servers)
        assert left[f"topic {bulk_topic}"]["follower.replication.throttled.replicas"]
        assert left["broker 3"] == {"follower.replication.throttled.rate": str(MIB)}

        removed = run_playbook("remove_throttles.yml", "-e", f"throttle_record_dir={records}")
        assert removed.returncode == 0, removed.output[-3000:]
        assert throttles_anywhere(bootstrap_servers) == by_hand
        assert list(records.glob("*/*.json")) == []
    finally:
        _alter(admin, ConfigResource.Type.TOPIC, bulk_topic, "leader.replication.throttled.replicas", None,
               AlterConfigOpType.DELETE)
        _alter(admin, ConfigResource.Type.BROKER, 1, "leader.replication.throttled.rate", None,
               AlterConfigOpType.DELETE)
        run_playbook("remove_throttles.yml", "-e", f"throttle_record_dir={records}")
        _wait_healthy(run_module, dict(bootstrap_servers=bootstrap_servers, zookeeper_connect=zookeeper_connect),
                      3, timeout=900)
