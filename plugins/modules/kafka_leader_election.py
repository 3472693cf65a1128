#!/usr/bin/python
"""Ansible module: preferred leader election for all or given partitions."""

DOCUMENTATION = r"""
module: kafka_leader_election
short_description: Move partition leadership back to each partition's preferred replica
version_added: 0.10.0
description:
  - Plans an election for every partition (or those in I(partitions)) whose leader is not its
    preferred (first) replica while that replica is in sync, runs it with the AdminClient, and reads
    the leaders again. C(changed) is true only when a leader moved.
requirements:
  - confluent-kafka and kazoo on the host that runs the module (usually the controller)
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.attributes
attributes:
  check_mode:
    support: full
    details: Returns the partitions an election would be asked for; elects nothing.
  diff_mode:
    support: none
options:
  partitions:
    description: Partitions as C(topic-N) names; all partitions when omitted.
    type: list
    elements: str
seealso:
  - module: kafkaops.toolkit.kafka_cluster_info
    description: Which partitions are led by a replica that is not their preferred one.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Give every partition its preferred leader back
  kafkaops.toolkit.kafka_leader_election:
    bootstrap_servers: kafka1:9092
    zookeeper_connect: zk1:2181/kafka
  delegate_to: localhost

- name: Only the partitions of the orders topic that broker 3 prefers to lead
  kafkaops.toolkit.kafka_leader_election:
    partitions: [orders-2, orders-5]
  delegate_to: localhost
"""

RETURN = r"""
plan:
  description: Partitions an election was asked for (or would be, in check mode).
  returned: always
  type: list
  elements: str
  sample: [orders-2, orders-5]
moved:
  description: Partitions whose leader changed.
  returned: when an election ran (not in check mode, a plan to carry out)
  type: list
  elements: str
  sample: [orders-2, orders-5]
errors:
  description: Partition name -> error, for the elections that failed.
  returned: when an election ran (not in check mode, a plan to carry out)
  type: dict
  sample: {}
not_preferred:
  description: Partitions still not led by their preferred replica afterwards.
  returned: always
  type: list
  elements: str
  sample: []
"""

import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_state
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    CONNECTION_ARGS,
    admin_client,
    describe_error,
    read_cluster_state,
)


def _leaders(state):
    return {f"{p['topic']}-{p['partition']}": p["leader"] for p in state["partitions"]}


def elect(params, plan):
    """Run the election for the plan; return partition name -> error text for the ones that failed."""
    from confluent_kafka import ElectionType, KafkaError, TopicPartition
    targets = []
    for name in plan:
        topic, _, partition = name.rpartition("-")
        targets.append(TopicPartition(topic, int(partition)))
    admin = admin_client(params)  # keep a reference: a collected client cancels its requests
    future = admin.elect_leaders(ElectionType.PREFERRED, targets)
    results = future.result(timeout=params["request_timeout"] * 2)
    return {f"{tp.topic}-{tp.partition}": str(err) for tp, err in results.items()
            if err is not None and _error_code(err) != KafkaError.ELECTION_NOT_NEEDED}


def _error_code(err):
    """A partition's result is documented as a KafkaException; confluent-kafka 2.16 gives a KafkaError."""
    return err.code() if hasattr(err, "code") else err.args[0].code()


def read_after_election(params, elected):
    """The state once the brokers' metadata shows the elected partitions led by their preferred replica
    (it lags the controller briefly), or as it is after request_timeout seconds."""
    deadline = time.monotonic() + params["request_timeout"]
    while True:
        state = read_cluster_state(params)
        pending = set(elected) & set(kafka_state.not_preferred_leader(state))
        if not pending or time.monotonic() > deadline:
            return state
        time.sleep(0.5)


def main():
    module = AnsibleModule(argument_spec=dict(CONNECTION_ARGS, partitions=dict(type="list", elements="str")),
                           supports_check_mode=True)
    try:
        before = read_cluster_state(module.params)
        plan = kafka_state.preferred_election_plan(before, module.params["partitions"])
        if module.check_mode or not plan:
            module.exit_json(changed=bool(plan), plan=plan,
                             not_preferred=kafka_state.not_preferred_leader(before))
        errors = elect(module.params, plan)
        after = read_after_election(module.params, [name for name in plan if name not in errors])
    except Exception as exc:
        module.fail_json(msg=f"preferred leader election failed: {describe_error(exc)}")
    old, new = _leaders(before), _leaders(after)
    moved = [name for name in plan if new.get(name) != old[name]]
    result = dict(changed=bool(moved), plan=plan, moved=moved, errors=errors,
                  not_preferred=kafka_state.not_preferred_leader(after))
    if errors:
        module.fail_json(msg=f"preferred leader election failed for {len(errors)} partition(s): {errors}",
                         **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
