"""A KRaft voter that lost its disk or its host, on the KRaft lab (make test-kraft: a dynamic quorum on 4.4;
make test-kraft-3.9: a static one).

Static quorum: docs/runbooks/replace-controller.md's manual procedure. A voter loses its disk (its metadata dir
replaced by an empty one) while the cluster keeps changing (a topic is created); it comes back with a copy of the
leader's metadata log, its own node id and a new directory id, started by the deploy (which refuses to format it:
kraft_deploy.py). It is a caught-up voter again, and when the leader then restarts, a quorum with it elects a leader
that still has the topic; replace_controller.yml refuses the static quorum, changing nothing.

Dynamic quorum: replace_controller.yml, under an acks=all producer: a voter whose metadata dir was wiped comes back
on its host with a new directory id; a voter whose host lost power is replaced by the spare host; a rerun has nothing
left but the wait; its refusals change nothing."""

import os
import time
import uuid

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from lab_hosts import quorum, ssh_run
from unchanged import lab_state, services_and_files

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft, kafka_versions
from lab import config, faults, machines
from lab.cli import up
from lab.cluster_settings import kafka_config
from lab.machines import ssh
from lab.monitoring import SILENCE_GRACE_S, alertmanager
from lab.receiver import parse_time
from lab.traffic import AckedProducer, read_all

DYNAMIC = kafka_versions.facts(config.KAFKA_VERSION)["quorum"] == "dynamic"
static_only = pytest.mark.skipif(DYNAMIC, reason=f"{config.KAFKA_VERSION} deploys a dynamic quorum")
dynamic_only = pytest.mark.skipif(not DYNAMIC, reason=f"{config.KAFKA_VERSION} deploys a static quorum")

META = "/var/lib/kafka-controller/metadata"
STORAGE_TOOL = "java -Xmx128m -cp '/opt/kafka/libs/*' kafka.tools.StorageTool"


def _node_id(host):
    return 9000 + int(host.name.removeprefix("ctrl"))


def _status(host):
    return {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in quorum(host, "status").splitlines()
                                              if ":" in line)}


def _wait_caught_up(controllers, node_id, timeout=180):
    deadline = time.monotonic() + timeout
    while True:
        try:
            waiting = kafka_kraft.controller_rejoined(kafka_kraft.parse_quorum_replication(quorum(controllers[0])),
                                                     node_id, 10)
        except Exception as exc:  # a controller restarting: asked again
            waiting = str(exc)
        if waiting is None:
            return
        assert time.monotonic() < deadline, f"controller {node_id} is not a caught-up voter: {waiting}"
        time.sleep(3)


def _copy(source, path, target, tmp_path):
    local = tmp_path / os.path.basename(path)
    with ssh(source) as client, client.open_sftp() as sftp:
        sftp.get(path, str(local))
    with ssh(target) as client, client.open_sftp() as sftp:
        sftp.put(str(local), path)


@static_only
def test_a_voter_that_lost_its_disk_comes_back_with_the_leaders_log(run_playbook, controllers, tmp_path):
    leader_id = int(_status(controllers[0])["LeaderId"])
    leader = next(h for h in controllers if _node_id(h) == leader_id)
    lost = next(h for h in controllers if h is not leader)
    ssh_run(lost, f"systemctl stop kafka-controller && mv {META} /root/lost-metadata"
                  f" && install -d -o kafka -g kafka -m 0750 {META}")
    try:
        admin = AdminClient(kafka_config())
        topic = f"while-away-{uuid.uuid4().hex[:8]}"
        admin.create_topics([NewTopic(topic)])[topic].result(30)  # metadata the lost voter never had

        # the runbook's steps 3-5: the leader's log, the lost voter's node id, a new directory id, the deploy
        # tar exits 1 when a file grew while it read it (the leader appends): the archive holds what it read
        ssh_run(leader, f"tar -C {META} --exclude='*.part' --warning=no-file-changed -czSf /tmp/metadata.tgz"
                        " __cluster_metadata-0 meta.properties; [ $? -le 1 ]")
        _copy(leader, "/tmp/metadata.tgz", lost, tmp_path)
        ssh_run(lost, f"tar -C {META} -xzf /tmp/metadata.tgz && sed -i -e 's/^node.id=.*/node.id={_node_id(lost)}/'"
                      f" -e \"s/^directory.id=.*/directory.id=$({STORAGE_TOOL} random-uuid)/\" {META}/meta.properties"
                      f" && chown -R kafka:kafka {META} && rm /tmp/metadata.tgz")
        deploy = run_playbook("kafka_controllers.yml", "--limit", lost.name)
        assert deploy.returncode == 0, deploy.output[-3000:]
        _wait_caught_up(controllers, _node_id(lost))
        meta = ssh_run(lost, f"cat {META}/meta.properties")
        assert f"node.id={_node_id(lost)}" in meta
    except Exception:
        ssh_run(lost, f"systemctl stop kafka-controller; rm -rf {META} && mv /root/lost-metadata {META}"
                      " && systemctl start kafka-controller")
        raise
    ssh_run(lost, "rm -rf /root/lost-metadata")

    # It votes again: with the leader restarted, the quorum elects a leader, and the topic is there.
    ssh_run(leader, "systemctl restart kafka-controller")
    for host in controllers:
        _wait_caught_up(controllers, _node_id(host))
    assert topic in AdminClient(kafka_config()).list_topics(timeout=30).topics
    admin.delete_topics([topic])[topic].result(30)


