"""The identity filters of the kafka_broker preflight, on hand-written meta.properties files."""

import base64

import kafka_meta  # plugins/filter is on the pytest pythonpath (pyproject.toml)

# What Kafka 3.9 (ZooKeeper mode) writes into every log dir.
META_BROKER_1 = "#\n#Tue Nov 18 10:12:01 UTC 2025\ncluster.id=Qm9vdHN0cmFwQ2x1c3Rl\nversion=0\nbroker.id=1\n"
META_BROKER_2 = "#\n#Tue Nov 18 10:12:03 UTC 2025\ncluster.id=Qm9vdHN0cmFwQ2x1c3Rl\nversion=0\nbroker.id=2\n"
META_OTHER_CLUSTER = "cluster.id=T3RoZXJDbHVzdGVyMDAw\nversion=0\nbroker.id=1\n"


def _slurp(path, text, item=None):
    """A registered slurp result, as Ansible returns it."""
    result = {
        "changed": False,
        "content": base64.b64encode(text.encode()).decode(),
        "encoding": "base64",
        "source": path,
    }
    if item is not None:
        result["item"] = item
    return result


def _peer(host, path, text):
    return _slurp(path, text, item={"host": host, "path": path})


# kafka_meta_properties


def test_meta_properties_parses_kafka_meta_file_and_skips_comments():
    assert kafka_meta.kafka_meta_properties(META_BROKER_1) == {
        "cluster.id": "Qm9vdHN0cmFwQ2x1c3Rl",
        "version": "0",
        "broker.id": "1",
    }


def test_meta_properties_handles_separators_escapes_and_continuations():
    text = (
        "! bang comment\n"
        "   \n"
        "a = 1\n"
        "b:2\n"
        "c 3\n"
        "d\\=x=4\n"
        "log.dirs=/data/a,\\\n"
        "         /data/b\n"
        "e=tab\\there\n"
        "f=\\u0041\n"
        "empty=\n"
        "a=last wins\n"
    )
    assert kafka_meta.kafka_meta_properties(text) == {
        "a": "last wins",
        "b": "2",
        "c": "3",
        "d=x": "4",
        "log.dirs": "/data/a,/data/b",
        "e": "tab\there",
        "f": "A",
        "empty": "",
    }


def test_meta_properties_of_nothing_is_empty():
    assert kafka_meta.kafka_meta_properties(None) == {}
    assert kafka_meta.kafka_meta_properties("") == {}
    assert kafka_meta.kafka_meta_properties("# only a comment\n") == {}


def test_meta_properties_accepts_bytes():
    assert kafka_meta.kafka_meta_properties(b"broker.id=7\n") == {"broker.id": "7"}


# kafka_normalized_log_dirs


def test_log_dirs_from_server_properties_prefers_log_dirs_over_log_dir():
    assert kafka_meta.kafka_normalized_log_dirs({"log.dirs": "/a/, /b", "log.dir": "/c"}) == ["/a", "/b"]
    assert kafka_meta.kafka_normalized_log_dirs({"log.dir": "/c"}) == ["/c"]
    assert kafka_meta.kafka_normalized_log_dirs({}) == []


def test_log_dirs_from_list_or_string():
    assert kafka_meta.kafka_normalized_log_dirs(["/var/lib/kafka/data/", " /x "]) == [
        "/var/lib/kafka/data",
        "/x",
    ]
    assert kafka_meta.kafka_normalized_log_dirs("/a,,/b") == ["/a", "/b"]
    assert kafka_meta.kafka_normalized_log_dirs("/") == ["/"]
    assert kafka_meta.kafka_normalized_log_dirs(None) == []


# kafka_found_files


def test_found_files_keeps_reachable_hosts_only():
    results = [
        {"item": "kafka2", "files": [{"path": "/var/lib/kafka/data/meta.properties"}]},
        {"item": "kafka3", "files": []},
        {"item": "kafka9", "unreachable": True, "msg": "ssh: connect to host ... timed out"},
        {"item": "kafka8", "failed": True, "msg": "boom"},
    ]
    assert kafka_meta.kafka_found_files(results) == [
        {"host": "kafka2", "path": "/var/lib/kafka/data/meta.properties"}
    ]


def test_found_files_of_nothing_is_empty():
    assert kafka_meta.kafka_found_files(None) == []
    assert kafka_meta.kafka_found_files([]) == []


# kafka_identity_problems


