"""Filters that turn the connection role's kafka_connection_args into the configurations clients outside the
modules read (playbooks/tasks/write_client_settings.yml): the same translations the modules use, kafka_connection's."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_connection


def kafka_client_config(connection_args):
    """The librdkafka configuration (confluent-kafka clients: canary, validator, demo, tests)."""
    return kafka_connection.admin_config(dict(connection_args, request_timeout=60))


def kafka_java_client_properties(connection_args):
    """The Java client's properties (Kafka's tools' --command-config, Spark's kafka.* options)."""
    return kafka_connection.java_client_properties(kafka_client_config(connection_args))


def kazoo_client_options(connection_args):
    """KazooClient's keyword arguments (ZooKeeper TLS and SASL) for clients outside the modules."""
    return kafka_connection.kazoo_options(connection_args)


def zookeeper_tls_properties(keystore, truststore):
    """A broker's ZooKeeper client TLS properties (server.properties), as Kafka's tools get them."""
    return kafka_connection.zookeeper_tls_properties(keystore, truststore)


def zookeeper_jaas(username, password):
    """The JAAS Client section a ZooKeeper client logs in with (a broker's jaas.conf, Kafka's tools)."""
    return kafka_connection.zookeeper_jaas({"zookeeper_sasl_username": username, "zookeeper_sasl_password": password})


class FilterModule:
    def filters(self):
        return {"kafka_client_config": kafka_client_config,
                "kafka_java_client_properties": kafka_java_client_properties,
                "kazoo_client_options": kazoo_client_options,
                "zookeeper_tls_properties": zookeeper_tls_properties,
                "zookeeper_cipher_suites": kafka_connection.zookeeper_cipher_suites,
                "zookeeper_jaas": zookeeper_jaas}
