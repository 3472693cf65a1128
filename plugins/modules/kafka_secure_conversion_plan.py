#!/usr/bin/python
"""Ansible module: the plan of converting an open cluster to the secured one, from what every host runs."""

DOCUMENTATION = r"""
module: kafka_secure_conversion_plan
short_description: Decide which steps of secure_cluster.yml are done and which this run takes
version_added: 0.11.0
description:
  - Applies the rules of plugins/module_utils/kafka_secure_conversion.py to the configuration every broker and
    ZooKeeper member runs (the roles' running_config tasks read it). Once every secure step is done, it plans the
    move of a cluster of the previous layout to member certificates (plugins/module_utils/kafka_identity_conversion.py)
    as the steps after them. Once every broker creates znodes with
    ACLs, it also reads the ACLs of Kafka's znodes from ZooKeeper, to tell whether the existing ones were
    locked. Returns C(refusals) (each with its rule and a message) and the plan; it never fails on a refusal,
    so the playbook shows the plan and then stops.
requirements:
  - kazoo on the host that runs the module (usually the controller), once the brokers set znode ACLs
extends_documentation_fragment:
  - kafkaops.toolkit.kafka_connection
  - kafkaops.toolkit.attributes
  - kafkaops.toolkit.attributes.read_only
options:
  brokers:
    description: Inventory host -> C({config, restart_pending}) of every broker (kafka_running_config).
    type: dict
    required: true
  zookeepers:
    description:
      - Inventory host -> C({config, restart_pending}) of every member (zookeeper_running_config); null on a KRaft
        cluster, which has no secure steps to take (the kit deploys it secured).
    type: dict
  controllers:
    description:
      - Inventory host -> C({config, restart_pending}) of every deployed KRaft controller
        (kafka_controller_running_config); none on a ZooKeeper cluster.
    type: dict
    default: {}
  previous_users:
    description:
      - The SCRAM users of the previous layout (the members' login, the kit's old admin login), deleted by the last
        step of the move to member certificates. Read from the brokers once none of them has the BROKER listener.
    type: list
    elements: str
    default: []
  previous_logins:
    description:
      - The previous layout's login variables the inventory sets (kafka_inter_broker_sasl_password,
        kafka_client_sasl_username, kafka_client_sasl_password); a step that needs one the inventory lacks is
        refused. Names only, never values.
    type: list
    elements: str
    default: []
  tls_protocols:
    description:
      - The TLS versions the inventory asks for (kafka_tls_protocols); with TLS 1.2 among them, ZooKeeper members
        moved from the previous layout keep it.
    type: list
    elements: str
    default: [TLSv1.3]
  remove_plaintext:
    description: Also take the steps that remove the PLAINTEXT listener and ZooKeeper's plaintext client port.
    type: bool
    default: false
  stop_after:
    description: The last step this run takes (default - every step left).
    type: str
seealso:
  - plugin: kafkaops.toolkit.secure_running_config
    plugin_type: filter
    description: The part of a host's configuration this module reads (I(brokers), I(zookeepers)).
  - plugin: kafkaops.toolkit.secure_step_settings
    plugin_type: filter
    description: The variables a step gives its hosts.
author: Kafka ops toolkit (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Plan
  kafkaops.toolkit.kafka_secure_conversion_plan:
    brokers: {kafka1: {config: {listeners: "PLAINTEXT://0.0.0.0:9092"}, restart_pending: false}}
    zookeepers: {zk1: {config: {clientPort: "2181"}, restart_pending: false}}
  delegate_to: localhost
  register: plan
"""

