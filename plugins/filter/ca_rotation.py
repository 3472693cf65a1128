"""The filters behind the CA rotation (pki role, rotate_ca.yml); the rules are module_utils/kafka_ca_rotation's
functions, unit-tested."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_ca_rotation


class FilterModule:
    def filters(self):
        return {
            "kafka_ca_rotation_issuing_ca": kafka_ca_rotation.issuing_ca_files,
            "kafka_ca_rotation_trusted": kafka_ca_rotation.trusted_ca_certs,
            "kafka_ca_rotation_chain": kafka_ca_rotation.chain_certs,
            "kafka_ca_rotation_next_ca": kafka_ca_rotation.next_ca_files,
            "kafka_ca_rotation_cross_signing_works": kafka_ca_rotation.cross_signing_works,
            "kafka_ca_rotation_host_state": kafka_ca_rotation.host_state,
            "kafka_ca_rotation_plan": kafka_ca_rotation.rotation_plan,
            "kafka_ca_rotation_describe": kafka_ca_rotation.describe,
        }
