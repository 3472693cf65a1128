"""docs/runbooks/replace-controller.md's procedure on the KRaft lab (make test-kraft). A voter loses its disk (its
metadata dir replaced by an empty one) while the cluster keeps changing (a topic is created); it comes back with a
copy of the leader's metadata log, its own node id and a new directory id, started by the deploy (which refuses
to format it: kraft_deploy.py). It is a caught-up voter again, and when the leader then restarts, a quorum with it
elects a leader that still has the topic."""

import os
import time
import uuid

from confluent_kafka.admin import AdminClient, NewTopic
from lab_hosts import quorum, ssh_run

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft
from lab.cluster_settings import kafka_config
from lab.machines import ssh

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