@static_only
def test_replace_controller_refuses_a_static_quorum_and_changes_nothing(run_playbook, settings, controllers):
    before = lab_state(settings)
    run = run_playbook("replace_controller.yml", "-e", f"failed_host={controllers[2].name}")
    assert run.returncode != 0
    assert "[kraft-replace-static] the quorum's voters [9001, 9002, 9003] are static" in run.output, run.output[-3000:]
    assert "docs/runbooks/replace-controller.md" in run.output
    assert lab_state(settings) == before


def _voters(controller):
    return {r["node_id"]: r for r in kafka_kraft.parse_quorum_replication(quorum(controller))
            if r["status"] in kafka_kraft.VOTER}


def _follower(controllers):
    leader_id = int(_status(controllers[0])["LeaderId"])
    return next(h for h in controllers if _node_id(h) != leader_id)


@dynamic_only
def test_a_wiped_voter_is_replaced_on_its_host_under_load(run_playbook, settings, controllers, bootstrap_servers,
                                                           topic):
    lost = _follower(controllers)
    reader = next(h for h in controllers if h is not lost)
    old = _voters(reader)[_node_id(lost)]["directory_id"]
    producer = AckedProducer(bootstrap_servers, topic, rate=300)
    producer.start()
    try:
        ssh_run(lost, f"systemctl stop kafka-controller && rm -rf {META}"
                      f" && install -d -o kafka -g kafka -m 0750 {META}")
        admin = AdminClient(kafka_config())
        while_away = f"while-away-{uuid.uuid4().hex[:8]}"
        admin.create_topics([NewTopic(while_away)])[while_away].result(30)  # metadata the lost voter never had

        before = services_and_files(settings)
        planned = run_playbook("replace_controller.yml", "-e", f"failed_host={lost.name}", "--check")
        assert planned.returncode == 0, planned.output[-3000:]
        assert f"remove: voter {_node_id(lost)} (directory {old})" in planned.output
        assert f"format: the metadata dir of {lost.name}" in planned.output and "add: " in planned.output
        assert services_and_files(settings) == before

        started = time.time()
        run = run_playbook("replace_controller.yml", "-e", f"failed_host={lost.name}")
        assert run.returncode == 0, run.output[-3000:]
        assert "nothing to change in the inventory" in run.output
        # planned work: its alerts were silenced in Alertmanager, and the silences end a grace after the run
        silences = [silence for silence in alertmanager("/api/v2/silences")
                    if silence["comment"] == f"planned: controller {_node_id(lost)} replaced on {lost.name} "
                                             "(replace_controller.yml)" and parse_time(silence["startsAt"]) > started]
        assert silences and all(parse_time(silence["endsAt"]) < time.time() + SILENCE_GRACE_S for silence in silences)
        voters = _voters(reader)
        assert sorted(voters) == [9001, 9002, 9003]
        assert voters[_node_id(lost)]["directory_id"] not in (old, kafka_kraft.STATIC_DIRECTORY_ID)
        assert f"directory.id={voters[_node_id(lost)]['directory_id']}" in ssh_run(lost, f"cat {META}/meta.properties")

        rerun = run_playbook("replace_controller.yml", "-e", f"failed_host={lost.name}")
        assert rerun.returncode == 0, rerun.output[-3000:]
        assert "remove: " not in rerun.output and "add: " not in rerun.output and "wait: until voter" in rerun.output
    finally:
        unreported = producer.stop()
    assert unreported == 0 and producer.failed == []
    assert producer.acked <= read_all(bootstrap_servers, topic, len(producer.acked))
    assert while_away in AdminClient(kafka_config()).list_topics(timeout=30).topics
    admin.delete_topics([while_away])[while_away].result(30)


