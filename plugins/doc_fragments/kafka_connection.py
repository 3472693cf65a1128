"""The connection options every cluster module shares (plugins/module_utils/kafka_connection.py), and the wait
options of the modules the kafka_wait action plugin repeats."""


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  bootstrap_servers:
    description: Comma-separated host:port list of brokers.
    type: str
    required: true
  zookeeper_connect:
    description:
      - ZooKeeper connect string with the cluster's chroot, e.g. C(zk1:2181,zk2:2181/kafka).
      - Empty on a KRaft cluster, which has no ZooKeeper; the modules that read the live brokers and the cluster id
        then ask the brokers.
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
  sasl_mechanism: {description: SASL mechanism (with a SASL protocol)., type: str}
  sasl_username: {description: SASL user., type: str}
  sasl_password: {description: SASL password; never logged., type: str}
  ssl_ca_location: {description: CA file for TLS (with an SSL protocol)., type: path}
  ssl_certificate_location: {description: Client certificate for TLS., type: path}
  ssl_key_location: {description: Client key for TLS., type: path}
  zookeeper_tls:
    description: Reach ZooKeeper over TLS (its secureClientPort), presenting the client certificate below.
    type: bool
    default: false
  zookeeper_ssl_ca_location: {description: CA file of the ZooKeeper members' certificates., type: path}
  zookeeper_ssl_certificate_location: {description: Client certificate (PEM) for ZooKeeper., type: path}
  zookeeper_ssl_key_location: {description: Its private key (PEM)., type: path}
  zookeeper_sasl_username: {description: SASL (DIGEST-MD5) user to log in to ZooKeeper as., type: str}
  zookeeper_sasl_password: {description: Its password; never logged., type: str}
attributes:
  action_group:
    description:
      - Use C(group/kafkaops.toolkit.kafka) in C(module_defaults) to give every module of the group the connection
        options once, as the playbooks do with the connection role's C(kafka_connection_args).
    support: full
    membership: [kafkaops.toolkit.kafka]
"""

    WAIT = r"""
options:
  wait_timeout:
    description:
      - Seconds to keep checking until the condition holds, printing progress and an ETA between
        checks; the task fails with the details when the time runs out. C(0) checks once.
    type: int
  poll_interval:
    description: Seconds between checks while waiting (a check reads the cluster's metadata once).
    type: int
    default: 1
attributes:
  action:
    description:
      - The module's action plugin (kafka_wait) repeats the check on the controller while I(wait_timeout) lasts,
        printing progress with an ETA; an error that waiting cannot fix (a name that does not resolve, a refused
        login) fails at once.
    support: full
"""

    # The modules that run Kafka's own tools (MetadataQuorumCommand, FeatureCommand) through the brokers (each says
    # in its own options that zookeeper_connect is not used: a fragment cannot override the fragment above).
    TOOLS = r"""
options:
  kafka_tools_home:
    description: A Kafka distribution (with C(libs/)) on the machine running the module.
    type: path
    required: true
"""
