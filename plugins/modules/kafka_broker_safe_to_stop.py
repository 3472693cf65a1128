#!/usr/bin/python
"""Ansible module: may a broker stop now without any partition falling below min.insync.replicas?"""

DOCUMENTATION = r"""
module: kafka_broker_safe_to_stop
short_description: Decide whether a Kafka broker may stop without a partition falling below min ISR
version_added: 0.10.0
description:
  - A broker may stop only if no partition whose ISR holds it has an ISR no larger than its
    min.insync.replicas (the topic's own or the broker default).
  - Partitions whose replication factor is not above min.insync.replicas are reported in
    C(rf_not_above_min_isr) and a warning, but never block (they would block every stop forever).
  - With I(wait_timeout), keeps checking until it is safe, printing the blocking partitions with an
    ETA; fails at the timeout naming them.
  - With I(restart_candidates) instead of I(broker_id), each check first picks the broker to restart next among
    them, as I(restart_candidates) of M(kafkaops.toolkit.kafka_cluster_info) orders them (the active controller
    last), from the same read of the cluster, so that a rolling restart's step reads the cluster once.
requirements:
  - confluent-kafka and kazoo on the host that runs the module (usually the controller)
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.kafka_connection.wait
  - kafkaops.toolkit.attributes
  - kafkaops.toolkit.attributes.read_only
options:
  broker_id:
    description: The broker that would stop (or give I(restart_candidates)).
    type: int
  restart_candidates:
    description: Broker ids still to restart in a rolling restart; the check is for the one to restart next.
    type: list
    elements: int
  restart_first:
    description: With I(restart_candidates), ids to restart before the others, in this order.
    type: list
    elements: int
    default: []
  wait_timeout:
    description: Seconds to wait (see above).
    type: int
    default: 0
seealso:
  - module: kafkaops.toolkit.kafka_broker_wait_healthy
    description: The gate after the broker started again.
  - module: kafkaops.toolkit.kafka_cluster_info
    description: The order to restart brokers in (I(restart_candidates)).
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Wait up to 10 minutes until broker 3 may stop
  kafkaops.toolkit.kafka_broker_safe_to_stop:
    broker_id: 3
    bootstrap_servers: kafka1:9092
    zookeeper_connect: zk1:2181/kafka
    wait_timeout: 600
  delegate_to: localhost
"""

RETURN = r"""
broker_id:
  description: The broker checked (with I(restart_candidates), the one to restart next).
  returned: success
  type: int
  sample: 3
controller_id:
  description: The active controller's broker id when the cluster was read (C(null) on KRaft).
  returned: success
  type: int
  sample: 1
safe:
  description: Whether the broker may stop now.
  returned: success
  type: bool
  sample: false
blocking:
  description: Partitions (C(topic-N)) that would fall below min.insync.replicas.
  returned: success
  type: list
  elements: str
  sample: [orders-0, orders-3]
rf_not_above_min_isr:
  description: Partitions on the broker whose replication factor is not above min.insync.replicas.
  returned: success
  type: list
  elements: str
  sample: [audit-0]
only_in_sync_replica:
  description:
    - Partitions of the broker with no other live broker in their ISR (offline while it is down); wiping
      or replacing the broker would lose them. Reported; does not change C(safe).
  returned: success
  type: list
  elements: str
  sample: []
done:
  description: The same as C(safe) (what the waiting action plugin waits for).
  returned: success
  type: bool
  sample: false
progress:
  description: The line printed while waiting.
  returned: success
  type: str
  sample: "broker 3 may not stop yet: 2 partition(s) would fall below min.insync.replicas: orders-0, orders-3"
waited:
  description: Seconds waited.
  returned: when wait_timeout > 0
  type: float
  sample: 42.5
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_state
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    CONNECTION_ARGS,
    describe_error,
    is_permanent,
    read_cluster_state,
    wait_args,
)


def main():
    module = AnsibleModule(argument_spec=dict(CONNECTION_ARGS, broker_id=dict(type="int"),
                                              restart_candidates=dict(type="list", elements="int"),
                                              restart_first=dict(type="list", elements="int", default=[]),
                                              **wait_args(0)),
                           required_one_of=[("broker_id", "restart_candidates")],
                           mutually_exclusive=[("broker_id", "restart_candidates")],
                           supports_check_mode=True)
    p = module.params
    try:
        state = read_cluster_state(p)
        broker_id = (p["broker_id"] if p["broker_id"] is not None
                     else kafka_state.next_to_restart(state, p["restart_candidates"], p["restart_first"]))
        check = kafka_state.stop_check(state, broker_id)
    except Exception as exc:
        # Only what waiting can fix is retried by the waiting action plugin.
        module.fail_json(msg=f"cannot read the cluster state: {describe_error(exc)}", retryable=not is_permanent(exc))
    low_rf = check["rf_not_above_min_isr"]
    if low_rf:
        module.warn(f"broker {broker_id}: these partitions fall below min.insync.replicas whenever any "
                    f"replica stops (replication factor too low): {kafka_state.partition_names(low_rf)}")
    blocking = check["blocking"]
    module.exit_json(
        changed=False, done=check["safe"], remaining=len(blocking), broker_id=broker_id,
        controller_id=state["controller_id"], **check,
        progress=(f"broker {broker_id} may not stop yet: {len(blocking)} partition(s) would fall below "
                  f"min.insync.replicas: {kafka_state.partition_names(blocking)}"),
        timeout_msg=(f"refusing to stop broker {broker_id}: {len(blocking)} partition(s) would fall below "
                     f"min.insync.replicas: {kafka_state.partition_names(blocking)}. Their other replicas "
                     "are out of sync: bring the brokers that are down or lagging back first."))


if __name__ == "__main__":
    main()
