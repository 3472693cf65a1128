"""kafka_replication_throttle against the lab: it throttles exactly the replicas of the rebuilt broker,
keeps throttles that were there before, and its removal takes away only what it added. On KRaft a broker's
configs reach it through the metadata log a moment after the change: they are read until they show it."""

import time

from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource
from throttles import dynamic_throttles

from lab.cluster_settings import kafka_config

FOLLOWER_REPLICAS = "follower.replication.throttled.replicas"
LEADER_REPLICAS = "leader.replication.throttled.replicas"
LEADER_RATE, FOLLOWER_RATE = "leader.replication.throttled.rate", "follower.replication.throttled.rate"
BROKER = ConfigResource.Type.BROKER


def _alter(admin, restype, name, op, **configs):
    resource = ConfigResource(restype, str(name), incremental_configs=[
        ConfigEntry(k.replace("_", "."), v, incremental_operation=op) for k, v in configs.items()])
    admin.incremental_alter_configs([resource])[resource].result(30)


def _topic(admin, topic):
    values = dynamic_throttles(admin, ConfigResource.Type.TOPIC, topic)
    return {k: set(v.split(",")) for k, v in values.items()}


def _broker(admin, broker_id, expected=None, timeout=10):
    """A broker's throttle configs; with expected, read again until they are that (for up to timeout s)."""
    deadline = time.monotonic() + timeout
    while True:
        found = dynamic_throttles(admin, BROKER, broker_id)
        if expected is None or found == expected or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def test_throttle_is_exact_merged_and_removed_without_touching_what_was_there(
        run_module, bootstrap_servers, zookeeper_connect, topic):
    admin = AdminClient(kafka_config(bootstrap_servers))
    conn = dict(bootstrap_servers=bootstrap_servers, zookeeper_connect=zookeeper_connect)
    # Throttles an operator set before the run: they must stay.
    _alter(admin, ConfigResource.Type.TOPIC, topic, AlterConfigOpType.SET,
           follower_replication_throttled_replicas="5:3")
    _alter(admin, BROKER, 2, AlterConfigOpType.SET, leader_replication_throttled_rate="7000000")
    try:
        planned = run_module("kafka_replication_throttle", check=True, broker_id=3, rate=1_000_000, **conn)
        assert planned["changed"] is True and planned["added"]["topics"][topic][FOLLOWER_REPLICAS] == [
            "0:3", "1:3", "2:3", "3:3", "4:3"]
        assert _topic(admin, topic) == {FOLLOWER_REPLICAS: {"5:3"}} and _broker(admin, 3) == {}

        applied = run_module("kafka_replication_throttle", broker_id=3, rate=1_000_000, **conn)
        assert not applied["failed"], applied.get("msg")
        assert applied["added"]["brokers"] == {"1": [LEADER_RATE], "3": [FOLLOWER_RATE]}
        on_topic = _topic(admin, topic)
        assert on_topic[FOLLOWER_REPLICAS] == {f"{p}:3" for p in range(6)}
        assert on_topic[LEADER_REPLICAS] == {f"{p}:{b}" for p in range(6) for b in (1, 2)}
        assert _broker(admin, 3, {FOLLOWER_RATE: "1000000"}) == {FOLLOWER_RATE: "1000000"}
        assert _broker(admin, 1, {LEADER_RATE: "1000000"}) == {LEADER_RATE: "1000000"}
        assert _broker(admin, 2, {LEADER_RATE: "7000000"}) == {LEADER_RATE: "7000000"}

        undo = dict(broker_id=3, state="absent", added=applied["added"], **conn)
        removed = run_module("kafka_replication_throttle", **undo)
        assert not removed["failed"], removed.get("msg")
        assert removed["changed"] is True
        assert _topic(admin, topic) == {FOLLOWER_REPLICAS: {"5:3"}}
        assert _broker(admin, 3, {}) == {} and _broker(admin, 1, {}) == {}
        assert _broker(admin, 2) == {LEADER_RATE: "7000000"}
        again = run_module("kafka_replication_throttle", **undo)
        assert again["changed"] is False
    finally:
        _alter(admin, BROKER, 2, AlterConfigOpType.DELETE, leader_replication_throttled_rate=None)
