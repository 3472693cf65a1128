"""Filters of secure_cluster.yml; the rules are kafka_secure_conversion's, unit-tested."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_secure_conversion


def secure_running_config(text, kind):
    """The part of a host's server.properties (kind kafka) or zoo.cfg (zookeeper) the conversion plan reads."""
    return kafka_secure_conversion.running_config(kind, text)


def secure_step_settings(name):
    """The variables of a step's hosts and the kit's connection while the step is taken."""
    return kafka_secure_conversion.step_settings(name)


class FilterModule:
    def filters(self):
        return {"secure_running_config": secure_running_config, "secure_step_settings": secure_step_settings}
