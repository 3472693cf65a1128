"""Every refusal of rebuild_broker.yml and replace_broker.yml on the lab (make test-long): the cause is made real,
the run is refused with the rule's message, and it changes nothing (unchanged.lab_state: every host's services,
config files and data dirs, the registrations and dynamic configs in ZooKeeper, the throttles)."""

import base64
import os
import signal
import subprocess
import time
import uuid

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from lab_hosts import service_starts, ssh_run
from test_recovery_playbooks import DATA_DIR, MIB, REPLACE, _conn, _data_listing, _wait_healthy
from throttles import throttles_anywhere
from unchanged import lab_state

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_versions
from lab import config, faults
from lab.cluster_settings import kafka_config
from lab.traffic import delete_topic, fill

INVENTORY = str(config.REPO / "inventories" / "lab")


def _refused(run_playbook, settings, playbook, *args):
    """Run a playbook that must be refused; its output, once it is shown that nothing changed."""
    before = lab_state(settings)
    proc = run_playbook(playbook, *args)
    assert proc.returncode != 0
    assert lab_state(settings) == before
    return proc.output


def _new_topic(bootstrap_servers, assignment, config=None):
    """A topic with the given replica assignment (a list of replica lists), known to every live broker."""
    admin = AdminClient(kafka_config(bootstrap_servers))
    name = f"refusal-{uuid.uuid4().hex[:8]}"
    admin.create_topics([NewTopic(name, num_partitions=len(assignment), replica_assignment=assignment,
                                  config=config or {})])[name].result(30)
    time.sleep(2)  # let every broker learn it
    return name


@pytest.fixture
def topics(bootstrap_servers):
    """Make topics for one test; deleted after it."""
    made = []
    yield lambda assignment, config=None: made.append(_new_topic(bootstrap_servers, assignment, config)) or made[-1]
    for name in made:
        delete_topic(bootstrap_servers, name)


def _wait_unregistered(run_module, conn, broker_id):
    deadline = time.monotonic() + 60
    while str(broker_id) in run_module("kafka_cluster_info", **conn)["brokers"]:
        assert time.monotonic() < deadline, f"broker {broker_id} still registered after 60 s"
        time.sleep(2)


UNCLEAN = {"unclean.leader.election.enable": "true"}


# --- rebuild_broker.yml, every broker up; rebuilding kafka3 (broker 3)

def test_rebuild_refuses_while_unclean_election_is_on(run_playbook, settings, topics):
    name = topics([[1, 2, 3]], UNCLEAN)
    output = _refused(run_playbook, settings, "rebuild_broker.yml", "-e", "broker_host=kafka3")
    assert f"Refusing to rebuild broker 3 (kafka3): unclean.leader.election.enable is true on topic {name}" in output


def test_rebuild_refuses_to_empty_the_only_in_sync_replica(run_playbook, settings, topics):
    name = topics([[3]])
    output = _refused(run_playbook, settings, "rebuild_broker.yml", "-e", "broker_host=kafka3")
    assert f"no other live broker is in the ISR of 1 partition(s): {name}[0]" in output


def test_rebuild_refuses_a_stop_that_leaves_partitions_below_min_isr(
        run_playbook, run_module, settings, bootstrap_servers, zookeeper_connect, topics):
    conn = _conn(bootstrap_servers, zookeeper_connect)
    name = topics([[1, 2, 3]])
    ssh_run(config.host("kafka1"), "systemctl stop kafka")
    try:
        _wait_unregistered(run_module, conn, 1)
        output = _refused(run_playbook, settings, "rebuild_broker.yml", "-e", "broker_host=kafka3")
        assert "stopping it would leave" in output and "below min.insync.replicas" in output
        assert f"{name}[0]" in output
    finally:
        ssh_run(config.host("kafka1"), "systemctl start kafka")
        _wait_healthy(run_module, conn, 1)



def test_rebuild_stops_the_broker_only_through_the_gate_right_before_the_stop(
        run_module, playbook_at, bootstrap_servers, zookeeper_connect, topics):
    """The plan found the stop safe. Then, the run frozen (SIGSTOP) as it shows the plan, kafka1 stops and
    broker 1 leaves the ISR of a topic on brokers 2, 1 and 3: the gate right before the stop refuses, kafka3
    keeps running on its data, and the throttle the run set after the plan is removed."""
    conn = _conn(bootstrap_servers, zookeeper_connect)
    name = topics([[2, 1, 3]])
    kafka1, kafka3 = config.host("kafka1"), config.host("kafka3")
    before = (service_starts([kafka3], "kafka"), _data_listing(kafka3))
    run, log = playbook_at("rebuild_broker.yml", ["-e", "broker_host=kafka3", "-e", "rolling_restart_stop_timeout=10"],
                           "TASK [Show the plan]")
    os.killpg(run.pid, signal.SIGSTOP)
    try:
        try:
            ssh_run(kafka1, "systemctl stop kafka")  # a controlled shutdown: it leaves every ISR
            deadline = time.monotonic() + 60
            while _isr(run_module, conn, name) != [2, 3]:
                assert time.monotonic() < deadline, "broker 1 still in the ISR 60 s after it stopped"
                time.sleep(2)
        finally:
            os.killpg(run.pid, signal.SIGCONT)
            run.wait()
        output = " ".join(log.read_text().split())
        assert run.returncode != 0
        assert "refusing to stop broker 3:" in output and f"{name}[0]" in output
        assert (service_starts([kafka3], "kafka"), _data_listing(kafka3)) == before
        assert throttles_anywhere(bootstrap_servers) == {}
    finally:
        ssh_run(kafka1, "systemctl start kafka")
        _wait_healthy(run_module, conn, 1)


