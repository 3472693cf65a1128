#!/usr/bin/python
"""Ansible module: is a started broker registered and back in the ISR of every partition it hosts?"""

DOCUMENTATION = r"""
module: kafka_broker_wait_healthy
short_description: Wait until a Kafka broker is registered and in the ISR of every partition it hosts
version_added: 0.10.0
description:
  - Checks that I(broker_id) is registered (a broker registers only after its log recovery) and is in the ISR
    of every partition it hosts. Registered is under /brokers/ids in ZooKeeper or, on a KRaft cluster (no
    I(zookeeper_connect)), among the live brokers the brokers report (unfenced by the controllers).
  - With I(wait_timeout), keeps checking and prints the partitions still catching up with an ETA;
    fails at the timeout naming the lagging partitions.
requirements:
  - confluent-kafka and kazoo on the host that runs the module (usually the controller)
  - With I(kafka_tools_home), Java and a Kafka distribution there
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.kafka_connection.wait
  - kafkaops.toolkit.attributes
  - kafkaops.toolkit.attributes.read_only
options:
  broker_id:
    description: The broker to check.
    type: int
    required: true
  wait_timeout:
    description: Seconds to wait (see above).
    type: int
    default: 600
  kafka_tools_home:
    description:
      - A Kafka distribution (with C(libs/)) on the machine running the module. When given, progress and
        ETA count the bytes the broker still has to copy (Kafka's LogDirsCommand), not only partitions.
    type: path
seealso:
  - module: kafkaops.toolkit.kafka_broker_safe_to_stop
    description: The gate before a broker stops.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Wait until broker 2 is back in every ISR
  kafkaops.toolkit.kafka_broker_wait_healthy:
    broker_id: 2
    bootstrap_servers: kafka1:9092,kafka2:9092,kafka3:9092
    zookeeper_connect: zk1:2181,zk2:2181,zk3:2181/kafka
    wait_timeout: 900
    kafka_tools_home: /opt/kafka
  delegate_to: localhost
"""

RETURN = r"""
done:
  description: Whether the broker is registered and in every ISR.
  returned: success
  type: bool
  sample: true
registered:
  description: Whether the broker is registered (in ZooKeeper, or with the KRaft controllers).
  returned: success
  type: bool
  sample: true
lagging:
  description: Partitions (C(topic-N)) the broker hosts whose ISR it is not in.
  returned: success
  type: list
  elements: str
  sample: []
bytes_missing:
  description: Bytes its replicas still lack against the largest other replica (C(0) once it is healthy).
  returned: with kafka_tools_home once the broker is registered, and once it is healthy
  type: int
  sample: 0
copy_progress:
  description: The bytes still to copy, as the progress line shows them (empty once the broker is healthy).
  returned: with kafka_tools_home once the broker is registered, and once it is healthy
  type: str
  sample: "; 1.2 GiB of 4.0 GiB still to copy"
progress:
  description: The line printed while waiting.
  returned: success
  type: str
  sample: "broker 2: 3 partition(s) still catching up: orders-1, orders-4, payments-2"
waited:
  description: Seconds waited.
  returned: when wait_timeout > 0
  type: float
  sample: 118.3
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_state, kafka_tools
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    CONNECTION_ARGS,
    admin_config,
    describe_error,
    is_permanent,
    read_cluster_state,
    wait_args,
)


def copy_progress(params, state):
    """(bytes still missing, text) from the replica sizes, or (None, '') without kafka_tools_home."""
    if not params["kafka_tools_home"]:
        return None, ""
    sizes = kafka_tools.read_log_dir_sizes(params["kafka_tools_home"], admin_config(params),
                                           sorted(state["brokers"]), params["request_timeout"])
    total, missing = kafka_tools.bytes_to_copy(state["partitions"], sizes, params["broker_id"])
    return missing, f"; {kafka_tools.human_bytes(missing)} of {kafka_tools.human_bytes(total)} still to copy"


def main():
    module = AnsibleModule(argument_spec=dict(CONNECTION_ARGS, broker_id=dict(type="int", required=True),
                                              kafka_tools_home=dict(type="path"), **wait_args(600)),
                           supports_check_mode=True)
    broker_id = module.params["broker_id"]
    try:
        state = read_cluster_state(module.params)
        health = kafka_state.broker_health(state, broker_id)
        # Sizes only once it is registered: before, every byte is missing, and the tool's JVM slows its start.
        missing, copy_text = ((0, "") if health["healthy"] else copy_progress(module.params, state)
                              if health["registered"] else (None, ""))
    except Exception as exc:  # the cluster can be briefly unreachable while a broker restarts
        # Only what waiting can fix is retried by the waiting action plugin.
        module.fail_json(msg=f"cannot read the cluster state: {describe_error(exc)}", retryable=not is_permanent(exc))
    lagging = health["lagging"]
    if not health["registered"]:
        where = "in ZooKeeper" if module.params["zookeeper_connect"] else "with the KRaft controllers"
        progress = f"broker {broker_id} is not registered {where} yet (starting, or in log recovery)"
        timeout_msg = (f"broker {broker_id} did not register {where}: check `systemctl status kafka` "
                       "and server.log on its host (it may still be in log recovery)")
    else:
        progress = (f"broker {broker_id}: {len(lagging)} partition(s) still catching up: "
                    f"{kafka_state.partition_names(lagging)}")
        timeout_msg = (f"broker {broker_id} is still out of the ISR of {len(lagging)} partition(s): "
                       f"{kafka_state.partition_names(lagging)}")
    # The ETA follows the bytes when they are known, else the partitions.
    remaining = missing if missing is not None else len(lagging) if health["registered"] else None
    result = dict(bytes_missing=missing, copy_progress=copy_text) if missing is not None else {}
    module.exit_json(changed=False, done=health["healthy"], registered=health["registered"], lagging=lagging,
                     remaining=remaining, progress=progress, timeout_msg=timeout_msg, **result)


if __name__ == "__main__":
    main()