RETURN = r"""
refusals:
  description: The reasons the run must not go on, each C({rule, message}); empty when it may.
  returned: always
  type: list
  elements: dict
  sample: []
done:
  description: The steps every host runs.
  returned: always
  type: list
  elements: str
  sample: [secure-listeners]
todo:
  description: The steps this run takes, in order.
  returned: always
  type: list
  elements: str
  sample: [secure-inter-broker, zookeeper-tls-ports]
left_after:
  description: The steps left after this run.
  returned: always
  type: list
  elements: str
  sample: [zookeeper-tls-quorum, brokers-log-in-to-zookeeper, brokers-set-zookeeper-acls, zookeeper-tls-quorum-only]
after:
  description: What the cluster accepts after this run, in a sentence.
  returned: always
  type: str
  sample: "Kafka clients: SASL_SSL (SCRAM), and PLAINTEXT as a super user; ZooKeeper clients: TLS and plaintext;
    Kafka's znodes: writable by any ZooKeeper client."
plan:
  description: The steps this run takes, in lines for people.
  returned: always
  type: list
  elements: str
  sample:
    - "secure-inter-broker (kafka): brokers replicate over the TLS inter-broker listener"
    - "zookeeper-tls-ports (zookeeper): ZooKeeper opens its TLS client port beside the plaintext one and accepts
      TLS from other members"
kinds:
  description: Step -> the kind of host it changes (kafka or zookeeper).
  returned: always
  type: dict
  sample: {secure-listeners: kafka, secure-inter-broker: kafka, zookeeper-tls-ports: zookeeper}
groups:
  description:
    - For each step this run takes, the group its plays run on (C(secure_step_<step>)) and its hosts - every host
      of the step's kind, and C(localhost), the controller that rolls them.
  returned: always
  type: dict
  sample: {secure_step_secure-inter-broker: [kafka1, kafka2, kafka3, localhost]}
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_identity_conversion as identity
from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_secure_conversion as conversion
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import (
    CONNECTION_ARGS,
    admin_client,
    describe_error,
    has_chroot,
    read_scram_credentials,
    read_znode_acls,
)


def _states(hosts):
    return {host: {"config": state["config"], "restart_pending": boolean(state["restart_pending"])}
            for host, state in hosts.items()}


def _previous_users_left(module, brokers, names):
    """The previous layout's SCRAM users still in the cluster, read (as the kit's admin, on REPLICATION) only once no
    broker has the BROKER listener; None before."""
    if not identity.previous_users_readable(brokers):
        return None
    p = module.params
    try:
        admin = admin_client(p)
        return sorted(name for name, found in read_scram_credentials(admin, names, p["request_timeout"]).items()
                      if found)
    except Exception as exc:
        module.fail_json(msg=f"cannot read the previous layout's SCRAM users from {p['bootstrap_servers']}: "
                             f"{describe_error(exc)}")


def main():
    module = AnsibleModule(
        argument_spec=dict(
            CONNECTION_ARGS,
            brokers=dict(type="dict", required=True),
            zookeepers=dict(type="dict"),
            controllers=dict(type="dict", default={}),
            previous_users=dict(type="list", elements="str", default=[]),
            previous_logins=dict(type="list", elements="str", default=[]),
            tls_protocols=dict(type="list", elements="str", default=["TLSv1.3"]),
            remove_plaintext=dict(type="bool", default=False),
            stop_after=dict(type="str")),
        supports_check_mode=True)
    p = module.params
    brokers = _states(p["brokers"])
    zookeepers = None if p["zookeepers"] is None else _states(p["zookeepers"])
    acls = None
    if conversion.brokers_set_acls(brokers):
        paths = conversion.ACL_PROBES + ((conversion.CHROOT,) if has_chroot(p) else ())
        try:
            acls = read_znode_acls(p, paths)
        except Exception as exc:
            module.fail_json(msg=f"cannot read the ACLs of Kafka's znodes from {p['zookeeper_connect']}: "
                                 f"{describe_error(exc)}")
    stop_after = p["stop_after"]
    plan = conversion.conversion_plan(brokers, zookeepers, znode_acls=acls, remove_plaintext=p["remove_plaintext"],
                                      stop_after=None if stop_after in identity.STEP_NAMES else stop_after)
    controllers = _states(p["controllers"])
    if identity.follows(plan):
        plan = identity.after_secure_steps(plan, brokers, controllers, _previous_users_left(
            module, brokers, p["previous_users"]), p["previous_logins"], stop_after, zookeepers,
            "TLSv1.2" in p["tls_protocols"])
    else:
        plan["plan"] = [conversion.describe(name) for name in plan["todo"]]
    kinds = dict(conversion.KINDS, **identity.KINDS)
    hosts = {conversion.KAFKA: sorted(brokers), conversion.ZOOKEEPER: sorted(zookeepers or {}),
             identity.CONTROLLER: sorted(controllers), identity.CLUSTER: []}
    module.exit_json(changed=False, kinds=kinds, groups=conversion.step_groups(plan["todo"], hosts, kinds), **plan)


if __name__ == "__main__":
    main()
