"""The filter behind zookeeper_restart_pending and kafka_restart_pending (the zookeeper and kafka_broker
roles' service.yml); the rule is service_restart.restart_pending, unit-tested."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils.service_restart import restart_pending


class FilterModule:
    def filters(self):
        return {"restart_pending": restart_pending}
