"""The filters behind the pki role's decisions; the rules are module_utils/kafka_pki's functions, unit-tested."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_pki


class FilterModule:
    def filters(self):
        return {
            "kafka_pki_ca_files": kafka_pki.ca_files,
            "kafka_pki_sans": kafka_pki.sans,
            "kafka_pki_key_is": kafka_pki.key_is,
            "kafka_pki_ca_problems": kafka_pki.ca_problems,
            "kafka_pki_reissue_reasons": kafka_pki.reissue_reasons,
            "kafka_pki_renewal_due": kafka_pki.renewal_due,
            "kafka_pki_not_after": kafka_pki.not_after,
            "kafka_pki_expiry_report": kafka_pki.expiry_report,
            "kafka_pki_kept_certificates": kafka_pki.kept_certificates,
            "kafka_admin_generations": kafka_pki.admin_generations,
            "kafka_admin_current": kafka_pki.admin_current,
            "kafka_pki_tls_file_problems": kafka_pki.tls_file_problems,
        }
