"""The audit log's log4j filters (module_utils.kafka_audit_log)."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_audit_log import log4j2_filter, log4j_lines


class FilterModule:
    def filters(self):
        return {"kafka_audit_log4j": log4j_lines, "kafka_audit_log4j2_filter": log4j2_filter}
