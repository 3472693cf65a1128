#!/usr/bin/python
"""Ansible module: read a Kafka cluster's state (controller, live brokers, partitions, ISR counts)."""

DOCUMENTATION = r"""
module: kafka_cluster_info
short_description: Read a Kafka cluster's controller, brokers, partitions and replica health
description:
  - Reads the active controller, live brokers and cluster id from ZooKeeper and every partition's
    leader, replicas and ISR from the brokers (confluent-kafka AdminClient).
  - Read-only; always reports changed=false and runs in check mode.
options:
  bootstrap_servers:
    description: Comma-separated host:port list of brokers.
    type: str
    required: true
  zookeeper_connect:
    description: ZooKeeper connect string with the cluster's chroot, e.g. C(zk1:2181,zk2:2181/kafka).
    type: str
    required: true
  request_timeout:
    description: Seconds to wait for each request.
    type: int
    default: 15
  security_protocol:
    description: Protocol used to talk to brokers.
    type: str
    default: PLAINTEXT
    choices: [PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL]
  sasl_mechanism: {description: SASL mechanism., type: str}
  sasl_username: {description: SASL user., type: str}
  sasl_password: {description: SASL password., type: str}
  ssl_ca_location: {description: CA file for TLS., type: path}
  ssl_certificate_location: {description: Client certificate for TLS., type: path}
  ssl_key_location: {description: Client key for TLS., type: path}
author: Kafka ops toolkit
"""

EXAMPLES = r"""
- name: Read the cluster state
  kafka_cluster_info:
    bootstrap_servers: kafka1:9092,kafka2:9092
    zookeeper_connect: zk1:2181,zk2:2181,zk3:2181/kafka
  delegate_to: localhost
  register: cluster
"""

RETURN = r"""
summary:
  description: Counts an operator looks at first.
  returned: always
  type: dict
  sample: {cluster_id: abc, controller_id: 2, live_brokers: [1, 2, 3], topics: 3, partitions: 56,
           under_replicated: 0, under_min_isr: 0, offline: 0}
controller_id: {description: Active controller's broker id., returned: always, type: int}
cluster_id: {description: Cluster id from ZooKeeper., returned: always, type: str}
brokers:
  description: Live brokers by id, with their registered host and port.
  returned: always
  type: dict
partitions:
  description: Every partition with topic, partition, leader, replicas and isr.
  returned: always
  type: list
under_replicated:
  description: Partitions with fewer in-sync replicas than replicas.
  returned: always
  type: list
under_min_isr:
  description: Partitions with fewer in-sync replicas than min.insync.replicas.
  returned: always
  type: list
offline: {description: Partitions without a live leader., returned: always, type: list}
"""

from ansible.module_utils import kafka_state
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.kafka_connection import CONNECTION_ARGS, read_cluster_state


def main():
    module = AnsibleModule(argument_spec=dict(CONNECTION_ARGS), supports_check_mode=True)
    try:
        state = read_cluster_state(module.params)
    except Exception as exc:  # any client error: say what to check
        module.fail_json(msg=f"cannot read the cluster state from {module.params['bootstrap_servers']} / "
                             f"{module.params['zookeeper_connect']}: {exc}. Check that brokers and "
                             "ZooKeeper are reachable from the controller.")
    module.exit_json(
        changed=False,
        summary=kafka_state.summary(state),
        controller_id=state["controller_id"],
        cluster_id=state["cluster_id"],
        brokers=state["brokers"],
        partitions=state["partitions"],
        under_replicated=kafka_state.under_replicated(state),
        under_min_isr=kafka_state.under_min_isr(state),
        offline=kafka_state.offline(state),
    )


if __name__ == "__main__":
    main()