def _isr(run_module, conn, topic):
    """The ISR of the topic's partition 0, or None while the cluster cannot be read (a broker stops)."""
    info = run_module("kafka_cluster_info", **conn)
    if info["failed"]:
        return None
    return next(sorted(p["isr"]) for p in info["partitions"] if p["topic"] == topic and p["partition"] == 0)


def test_rebuild_refuses_log_dirs_of_another_broker(run_playbook, settings, tmp_path):
    # The inventory says kafka3 is broker 1 (an operator's swapped ids); its disk holds broker 3's data.
    overlay = tmp_path / "swapped.yml"
    overlay.write_text("all:\n  hosts:\n    kafka1: {kafka_broker_id: 3}\n    kafka3: {kafka_broker_id: 1}\n")
    output = _refused(run_playbook, settings, "rebuild_broker.yml", "-i", INVENTORY, "-i", str(overlay),
                      "-e", "broker_host=kafka3")
    assert f"Refusing to rebuild broker 1 (kafka3): {DATA_DIR} holds the data of broker.id 3, not 1" in output


def test_rebuild_refuses_a_disk_that_cannot_be_read(run_playbook, run_module, settings, bootstrap_servers,
                                                    zookeeper_connect):
    kafka3 = config.host("kafka3")
    ssh_run(kafka3, "systemctl stop kafka")  # the broker a failed disk brought down
    faults.unplug(kafka3)
    try:
        output = _refused(run_playbook, settings, "rebuild_broker.yml", "-e", "broker_host=kafka3")
        assert f"Refusing to rebuild broker 3 (kafka3): {DATA_DIR} cannot be read: Input/output error" in output
    finally:
        faults.repair(kafka3)  # a fresh mount, and the host booted again: its broker starts
        _wait_healthy(run_module, _conn(bootstrap_servers, zookeeper_connect), 3)


def test_rebuild_refuses_to_keep_old_data_without_room_for_a_copy(
        run_playbook, settings, bootstrap_servers, topic):
    kafka3 = config.host("kafka3")
    fill(bootstrap_servers, topic, 64 * MIB)
    faults.fill(kafka3, leave=16 * MIB)  # room for Kafka's own checkpoints, not for 64 MiB more
    try:
        output = _refused(run_playbook, settings, "rebuild_broker.yml", "-e", "broker_host=kafka3",
                          "-e", "rebuild_keep_old_data=true")
        assert "Refusing: rebuild_keep_old_data=true keeps the old data on the disk, and the rebuild needs" in output
    finally:
        faults.unfill(kafka3)


# --- replace_broker.yml, kafka4 taking over broker 2

def test_replace_refuses_a_broker_that_is_still_registered(run_playbook, settings):
    output = _refused(run_playbook, settings, "replace_broker.yml", *REPLACE)
    assert "Refusing to replace broker 2: it is still registered live" in output
    assert "fence_failed_host=true" in output


def test_replace_refuses_to_fence_a_host_that_does_not_answer(run_playbook, settings):
    kafka2 = config.host("kafka2")
    before = lab_state(settings)
    faults.refuse_ssh(kafka2)  # a hung host whose broker still serves
    try:
        proc = run_playbook("replace_broker.yml", *REPLACE, "-e", "fence_failed_host=true")
    finally:
        faults.connect(kafka2)
    assert proc.returncode != 0
    assert "Refusing: fence_failed_host=true, but kafka2 does not answer over SSH" in proc.output
    assert lab_state(settings) == before


@pytest.fixture(scope="class")
def broker2_down(run_module, bootstrap_servers, zookeeper_connect):
    """Broker 2 stopped, and a partition whose only replica it is (offline now); its name."""
    conn = _conn(bootstrap_servers, zookeeper_connect)
    only_on_2 = _new_topic(bootstrap_servers, [[2]])
    ssh_run(config.host("kafka2"), "systemctl stop kafka")
    try:
        _wait_unregistered(run_module, conn, 2)
        yield only_on_2
    finally:
        ssh_run(config.host("kafka2"), "systemctl start kafka")
        _wait_healthy(run_module, conn, 2)
        delete_topic(bootstrap_servers, only_on_2)


