"""Filters of secure_cluster.yml; the rules are in module_utils (kafka_secure_conversion, kafka_identity_conversion)."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_identity_conversion, kafka_secure_conversion


def secure_running_config(text, kind):
    """The part of a host's server.properties (kind kafka) or zoo.cfg (zookeeper) the conversion plan reads."""
    return kafka_secure_conversion.running_config(kind, text)


def secure_step_settings(name):
    """The variables of a step's hosts and the kit's connection while the step is taken (a secure step, or a step of
    the move to member certificates)."""
    if name in kafka_identity_conversion.STEP_NAMES:
        return kafka_identity_conversion.step_settings(name)
    return kafka_secure_conversion.step_settings(name)


def kafka_replication_listener_refusal(identity, host, listeners):
    """The refusal of a roll that would close the listener the broker replicates over (kafka_broker_identity's result,
    the listeners this run renders), or None."""
    return kafka_identity_conversion.replication_listener_refusal(
        host, identity.get("configured_inter_broker_listener"), list(listeners))


class FilterModule:
    def filters(self):
        return {"secure_running_config": secure_running_config, "secure_step_settings": secure_step_settings,
                "kafka_replication_listener_refusal": kafka_replication_listener_refusal}
