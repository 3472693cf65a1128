"""Whose data a broker's log dirs hold: the one rule, on hand-written meta.properties and real files."""

import os

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_identity as ki

META = "#\n#Fri Nov 20 10:00:00 UTC 2026\nversion=0\nbroker.id=2\ncluster.id=AbC-12_xyz\n"


def _entry(path, meta=None, error=None):
    return {"path": path, "meta": meta, "error": error, "bootstrap": None}


def _ours(path="/d1", broker="2", cluster="AbC-12_xyz"):
    return _entry(path, {"broker.id": broker, "cluster.id": cluster})


def test_parse_properties_as_kafka_writes_them():
    assert ki.parse_properties(META) == {"version": "0", "broker.id": "2", "cluster.id": "AbC-12_xyz"}
    assert ki.parse_properties("log.dirs=/a,/b\n! comment\nx: y\n") == {"log.dirs": "/a,/b", "x": "y"}
    # server.properties / zoo.cfg as the templates write them: the first '=' separates
    assert ki.parse_properties("# c\nlisteners=PLAINTEXT://0.0.0.0:9092\nsasl.jaas.config=a=b\n") == {
        "listeners": "PLAINTEXT://0.0.0.0:9092", "sasl.jaas.config": "a=b"}


def test_normalized_dirs():
    assert ki.normalized_dirs("/a/, /b,,") == ["/a", "/b"]
    assert ki.normalized_dirs(["/var/lib/kafka/data/"]) == ["/var/lib/kafka/data"]
    assert ki.normalized_dirs(None) == []


def test_each_status():
    assert ki.classify(_entry("/d"), 2) == ki.ABSENT
    assert ki.classify(_ours(), 2, "AbC-12_xyz") == ki.OURS
    assert ki.classify(_ours(), 2) == ki.OURS  # cluster unknown: not compared
    assert ki.classify(_ours(broker="3"), 2, "AbC-12_xyz") == ki.OTHER_BROKER
    assert ki.classify(_ours(cluster="other"), 2, "AbC-12_xyz") == ki.OTHER_CLUSTER
    assert ki.classify(_entry("/d", {"version": "0", "cluster.id": "c"}), 2) == ki.MALFORMED
    assert ki.classify(_entry("/d", {"broker.id": "2"}), 2) == ki.MALFORMED
    assert ki.classify(_entry("/d", error="Input/output error"), 2) == ki.UNREADABLE


def test_kraft_node_id_counts_as_the_broker_id():
    assert ki.classify(_entry("/d", {"node.id": "2", "cluster.id": "c"}), 2, "c") == ki.OURS


def test_no_refusal_for_empty_or_own_dirs():
    dirs = ki.report([_entry("/d1"), _ours("/d2")], 2, "AbC-12_xyz")
    assert ki.refusals(dirs, 2, "AbC-12_xyz") == []


def test_refusals_name_the_dir_and_what_it_holds():
    dirs = ki.report([_ours("/d1", broker="3"), _ours("/d2", cluster="zzz"),
                      _entry("/d3", error="Input/output error (/d3/meta.properties)"),
                      _entry("/d4", {"version": "0"})], 2, "AbC-12_xyz")
    assert ki.refusals(dirs, 2, "AbC-12_xyz") == [
        "/d1 holds the data of broker.id 3, not 2",
        "/d2 holds the data of cluster zzz, not AbC-12_xyz",
        "/d3 cannot be read: Input/output error (/d3/meta.properties)",
        "/d4/meta.properties has no broker.id or cluster.id",
    ]


def test_dirs_of_two_clusters_are_refused_when_the_cluster_is_unknown():
    dirs = ki.report([_ours("/d1", cluster="a"), _ours("/d2", cluster="b")], 2)
    assert ki.refusals(dirs, 2) == ["the log dirs hold data of different clusters: a, b"]