@pytest.mark.usefixtures("broker2_down")
class TestReplaceWhileBroker2IsDown:
    """Every run here is also refused for the offline partition (the offline-partition rule's own test
    shows only that)."""

    def test_refuses_when_the_only_in_sync_copy_was_on_the_failed_broker(self, run_playbook, settings,
                                                                         broker2_down):
        output = _refused(run_playbook, settings, "replace_broker.yml", *REPLACE)
        assert f"no other live broker is in the ISR of 1 partition(s): {broker2_down}[0]" in output
        assert "-e accept_offline_partitions=true" in output

    def test_refuses_while_unclean_election_is_on(self, run_playbook, settings, topics):
        name = topics([[1, 3]], UNCLEAN)
        output = _refused(run_playbook, settings, "replace_broker.yml", *REPLACE)
        assert f"Refusing to replace broker 2: unclean.leader.election.enable is true on topic {name}" in output

    def test_refuses_a_replacement_that_runs_a_broker(self, run_playbook, settings):
        kafka4 = config.host("kafka4")
        unit = "/etc/systemd/system/kafka.service"  # something runs as kafka.service there
        ssh_run(kafka4, f"printf '[Service]\\nExecStart=/bin/sleep 3600\\n' > {unit} && systemctl daemon-reload "
                        "&& systemctl start kafka")
        try:
            output = _refused(run_playbook, settings, "replace_broker.yml", *REPLACE)
        finally:
            ssh_run(kafka4, f"systemctl stop kafka; rm -f {unit}; systemctl daemon-reload")
        assert "Refusing to use kafka4 as broker 2: its kafka service is running (not registered)" in output

    def test_refuses_a_replacement_formatted_by_a_newer_kafka_storage(self, run_playbook, run_module, settings,
                                                                      bootstrap_servers, zookeeper_connect, tmp_path):
        # kafka4's log dir formatted as node 2 of this cluster by a newer release's kafka-storage (run here), as a
        # combined broker and controller: 4.x records the metadata.version only where a controller runs (a broker's
        # format is meta.properties alone, the same keys 3.9 writes: nothing tells the release that wrote it)
        lab_level, lab_name = kafka_versions.facts(config.KAFKA_VERSION)["metadata_version"]
        newer = [r for r in kafka_versions.RELEASES if kafka_versions.facts(r)["metadata_version"][0] > lab_level]
        if not newer:
            pytest.skip(f"the version table has no release newer than the lab's {config.KAFKA_VERSION}")
        level = kafka_versions.facts(newer[-1])["metadata_version"][0]
        cluster_id = run_module("kafka_cluster_info", **_conn(bootstrap_servers, zookeeper_connect))["cluster_id"]
        properties = tmp_path / "node.properties"
        properties.write_text("process.roles=broker,controller\nnode.id=2\ncontroller.listener.names=CONTROLLER\n"
                              "listeners=CONTROLLER://localhost:19090,PLAINTEXT://localhost:19092\n"
                              "controller.quorum.bootstrap.servers=localhost:19090\n"
                              f"log.dirs={tmp_path / 'data'}\n")
        subprocess.run(["java", "-cp", f"{config.kafka_libs(newer[-1])}/*", "kafka.tools.StorageTool", "format",
                        "-t", cluster_id, "-c", str(properties), "--no-initial-controllers"], check=True,
                       capture_output=True, timeout=120)
        packed = base64.b64encode(subprocess.run(["tar", "-cz", "-C", str(tmp_path / "data"), "."], check=True,
                                                 capture_output=True).stdout).decode()
        kafka4 = config.host("kafka4")
        existed = ssh_run(kafka4, f"test -d {DATA_DIR} && echo yes || true").strip() == "yes"
        ssh_run(kafka4, f"test -z \"$(ls -A {DATA_DIR} 2>/dev/null)\" && mkdir -p {DATA_DIR} && echo {packed} "
                        f"| base64 -d | tar -xz -C {DATA_DIR}")
        try:
            output = _refused(run_playbook, settings, "replace_broker.yml", *REPLACE)
        finally:
            ssh_run(kafka4, f"rm -rf {DATA_DIR}/meta.properties {DATA_DIR}/__cluster_metadata-0"
                            + ("" if existed else f" && rmdir {DATA_DIR}"))
        assert (f"{DATA_DIR} was formatted at metadata.version level {level}, above the highest Kafka "
                f"{config.KAFKA_VERSION} runs ({lab_name}, level {lab_level})") in output

    def test_refuses_without_kafka_tools_before_anything_changes(self, run_playbook, settings):
        output = _refused(run_playbook, settings, "replace_broker.yml", *REPLACE, "-e", "kafka_tools_home=")
        assert "Refusing to replace broker 2: kafka_tools_home ('') must be a Kafka distribution" in output