@dynamic_only
def test_a_voter_whose_host_lost_power_is_replaced_by_another_host(run_playbook, settings, controllers):
    lost, spare = _follower(controllers), config.host("kafka4")
    reader = next(h for h in controllers if h is not lost)
    args = ("-e", f"failed_host={lost.name}", "-e", "replacement_host=kafka4")

    # while the failed host still runs its controller: refused, nothing changed
    before = services_and_files(settings)
    refused = run_playbook("replace_controller.yml", *args)
    assert refused.returncode != 0
    assert f"[kraft-replace-failed-running] the failed host of node {_node_id(lost)} still runs its controller" \
        in refused.output, refused.output[-3000:]
    assert services_and_files(settings) == before

    machines.power_off(lost)
    try:
        run = run_playbook("replace_controller.yml", *args)
        assert run.returncode == 0, run.output[-3000:]
        assert f"COMMIT THIS INVENTORY CHANGE: in group kafka_controller, replace {lost.name} by kafka4" in run.output
        assert sorted(_voters(reader)) == [9001, 9002, 9003]
        assert f"{spare.fqdn}:9090" in quorum(reader, "status")  # voter 9003's endpoint is the spare's name
    finally:
        # the lab as it was: the spare bare again, the failed host back on its old disk, made the voter again
        ssh_run(spare, "systemctl disable --now kafka-controller 2>/dev/null; rm -rf /etc/kafka-controller"
                       " /etc/systemd/system/kafka-controller.service /var/lib/kafka-controller"
                       " && systemctl daemon-reload")
        up(config.load_hosts())
        back = run_playbook("replace_controller.yml", "-e", f"failed_host={lost.name}")
        assert back.returncode == 0, back.output[-3000:]
    assert f"{spare.fqdn}:9090" not in quorum(reader, "status")


@dynamic_only
def test_replacement_refusals_change_nothing(run_playbook, settings, controllers):
    """A spare whose metadata dir holds another cluster's, then a quorum left with no caught-up majority (a second
    voter paused: the quorum may not even answer): each run stops before any change."""
    lost = _follower(controllers)
    other = next(h for h in controllers if h is not lost and _node_id(h) != int(_status(controllers[0])["LeaderId"]))
    spare = config.host("kafka4")
    args = ("-e", f"failed_host={lost.name}", "-e", "replacement_host=kafka4")

    def others():  # every host but the one the test powers off and boots again
        return {host: state for host, state in services_and_files(settings).items() if host != lost.name}
    before = others()
    machines.power_off(lost)
    try:
        ssh_run(spare, f"mkdir -p {META} && printf 'version=1\\nnode.id={_node_id(lost)}\\ncluster.id=other\\n' "
                       f"> {META}/meta.properties")
        run = run_playbook("replace_controller.yml", *args)
        assert run.returncode != 0
        assert "[kraft-replace-other-cluster] the replacement's metadata dir holds cluster other" in run.output, \
            run.output[-3000:]
        assert ssh_run(spare, "ls /etc/kafka-controller 2>&1 || true").count("No such") == 1
        ssh_run(spare, "rm -rf /var/lib/kafka-controller")

        faults.pause(other, "kafka-controller")
        try:
            run = run_playbook("replace_controller.yml", *args)
        finally:
            faults.resume(other, "kafka-controller")
        assert run.returncode != 0
        assert "[kraft-replace-majority]" in run.output or "cannot read the KRaft quorum" in run.output, \
            run.output[-3000:]
        assert ssh_run(spare, "ls /etc/kafka-controller /var/lib/kafka-controller 2>&1 || true").count("No such") == 2
    finally:
        ssh_run(spare, "rm -rf /var/lib/kafka-controller")
        up(config.load_hosts())
    for host in controllers:
        _wait_caught_up(controllers, _node_id(host))
    assert others() == before
