#!/usr/bin/python
"""Ansible module: write an offset snapshot of the cluster (the recovery validator's input)."""

DOCUMENTATION = r"""
module: kafka_offsets_snapshot
short_description: Snapshot every partition's offsets and replicas and every group's committed offsets
version_added: 0.10.0
description:
  - Writes, on the host it runs on (the controller), a folder C(<snapshot_dir>/<cluster id>/<UTC time>/)
    with C(cluster.json), C(partitions.jsonl) (log start offset, high watermark, leader, replicas, ISR of
    every partition) and C(group_offsets.jsonl) (committed offsets of every consumer group), in the
    format spark/README.md describes; the recovery validator compares a later state against it.
requirements:
  - confluent-kafka and kazoo on the host that runs the module (usually the controller)
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.attributes
attributes:
  check_mode:
    support: partial
    details: Reads the cluster and returns the folder it would write and the counts; writes nothing and reports
      no change.
  diff_mode:
    support: none
options:
  snapshot_dir:
    description: Folder under which snapshots are written.
    type: path
    required: true
seealso:
  - module: kafkaops.toolkit.kafka_cluster_info
    description: The same partitions and replicas, without offsets, in the task's result.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Snapshot the offsets before maintenance
  kafkaops.toolkit.kafka_offsets_snapshot:
    snapshot_dir: /var/tmp/kafka-snapshots
    bootstrap_servers: kafka1:9092
    zookeeper_connect: zk1:2181/kafka
  delegate_to: localhost
  register: snapshot
"""

RETURN = r"""
path:
  description: The snapshot folder (written, or that would be in check mode).
  returned: always
  type: str
  sample: /var/tmp/kafka-snapshots/aBcD1234QwErTy5678ZxCv/20261124T031502Z
partitions:
  description: Partitions recorded.
  returned: always
  type: int
  sample: 56
group_offsets:
  description: Committed group offsets recorded (one per group and partition).
  returned: always
  type: int
  sample: 12
"""

import datetime
import json
import os
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_snapshot
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    CONNECTION_ARGS,
    admin_client,
    describe_error,
    is_permanent,
    read_cluster_state,
)

RETRY_S = 60


def read_offsets(admin, partitions, timeout):
    """(log start offsets, high watermarks), each {(topic, partition): offset}."""
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import OffsetSpec
    result = []
    for spec in (OffsetSpec.earliest(), OffsetSpec.latest()):
        request = {TopicPartition(p["topic"], p["partition"]): spec for p in partitions}
        answers = admin.list_offsets(request, request_timeout=timeout) if request else {}
        result.append({(tp.topic, tp.partition): f.result(timeout).offset for tp, f in answers.items()})
    return result


def read_committed(admin, timeout):
    """{group: {(topic, partition): committed offset}} for every consumer group."""
    from confluent_kafka import ConsumerGroupTopicPartitions
    groups = [g.group_id for g in admin.list_consumer_groups(request_timeout=timeout).result(timeout).valid]
    committed = {}
    for group in groups:  # the client asks one group per request
        future = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group]
        answer = future.result(timeout)
        committed[group] = {(tp.topic, tp.partition): tp.offset for tp in answer.topic_partitions}
    return committed


def main():
    module = AnsibleModule(argument_spec=dict(CONNECTION_ARGS, snapshot_dir=dict(type="path", required=True)),
                           supports_check_mode=True)
    timeout = module.params["request_timeout"]
    # Right after leaders moved (a roll's preferred leader election) a new leader answers OFFSET_NOT_AVAILABLE
    # until its high watermark caught up (KIP-207): such errors are read again, for up to RETRY_S seconds.
    deadline = time.monotonic() + RETRY_S
    while True:
        taken_at = datetime.datetime.now(datetime.timezone.utc)
        try:
            state = read_cluster_state(module.params)
            admin = admin_client(module.params)
            log_starts, high_watermarks = read_offsets(admin, state["partitions"], timeout)
            partitions = kafka_snapshot.partition_rows(state["partitions"], log_starts, high_watermarks)
            groups = kafka_snapshot.group_rows(read_committed(admin, timeout))
            break
        except Exception as exc:
            if is_permanent(exc) or time.monotonic() > deadline:
                module.fail_json(msg=f"cannot read the cluster's offsets: {describe_error(exc)}")
            time.sleep(1)
    name = kafka_snapshot.snapshot_path(state["cluster_id"], taken_at)
    path = os.path.join(module.params["snapshot_dir"], name)
    if not module.check_mode:
        os.makedirs(path)
        cluster = kafka_snapshot.cluster_document(state, taken_at)
        files = {"cluster.json": json.dumps(cluster, indent=2) + "\n",
                 "partitions.jsonl": kafka_snapshot.jsonl(partitions),
                 "group_offsets.jsonl": kafka_snapshot.jsonl(groups)}
        for name, text in files.items():
            with open(os.path.join(path, name), "w") as handle:
                handle.write(text)
    module.exit_json(changed=not module.check_mode, path=path, partitions=len(partitions),
                     group_offsets=len(groups))


if __name__ == "__main__":
    main()
