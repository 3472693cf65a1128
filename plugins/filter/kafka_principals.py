"""Who is who on a secured cluster (module_utils.kafka_principals): certificate subjects, the principal mapping
rules, and the refusals of credentials that would let a password alone be a super user."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_principals


class FilterModule:
    def filters(self):
        return {"kafka_pki_subject": kafka_principals.host_subject,
                "kafka_running_super_users": kafka_principals.running_super_users,
                "kafka_admin_subject": kafka_principals.admin_subject,
                "kafka_principal_mapping_rules": kafka_principals.mapping_rules,
                "kafka_credential_refusals": kafka_principals.credential_refusals,
                "kafka_tool_acls": kafka_principals.tool_acls,
                "kafka_tool_connection_args": kafka_principals.tool_connection_args,
                "kafka_scram_users_to_make": kafka_principals.scram_users_to_make}
