"""playbooks/snapshot_offsets.yml on the lab: the snapshot records the topic's offsets and a group's
committed offsets in the format the validator reads; check mode writes nothing."""

import json

from confluent_kafka import Consumer

from lab.cluster_settings import kafka_config
from lab.traffic import AckedProducer


def _jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_snapshot_records_offsets_replicas_and_committed_offsets(run_playbook, run_module, bootstrap_servers,
                                                                 zookeeper_connect, topic, tmp_path):
    producer = AckedProducer(bootstrap_servers, topic)
    producer.send(600)
    assert producer.stop(60) == 0 and len(producer.acked) == 600
    group = f"{topic}-group"
    consumer = Consumer(kafka_config(bootstrap_servers) | {"group.id": group,
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    read = 0
    while read < 600:
        read += len([m for m in consumer.consume(num_messages=600, timeout=2) if not m.error()])
    consumer.commit(asynchronous=False)
    consumer.close()

    assert run_playbook("snapshot_offsets.yml", "--check", "-e", f"snapshot_dir={tmp_path}").returncode == 0
    assert list(tmp_path.iterdir()) == []

    proc = run_playbook("snapshot_offsets.yml", "-e", f"snapshot_dir={tmp_path}")
    assert proc.returncode == 0
    cluster_id = run_module("kafka_cluster_info", bootstrap_servers=bootstrap_servers,
                            zookeeper_connect=zookeeper_connect)["cluster_id"]
    [snapshot] = list((tmp_path / cluster_id).iterdir())
    cluster = json.loads((snapshot / "cluster.json").read_text())
    assert cluster["cluster_id"] == cluster_id and [b["id"] for b in cluster["brokers"]] == [1, 2, 3]
    rows = [r for r in _jsonl(snapshot / "partitions.jsonl") if r["topic"] == topic]
    assert sorted(r["partition"] for r in rows) == list(range(6))
    assert sum(r["high_watermark"] for r in rows) == 600 and all(r["log_start_offset"] == 0 for r in rows)
    assert all(sorted(r["isr"]) == sorted(r["replicas"]) and len(r["replicas"]) == 3 for r in rows)
    committed = [r for r in _jsonl(snapshot / "group_offsets.jsonl") if r["group"] == group]
    assert {(r["partition"], r["committed_offset"]) for r in committed} == {
        (r["partition"], r["high_watermark"]) for r in rows if r["high_watermark"] > 0}
