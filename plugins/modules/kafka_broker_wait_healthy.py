#!/usr/bin/python
"""Ansible module: wait until a started broker is registered and back in the ISR of all its partitions."""

DOCUMENTATION = r"""
module: kafka_broker_wait_healthy
short_description: Wait until a Kafka broker is registered and in the ISR of every partition it hosts
description:
  - Polls ZooKeeper and the brokers until I(broker_id) is registered under /brokers/ids (a broker
    registers only after its log recovery) and is in the ISR of every partition it hosts.
  - Fails at I(timeout) with the partitions still lagging. Read-only; runs in check mode.
extends_documentation_fragment: []
options:
  broker_id: {description: The broker to wait for., type: int, required: true}
  timeout: {description: Seconds to wait before failing., type: int, default: 600}
  poll_interval: {description: Seconds between checks., type: int, default: 3}
  bootstrap_servers: {description: Comma-separated host:port list of brokers., type: str, required: true}
  zookeeper_connect: {description: ZooKeeper connect string with chroot., type: str, required: true}
  request_timeout: {description: Seconds to wait for each request., type: int, default: 15}
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
- name: Wait until broker 2 is back in every ISR
  kafka_broker_wait_healthy:
    broker_id: 2
    bootstrap_servers: kafka1:9092,kafka2:9092,kafka3:9092
    zookeeper_connect: zk1:2181,zk2:2181,zk3:2181/kafka
    timeout: 900
  delegate_to: localhost
"""

RETURN = r"""
waited: {description: Seconds waited., returned: always, type: float}
progress:
  description: One entry per change seen while waiting (seconds, registered, partitions lagging).
  returned: always
  type: list
"""

import time

from ansible.module_utils import kafka_state
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.kafka_connection import CONNECTION_ARGS, read_cluster_state


def main():
    spec = dict(CONNECTION_ARGS)
    spec.update(broker_id=dict(type="int", required=True), timeout=dict(type="int", default=600),
                poll_interval=dict(type="int", default=3))
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    broker_id, started = module.params["broker_id"], time.monotonic()
    progress, health, last_error = [], None, None
    while True:
        waited = round(time.monotonic() - started, 1)
        try:
            health = kafka_state.broker_health(read_cluster_state(module.params), broker_id)
            last_error = None
            seen = {"registered": health["registered"], "lagging": len(health["lagging"])}
            if not progress or {k: progress[-1][k] for k in seen} != seen:
                progress.append(dict(seen, seconds=waited))
            if health["healthy"]:
                module.exit_json(changed=False, waited=waited, progress=progress)
        except Exception as exc:  # the cluster may be briefly unreachable while a broker restarts
            last_error = str(exc)
        if waited >= module.params["timeout"]:
            break
        time.sleep(module.params["poll_interval"])
    if health is None:
        module.fail_json(msg=f"broker {broker_id}: could not read the cluster state for "
                             f"{module.params['timeout']}s: {last_error}", progress=progress)
    if not health["registered"]:
        module.fail_json(msg=f"broker {broker_id} is not registered in ZooKeeper after "
                             f"{module.params['timeout']}s: check its service and its log "
                             "(it may still be in log recovery)", progress=progress)
    module.fail_json(msg=f"broker {broker_id} is still out of the ISR of {len(health['lagging'])} "
                         f"partition(s) after {module.params['timeout']}s: "
                         f"{', '.join(health['lagging'][:50])}", lagging=health["lagging"],
                     progress=progress)


if __name__ == "__main__":
    main()
