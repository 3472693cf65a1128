#!/usr/bin/python
"""Ansible module: what Kafka and ZooKeeper processes run on this host, read for adopt_cluster.yml."""

DOCUMENTATION = r"""
module: kafka_adoption_facts
short_description: Read the Kafka brokers and ZooKeeper servers that run on a host the kit did not deploy
version_added: 0.13.0
description:
  - Runs on the host. Finds each Java process whose main class is C(kafka.Kafka) or
    C(org.apache.zookeeper.server.quorum.QuorumPeerMain) in C(/proc), and reads what it runs - its config file (the
    last argument, as Kafka's scripts pass it), the Kafka release of its class path, its heap, its java, the systemd
    unit of its cgroup - then the broker's log dirs' C(meta.properties) and the ZooKeeper member's C(myid).
  - Changes nothing. A file that cannot be read is reported in C(errors), never taken as absent. The decision whether
    the cluster can be adopted is kafka_adoption.adoption_refusals, on the controller, over every host's result.
extends_documentation_fragment:
  - kafkaops.toolkit.attributes
  - kafkaops.toolkit.attributes.read_only
options: {}
seealso:
  - module: kafkaops.toolkit.kafka_broker_identity
    description: Whose data a broker's log dirs hold, once the kit runs the broker.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Read what runs here
  kafkaops.toolkit.kafka_adoption_facts:
  register: running
"""

RETURN = r"""
processes:
  description:
    - Per broker or ZooKeeper process - pid, kind (C(broker), C(zookeeper)), main, config, config_properties,
      release, zookeeper_release, java, heap, unit.
  returned: always
  type: list
  elements: dict
  sample:
    - {pid: 812, kind: broker, main: kafka.Kafka, config: /opt/kafka_2.13-3.6.2/config/server.properties,
       config_properties: {broker.id: "1"}, release: 3.6.2, zookeeper_release: 3.8.4, java: /usr/bin/java,
       heap: 1G, unit: apache-kafka.service}
server:
  description: The config the broker runs (null without a broker).
  returned: always
  type: dict
  sample: {broker.id: "1", log.dirs: /var/lib/kafka/kafka-logs}
log_dirs:
  description: The broker's log dirs and the meta.properties of each (null where there is none).
  returned: always
  type: dict
  sample: {/var/lib/kafka/kafka-logs: {version: "0", broker.id: "1", cluster.id: aBcD1234QwErTy5678ZxCv}}
myid:
  description: The ZooKeeper member's id (its dataDir's myid), null without a member.
  returned: always
  type: int
  sample: 1
errors:
  description: What could not be read, one sentence each.
  returned: always
  type: list
  elements: str
  sample: []
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_adoption


def main():
    module = AnsibleModule(argument_spec={}, supports_check_mode=True)
    module.exit_json(changed=False, **kafka_adoption.read_host())


if __name__ == "__main__":
    main()