def test_fresh_broker_has_no_problems():
    assert kafka_meta.kafka_identity_problems([], [], 1, "kafka1") == []


def test_own_data_of_same_cluster_as_peers_is_fine():
    local = [_slurp("/var/lib/kafka/data/meta.properties", META_BROKER_1)]
    peers = [_peer("kafka2", "/var/lib/kafka/data/meta.properties", META_BROKER_2)]
    assert kafka_meta.kafka_identity_problems(local, peers, 1, "kafka1") == []


def test_broker_id_in_meta_differs_from_inventory():
    local = [_slurp("/var/lib/kafka/data/meta.properties", META_BROKER_2)]
    assert kafka_meta.kafka_identity_problems(local, [], 1, "kafka1") == [
        "/var/lib/kafka/data/meta.properties on kafka1 belongs to broker.id 2, but kafka_broker_id is 1"
    ]


def test_broker_id_may_be_given_as_string():
    local = [_slurp("/d/meta.properties", META_BROKER_1)]
    assert kafka_meta.kafka_identity_problems(local, [], "1", "kafka1") == []


def test_log_dirs_of_two_clusters_on_one_broker():
    local = [_slurp("/a/meta.properties", META_BROKER_1), _slurp("/b/meta.properties", META_OTHER_CLUSTER)]
    assert kafka_meta.kafka_identity_problems(local, [], 1, "kafka1") == [
        "the log dirs of kafka1 belong to different clusters: "
        "cluster.id Qm9vdHN0cmFwQ2x1c3Rl in /a/meta.properties on kafka1; "
        "cluster.id T3RoZXJDbHVzdGVyMDAw in /b/meta.properties on kafka1"
    ]


def test_local_cluster_differs_from_peers():
    local = [_slurp("/d/meta.properties", META_OTHER_CLUSTER)]
    peers = [_peer("kafka2", "/d/meta.properties", META_BROKER_2)]
    assert kafka_meta.kafka_identity_problems(local, peers, 1, "kafka1") == [
        "/d/meta.properties on kafka1 has cluster.id T3RoZXJDbHVzdGVyMDAw, "
        "but /d/meta.properties on kafka2 has cluster.id Qm9vdHN0cmFwQ2x1c3Rl"
    ]


def test_peer_already_holds_this_broker_id():
    peers = [_peer("kafka2", "/d/meta.properties", META_BROKER_1)]
    assert kafka_meta.kafka_identity_problems([], peers, 1, "kafka4") == [
        "/d/meta.properties on kafka2 already holds the data of broker.id 1"
    ]


def test_empty_new_host_replacing_a_broker_is_fine():
    peers = [
        _peer("kafka2", "/d/meta.properties", META_BROKER_2),
        _peer("kafka3", "/d/meta.properties", META_BROKER_2.replace("broker.id=2", "broker.id=3")),
    ]
    assert kafka_meta.kafka_identity_problems([], peers, 1, "kafka4") == []


def test_kraft_node_id_counts_as_broker_id():
    local = [_slurp("/d/meta.properties", "version=1\ncluster.id=abc\nnode.id=5\n")]
    assert kafka_meta.kafka_identity_problems(local, [], 1, "kafka1") == [
        "/d/meta.properties on kafka1 belongs to broker.id 5, but kafka_broker_id is 1"
    ]


def test_failed_or_skipped_slurps_are_ignored():
    local = [{"skipped": True, "item": {}}, {"failed": True, "msg": "file not found"}]
    assert kafka_meta.kafka_identity_problems(local, [{"unreachable": True}], 1, "kafka1") == []


def test_meta_without_ids_is_not_a_conflict():
    local = [_slurp("/d/meta.properties", "version=0\n")]
    peers = [_peer("kafka2", "/d/meta.properties", "version=0\ncluster.id= \n")]
    assert kafka_meta.kafka_identity_problems(local, peers, 1, "kafka1") == []


def test_plain_text_content_is_accepted():
    local = [{"source": "/d/meta.properties", "content": META_BROKER_2}]
    assert kafka_meta.kafka_identity_problems(local, [], 1, "kafka1") == [
        "/d/meta.properties on kafka1 belongs to broker.id 2, but kafka_broker_id is 1"
    ]


def test_filter_module_exposes_the_filters():
    assert sorted(kafka_meta.FilterModule().filters()) == [
        "kafka_found_files",
        "kafka_identity_problems",
        "kafka_meta_properties",
        "kafka_normalized_log_dirs",
    ]
