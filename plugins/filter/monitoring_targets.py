"""Prometheus's scrape targets from the inventory (module_utils.monitoring_targets)."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils.monitoring_targets import scrape_targets


class FilterModule:
    def filters(self):
        return {"monitoring_targets": scrape_targets}
