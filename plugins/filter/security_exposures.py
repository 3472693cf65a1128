"""The roles' check that a secure default was turned off on purpose (module_utils.security_exposures)."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils.security_exposures import exposure_refusals


def security_exposure_refusals(settings, accepted, escape_hatches=None, tls_protocols=None):
    """The refusals for the settings that open an exposure not in kafka_security_exposures_accepted."""
    return exposure_refusals(settings, accepted or [], escape_hatches, tls_protocols)


class FilterModule:
    def filters(self):
        return {"security_exposure_refusals": security_exposure_refusals}
