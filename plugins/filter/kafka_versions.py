"""The Kafka releases the kit runs (module_utils/kafka_versions: the table and its refusals, unit-tested)."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_versions


class FilterModule:
    def filters(self):
        return {
            "kafka_version_facts": kafka_versions.facts,
            "kafka_version_quorum": kafka_versions.new_quorum,
            "kafka_version_refusals": kafka_versions.version_refusals,
        }
