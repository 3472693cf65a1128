#!/usr/bin/python
"""Ansible module: read a Kafka cluster's state (controller, live brokers, partitions, ISR counts)."""

DOCUMENTATION = r"""
module: kafka_cluster_info
short_description: Read a Kafka cluster's controller, brokers, partitions and replica health
version_added: 0.10.0
description:
  - Reads the active controller, live brokers and cluster id from ZooKeeper (on a KRaft cluster, the live brokers
    and cluster id from the brokers) and every partition's leader, replicas and ISR from the brokers
    (confluent-kafka AdminClient).
  - With I(restart_candidates), orders brokers for a rolling restart as the kit's gates do.
requirements:
  - confluent-kafka and kazoo on the host that runs the module (usually the controller)
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.attributes
  - kafkaops.toolkit.attributes.read_only
options:
  restart_candidates:
    description:
      - Broker ids to order for a rolling restart; the result's C(restart_order) lists them in the
        order to restart them now (named first, then down or lagging ones, the controller last).
    type: list
    elements: int
  restart_first:
    description: Broker ids to restart before all others, in this order.
    type: list
    elements: int
    default: []
seealso:
  - module: kafkaops.toolkit.kafka_broker_safe_to_stop
    description: Whether one broker may stop now.
  - module: kafkaops.toolkit.zookeeper_ensemble_info
    description: The ZooKeeper ensemble's state.
  - module: kafkaops.toolkit.kafka_quorum_info
    description: A KRaft cluster's metadata quorum.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Read the cluster state
  kafkaops.toolkit.kafka_cluster_info:
    bootstrap_servers: kafka1:9092,kafka2:9092
    zookeeper_connect: zk1:2181,zk2:2181,zk3:2181/kafka
  delegate_to: localhost
  register: cluster

- name: Show what an operator looks at first
  ansible.builtin.debug:
    var: cluster.summary
"""

RETURN = r"""
summary:
  description: Counts an operator looks at first.
  returned: always
  type: dict
  sample: {cluster_id: aBcD1234QwErTy5678ZxCv, controller_id: 2, live_brokers: [1, 2, 3], topics: 3, partitions: 56,
           under_replicated: 0, under_min_isr: 0, offline: 0}
controller_id:
  description: The active controller's broker id (null on a KRaft cluster, whose controller is no broker).
  returned: always
  type: int
  sample: 2
cluster_id:
  description: The cluster id.
  returned: always
  type: str
  sample: aBcD1234QwErTy5678ZxCv
brokers:
  description: Live brokers by id, with the host and port they registered and their advertised endpoints.
  returned: always
  type: dict
  sample:
    "1": {host: kafka1.example.com, port: 9093, endpoints: ["CLIENT://kafka1.example.com:9093",
                                                            "BROKER://kafka1.example.com:9094"]}
partitions:
  description: Every partition with topic, partition, leader, replicas and isr.
  returned: always
  type: list
  elements: dict
  sample: [{topic: orders, partition: 0, leader: 1, replicas: [1, 2, 3], isr: [1, 2, 3]}]
under_replicated:
  description: Partitions (C(topic-N)) with fewer in-sync replicas than replicas.
  returned: always
  type: list
  elements: str
  sample: [orders-2]
under_min_isr:
  description: Partitions with fewer in-sync replicas than min.insync.replicas.
  returned: always
  type: list
  elements: str
  sample: []
offline:
  description: Partitions without a live leader.
  returned: always
  type: list
  elements: str
  sample: []
unclean_leader_election:
  description: Where unclean.leader.election.enable is true, as C(topic T) / C(broker B) (live brokers).
  returned: always
  type: list
  elements: str
  sample: [topic scratch]
restart_order:
  description: I(restart_candidates) in the order to restart them, given the cluster as it is now.
  returned: when restart_candidates is given
  type: list
  elements: int
  sample: [3, 1, 2]
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_state
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    CONNECTION_ARGS,
    describe_error,
    read_cluster_state,
)


def main():
    module = AnsibleModule(argument_spec=dict(CONNECTION_ARGS,
                                              restart_candidates=dict(type="list", elements="int"),
                                              restart_first=dict(type="list", elements="int", default=[])),
                           supports_check_mode=True)
    try:
        state = read_cluster_state(module.params)
    except Exception as exc:  # any client error: say what to check
        module.fail_json(msg=f"cannot read the cluster state from {module.params['bootstrap_servers']} / "
                             f"{module.params['zookeeper_connect']}: {describe_error(exc)}. Check that brokers and "
                             "ZooKeeper are reachable from the controller.")
    candidates = module.params["restart_candidates"]
    module.exit_json(
        changed=False,
        restart_order=(None if candidates is None
                       else kafka_state.restart_plan(state, candidates, module.params["restart_first"])),
        summary=kafka_state.summary(state),
        controller_id=state["controller_id"],
        cluster_id=state["cluster_id"],
        brokers=state["brokers"],
        partitions=state["partitions"],
        under_replicated=kafka_state.under_replicated(state),
        under_min_isr=kafka_state.under_min_isr(state),
        offline=kafka_state.offline(state),
        unclean_leader_election=state.get("unclean_election", []),
    )


if __name__ == "__main__":
    main()