def test_peers_holding_this_id_or_another_cluster():
    dirs = ki.report([_ours("/d1", cluster="a")], 2)
    peers = {"kafka3": ki.report([_ours("/d", broker="2", cluster="a")], 3),
             "kafka1": ki.report([_ours("/d", broker="1", cluster="b")], 1)}
    assert ki.refusals(dirs, 2, peers=peers) == [
        "the log dirs hold cluster a, but /d on kafka1 holds cluster b",
        "/d on kafka3 already holds the data of broker.id 2",
    ]


def test_abandoned_log_dirs_are_refused():
    assert ki.refusals([], 2, abandoned=["/old"]) == [
        "log.dirs would no longer include /old, which holds this broker's data"]


def test_read_meta_tells_absent_from_unreadable(tmp_path):
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "meta.properties").write_text(META)
    assert ki.read_meta(str(tmp_path / "ok"))["meta"]["broker.id"] == "2"
    assert ki.read_meta(str(tmp_path / "missing")) == {"path": str(tmp_path / "missing"), "meta": None,
                                                        "error": None, "bootstrap": None}
    (tmp_path / "denied").mkdir()
    (tmp_path / "denied" / "meta.properties").mkdir()  # reading a directory fails with EISDIR
    entry = ki.read_meta(str(tmp_path / "denied"))
    assert entry["meta"] is None and "Is a directory" in entry["error"]
    assert os.path.isdir(tmp_path / "denied")


def test_the_bootstrap_checkpoint_is_read_where_each_release_formats_it(tmp_path):
    import base64
    for name in ("bootstrap.checkpoint", "__cluster_metadata-0/00000000000000000000-0000000000.checkpoint"):
        d = tmp_path / name.replace("/", "_")
        (d / name).parent.mkdir(parents=True)
        (d / "meta.properties").write_text(META)
        (d / name).write_bytes(b"\x00\x01snapshot")
        assert base64.b64decode(ki.read_meta(str(d))["bootstrap"]) == b"\x00\x01snapshot"
        assert ki.report([ki.read_meta(str(d))], 2)[0]["bootstrap"] == ki.read_meta(str(d))["bootstrap"]
    (tmp_path / "formatted_by_nothing").mkdir()
    (tmp_path / "formatted_by_nothing" / "meta.properties").write_text(META)
    assert ki.read_meta(str(tmp_path / "formatted_by_nothing"))["bootstrap"] is None


def test_the_preflight_filter_compares_a_read_result_with_the_peers_read_after_it():
    from ansible_collections.kafkaops.toolkit.plugins.filter.kafka_identity import kafka_identity_refusals
    dirs = ki.report([_ours("/d1")], 2, "AbC-12_xyz")
    identity = {"dirs": dirs, "refusals": [], "abandoned_log_dirs": ["/old"]}
    peers = {"kafka3": ki.report([_ours("/d1", broker="2")], 3, "AbC-12_xyz")}
    assert kafka_identity_refusals(identity, 2, "AbC-12_xyz", peers) == [
        "/d1 on kafka3 already holds the data of broker.id 2",
        "log.dirs would no longer include /old, which holds this broker's data"]
    assert kafka_identity_refusals(identity, 2, "", {}) == [
        "log.dirs would no longer include /old, which holds this broker's data"]


def test_dirs_read_before_the_cluster_id_was_known_are_checked_against_it():
    from ansible_collections.kafkaops.toolkit.plugins.filter.kafka_identity import kafka_identity_refusals
    identity = {"dirs": ki.report([_ours("/d1", cluster="old")], 2), "abandoned_log_dirs": []}
    assert kafka_identity_refusals(identity, 2, "new", {}) == ["/d1 holds the data of cluster old, not new"]
    assert kafka_identity_refusals(identity, 2, "old", {}) == []


def test_a_kraft_dir_reports_its_directory_id():
    entry = {"path": "/m", "meta": {"node.id": "9003", "cluster.id": "X", "directory.id": "i2ZnYpAAXUSxivwo7Vl4lA"},
             "error": None, "bootstrap": None}
    assert ki.report([entry], 9003)[0]["directory_id"] == "i2ZnYpAAXUSxivwo7Vl4lA"
    assert ki.report([dict(entry, meta=None)], 9003)[0]["directory_id"] is None
