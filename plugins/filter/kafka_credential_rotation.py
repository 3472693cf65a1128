"""The credential rotation's plan (module_utils.kafka_credential_rotation)."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_credential_rotation


class FilterModule:
    def filters(self):
        return {"kafka_credential_rotation_plan": kafka_credential_rotation.plan,
                "kafka_scram_rotation_plans": kafka_credential_rotation.scram_plans,
                "kafka_application_rotation_plans": kafka_credential_rotation.application_plans,
                "kafka_admin_rotation_plan": kafka_credential_rotation.admin_plan,
                "kafka_unknown_credentials": kafka_credential_rotation.unknown_credentials,
                "kafka_rotation_rolls_not_taken": kafka_credential_rotation.rolls_not_taken,
                "kafka_rotation_roll_groups": kafka_credential_rotation.roll_groups,
                "kafka_rotation_plan_lines": kafka_credential_rotation.describe}
