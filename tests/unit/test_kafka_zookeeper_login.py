"""The ZooKeeper login's generations (module_utils/kafka_zookeeper_login): names, the mapping every generation's name
gets (checked with ZooKeeper's own KerberosName from the distribution `make setup` unpacks), what the kit's files and
the hosts' jaas.conf say; and the rotation's plan on hand-written states."""

import pathlib
import subprocess

import pytest

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_connection
from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_credential_rotation as rot
from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_zookeeper_login as zl
from lab import config

REPO = pathlib.Path(__file__).resolve().parents[2]
KAFKA_LIBS = config.kafka_libs("3.9.2")  # a release with ZooKeeper


def test_every_generation_is_the_same_user_to_zookeepers_acls():
    assert KAFKA_LIBS.is_dir(), f"{KAFKA_LIBS} missing: run make setup"
    names = [zl.login_name("kafka", g) for g in (0, 1, 2, 13)] + ["kafka-g2@OTHER", "kafkax-g2@KAFKAOPS"]
    out = subprocess.run(["java", "-cp", f"{KAFKA_LIBS}/*", str(REPO / "tests/unit/java/ZookeeperShortNames.java"),
                          zl.auth_to_local("kafka"), *names], capture_output=True, text=True, check=True,
                         timeout=60).stdout.splitlines()
    assert out == ["kafka", "kafka", "kafka", "kafka", "no rule", "no rule"]


def test_names_and_generations_read_back():
    assert [zl.login_name("kafka", g) for g in (0, 3)] == ["kafka", "kafka-g3@KAFKAOPS"]
    assert [zl.generation_of("kafka", n) for n in ("kafka", "kafka-g3@KAFKAOPS", "other", "kafka-g3@X")] == [
        0, 3, None, None]


def test_the_generation_in_use_and_the_kept_logins(tmp_path):
    assert zl.current_generation(tmp_path, "kafka", legacy=False) == 1
    assert zl.current_generation(tmp_path, "kafka", legacy=True) == 0
    (tmp_path / "zookeeper-kafka.current").write_text("2\n")
    (tmp_path / "zookeeper-kafka-g1").write_text("one\n")
    (tmp_path / "zookeeper-kafka-g2").write_text("two\n")
    assert zl.current_generation(tmp_path, "kafka", legacy=True) == 2
    assert zl.kept_logins(tmp_path, "kafka", 2, "two") == [
        {"generation": 1, "name": "kafka-g1@KAFKAOPS", "password": "one"},
        {"generation": 2, "name": "kafka-g2@KAFKAOPS", "password": "two"}]
    # the previous layout's login, its password from the inventory, before its first rotation
    assert zl.kept_logins(tmp_path / "none", "kafka", 0, "legacy") == [
        {"generation": 0, "name": "kafka", "password": "legacy"}]


def _server_jaas(*generations):
    lines = "".join(f'  "user_{zl.login_name("kafka", g)}"="p{g}"\n' for g in generations)
    return f"Server {{\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n{lines}  ;\n}};\n"


def _client_jaas(generation):
    return kafka_connection.zookeeper_jaas({"zookeeper_sasl_username": zl.login_name("kafka", generation),
                                            "zookeeper_sasl_password": "p"})


def test_what_a_member_accepts_and_a_broker_logs_in_with():
    assert zl.accepted_generations("kafka", _server_jaas(0, 1)) == [0, 1]
    assert zl.client_generation("kafka", _client_jaas(2)) == 2
    assert zl.client_generation("kafka", "KafkaServer {};") is None


def _plan(tmp_path, kept, current, members, clients):
    for g in kept:
        (tmp_path / f"zookeeper-kafka-g{g}").write_text(f"p{g}")
    return rot.zookeeper_plan(
        "kafka", tmp_path, current,
        {f"zk{i}": {"accepted": zl.accepted_generations("kafka", _server_jaas(*m)) if m is not None else [],
                    "restart_pending": m is None} for i, m in enumerate(members)},
        {f"b{i}": {"generation": zl.client_generation("kafka", _client_jaas(c)) if c is not None else None,
                   "restart_pending": c is None} for i, c in enumerate(clients)})


@pytest.mark.parametrize("kept, current, members, clients, todo, old_new", [
    ([1], 1, [[1], [1]], [1, 1], list(rot.STEPS["zookeeper"]), (1, 2)),
    ([], 0, [[0], [0]], [0, 0], list(rot.STEPS["zookeeper"]), (0, 1)),  # the previous layout's login
    ([1, 2], 1, [[1, 2], [1]], [1, 1], ["both-accepted", "switched", "old-dropped"], (1, 2)),
    ([1, 2], 1, [[1, 2], None], [1, 1], ["both-accepted", "switched", "old-dropped"], (1, 2)),
    ([1, 2], 1, [[1, 2], [1, 2]], [1, 1], ["switched", "old-dropped"], (1, 2)),
    ([1, 2], 2, [[1, 2], [1, 2]], [2, 1], ["switched", "old-dropped"], (1, 2)),  # the brokers' roll cut off
    ([1, 2], 2, [[1, 2], [1, 2]], [2, None], ["switched", "old-dropped"], (1, 2)),
    ([1, 2], 2, [[1, 2], [1, 2]], [2, 2], ["old-dropped"], (1, 2)),
    ([2], 2, [[2], [1, 2]], [2, 2], ["old-dropped"], (1, 2)),
    ([2], 2, [[2], [2]], [2, 2], list(rot.STEPS["zookeeper"]), (2, 3)),
])
def test_the_zookeeper_login_moves_to_its_next_generation_step_by_step(tmp_path, kept, current, members, clients,
                                                                       todo, old_new):
    planned = _plan(tmp_path, kept, current, members, clients)
    assert planned["refusals"] == [] and planned["todo"] == todo and (planned["old"], planned["new"]) == old_new


@pytest.mark.parametrize("kept, current, members, clients", [
    ([1, 2], 2, [[1, 2], [1]], [1, 1]),  # the kit on a login a member does not accept
    ([1, 2], 1, [[1, 2], [1, 2]], [2, 1]),  # a broker on the next login before the kit switched
    ([1], 1, [[1], [1]], [3, 1]),  # a broker on a login the kit does not keep
    ([1, 3], 1, [[1], [1]], [1, 1]),  # a generation skipped
])
def test_a_zookeeper_state_no_step_leads_to_is_refused(tmp_path, kept, current, members, clients):
    refusals = _plan(tmp_path, kept, current, members, clients)["refusals"]
    assert [r["rule"] for r in refusals] == ["rotation-inconsistent-state"]
