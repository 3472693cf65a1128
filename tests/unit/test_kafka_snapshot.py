"""The snapshot's folder name and rows, on hand-written cluster answers."""

import datetime

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_snapshot as ks

TAKEN = datetime.datetime(2026, 11, 21, 13, 5, 1, tzinfo=datetime.timezone.utc)


def test_snapshot_goes_under_cluster_id_and_utc_time():
    assert ks.snapshot_path("abc", TAKEN) == "abc/20261121T130501Z"


def test_partition_rows_carry_offsets_and_replicas():
    partitions = [{"topic": "t", "partition": 0, "leader": 2, "replicas": [2, 1], "isr": [2]},
                  {"topic": "t", "partition": 1, "leader": -1, "replicas": [1], "isr": []}]
    rows = ks.partition_rows(partitions, {("t", 0): 0, ("t", 1): 7}, {("t", 0): 0, ("t", 1): 12})
    assert rows == [
        {"topic": "t", "partition": 0, "log_start_offset": 0, "high_watermark": 0, "leader": 2,
         "replicas": [2, 1], "isr": [2]},
        {"topic": "t", "partition": 1, "log_start_offset": 7, "high_watermark": 12, "leader": -1,
         "replicas": [1], "isr": []}]


def test_group_rows_leave_out_partitions_without_a_commit():
    rows = ks.group_rows({"g2": {("t", 1): 5, ("t", 0): -1001}, "g1": {("t", 0): 0}})
    assert rows == [{"group": "g1", "topic": "t", "partition": 0, "committed_offset": 0},
                    {"group": "g2", "topic": "t", "partition": 1, "committed_offset": 5}]


def test_cluster_document_and_jsonl():
    state = {"cluster_id": "abc", "controller_id": 3, "brokers": {2: {"host": "k2", "port": 9092},
                                                                   1: {"host": "k1", "port": 9092}}}
    assert ks.cluster_document(state, TAKEN) == {
        "cluster_id": "abc", "taken_at": "2026-11-21T13:05:01Z", "controller_id": 3,
        "brokers": [{"id": 1, "host": "k1", "port": 9092}, {"id": 2, "host": "k2", "port": 9092}]}
    assert ks.jsonl([{"b": 1, "a": 2}, {}]) == "{\"a\": 2, \"b\": 1}\n{}\n"
