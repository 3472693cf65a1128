"""The filter behind zookeeper_restart_pending (roles/zookeeper/tasks/service.yml); the rule is
zookeeper_state.restart_pending, unit-tested."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils.zookeeper_state import restart_pending


class FilterModule:
    def filters(self):
        return {"zookeeper_restart_pending": restart_pending}
