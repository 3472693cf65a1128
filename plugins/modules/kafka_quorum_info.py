#!/usr/bin/python
"""Ansible module: a KRaft cluster's metadata quorum, read through the brokers with Kafka's own tool."""

DOCUMENTATION = r"""
module: kafka_quorum_info
short_description: Read a KRaft cluster's metadata quorum, or wait until every broker has fetched up to an offset
version_added: 0.12.0
description:
  - Runs Kafka's MetadataQuorumCommand (kafka-metadata-quorum.sh describe --status and --replication) through the
    brokers, as the kit's admin, from I(kafka_tools_home) on the machine running the module.
  - Returns the leader, its epoch and high watermark, the voters (controllers) and the observers (brokers) with
    their log end offsets.
  - With I(min_observer_offset), it is done once every observer (broker) has fetched the metadata log up to that
    offset, so a change committed below it (a SCRAM credential, an ACL) has reached every broker. With
    I(wait_timeout) it keeps checking, printing the brokers still behind.
requirements:
  - Java and a Kafka distribution (I(kafka_tools_home)) on the host that runs the module
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.kafka_connection.tools
  - kafkaops.toolkit.kafka_connection.wait
  - kafkaops.toolkit.attributes
  - kafkaops.toolkit.attributes.read_only
options:
  zookeeper_connect:
    description: Not used; accepted so the kit's connection variables pass.
    type: str
    required: false
  min_observer_offset:
    description: The metadata offset every broker must have fetched (for C(done)).
    type: int
  wait_timeout:
    description: Seconds to wait (see above).
    type: int
    default: 0
seealso:
  - module: kafkaops.toolkit.kafka_cluster_info
    description: The brokers and partitions of the cluster.
  - plugin: kafkaops.toolkit.kraft_controller_stop_refusals
    plugin_type: filter
    description: Whether a controller may stop, from the quorum's replication rows.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Read the quorum
  kafkaops.toolkit.kafka_quorum_info:
    kafka_tools_home: /opt/kafka
  delegate_to: localhost
  register: quorum

- name: Wait until every broker has the metadata up to now
  kafkaops.toolkit.kafka_quorum_info:
    kafka_tools_home: /opt/kafka
    min_observer_offset: "{{ quorum.high_watermark }}"
    wait_timeout: 60
  delegate_to: localhost
"""

RETURN = r"""
leader_id:
  description: Node id of the quorum's leader.
  returned: always
  type: int
  sample: 3001
leader_epoch:
  description: Its epoch.
  returned: always
  type: int
  sample: 7
high_watermark:
  description: The committed end of the metadata log.
  returned: always
  type: int
  sample: 48213
cluster_id:
  description: The cluster id.
  returned: always
  type: str
  sample: aBcD1234QwErTy5678ZxCv
voters:
  description:
    - "Per controller: node_id, directory_id (of its metadata dir; all A's for a static quorum's voters),
      log_end_offset, lag, last_fetch_ms, last_caught_up_ms, status."
  returned: always
  type: list
  elements: dict
  sample:
    - {node_id: 3001, directory_id: i2ZnYpAAXUSxivwo7Vl4lA, log_end_offset: 48213, lag: 0, last_fetch_ms: 1732456789012,
       last_caught_up_ms: 1732456789012, status: Leader}
    - {node_id: 3002, directory_id: rpHb6vd0WTaaBKPickd5rw, log_end_offset: 48213, lag: 0, last_fetch_ms: 1732456788950,
       last_caught_up_ms: 1732456788950, status: Follower}
observers:
  description: Per broker, the same fields.
  returned: always
  type: list
  elements: dict
  sample:
    - {node_id: 1, directory_id: ZKb1D33aXdyc2DlxSwSARg, log_end_offset: 48210, lag: 3, last_fetch_ms: 1732456788990,
       last_caught_up_ms: 1732456788500, status: Observer}
behind:
  description: "Brokers below I(min_observer_offset): node id -> log end offset."
  returned: always
  type: dict
  sample: {"1": 48210}
done:
  description: No observer is below I(min_observer_offset) (always true without it).
  returned: always
  type: bool
  sample: false
progress:
  description: The line printed while waiting.
  returned: always
  type: str
  sample: "brokers that have not fetched the metadata log up to offset 48213: {1: 48210}"
waited:
  description: Seconds waited.
  returned: when wait_timeout > 0
  type: float
  sample: 2.1
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft, kafka_tools
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    BROKER_CONNECTION_ARGS,
    admin_config,
    describe_error,
    wait_args,
)


def main():
    module = AnsibleModule(argument_spec=dict(BROKER_CONNECTION_ARGS,
                                              kafka_tools_home=dict(type="path", required=True),
                                              min_observer_offset=dict(type="int"), **wait_args(0)),
                           supports_check_mode=True)
    p = module.params
    try:
        quorum = kafka_tools.read_quorum(p["kafka_tools_home"], admin_config(p), p["request_timeout"])
    except Exception as exc:  # a broker restarting; the waiting action plugin retries
        module.fail_json(msg=f"cannot read the KRaft quorum through {p['bootstrap_servers']}: {describe_error(exc)}",
                         retryable=True)
    rows = quorum["replication"]
    target = p["min_observer_offset"]
    behind = kafka_kraft.observers_behind(rows, target) if target is not None else {}
    module.exit_json(
        changed=False, done=not behind, remaining=len(behind), **quorum["status"],
        voters=[r for r in rows if r["status"] in kafka_kraft.VOTER],
        observers=[r for r in rows if r["status"] == "Observer"], behind=behind,
        progress=f"brokers that have not fetched the metadata log up to offset {target}: {behind}",
        timeout_msg=f"brokers {sorted(behind)} have not fetched the metadata log up to offset {target}: check "
                    "`systemctl status kafka` and server.log on their hosts")


if __name__ == "__main__":
    main()
