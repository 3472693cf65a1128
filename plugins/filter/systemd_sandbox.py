"""The service units' sandbox (module_utils.systemd_sandbox)."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils.systemd_sandbox import unit_lines


class FilterModule:
    def filters(self):
        return {"systemd_sandbox": unit_lines}
