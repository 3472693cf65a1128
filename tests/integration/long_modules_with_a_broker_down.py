"""kafka_broker_safe_to_stop, kafka_broker_wait_healthy and kafka_leader_election around a stopped
broker: with broker 1 down, stopping another would take the topic below min ISR; after it returns,
leaders are not preferred until the election moves them back."""

from lab_hosts import ssh_run


def test_modules_around_a_stopped_broker(run_module, brokers, bootstrap_servers, zookeeper_connect, topic):
    conn = dict(bootstrap_servers=bootstrap_servers, zookeeper_connect=zookeeper_connect)
    assert run_module("kafka_broker_safe_to_stop", broker_id=2, **conn)["safe"] is True

    ssh_run(brokers[0], "systemctl stop kafka")
    try:
        check = run_module("kafka_broker_safe_to_stop", broker_id=2, **conn)
        assert not check["failed"] and check["safe"] is False
        assert {f"{topic}-{n}" for n in range(6)} <= set(check["blocking"])
        waited = run_module("kafka_broker_safe_to_stop", broker_id=2, wait_timeout=3, poll_interval=1, **conn)
        assert waited["failed"] is True and waited["msg"].startswith("refusing to stop broker 2")
        down = run_module("kafka_broker_wait_healthy", broker_id=1, wait_timeout=0, **conn)
        assert down["registered"] is False and down["done"] is False
    finally:
        ssh_run(brokers[0], "systemctl start kafka")
    back = run_module("kafka_broker_wait_healthy", broker_id=1, wait_timeout=300, **conn)
    assert not back["failed"], back.get("msg")

    # Broker 1 came back as a follower everywhere: the partitions it prefers are led by others.
    planned = run_module("kafka_leader_election", check=True, **conn)
    assert planned["changed"] is True
    assert [p for p in planned["plan"] if p.startswith(topic)] == [
        p for p in planned["not_preferred"] if p.startswith(topic)] != []
    elected = run_module("kafka_leader_election", **conn)
    assert not elected["failed"], elected.get("msg")
    assert elected["changed"] is True and sorted(elected["moved"]) == sorted(planned["plan"])
    assert elected["not_preferred"] == []
    assert run_module("kafka_leader_election", **conn)["changed"] is False
