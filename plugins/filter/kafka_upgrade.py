"""The filters behind the rolling version upgrade's decisions; the rules are module_utils/kafka_upgrade's functions,
unit-tested."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_upgrade


class FilterModule:
    def filters(self):
        return {
            "upgrade_node": kafka_upgrade.node_from_processes,
            "upgrade_step_groups": kafka_upgrade.step_groups,
            "upgrade_protocol_raise_refusal": kafka_upgrade.protocol_raise_refusal,
        }
