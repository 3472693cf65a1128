"""The ZooKeeper login's generations and its rotation's plan (module_utils.kafka_zookeeper_login,
module_utils.kafka_credential_rotation)."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_credential_rotation
from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_zookeeper_login as zl


def zookeeper_accepted_generations(jaas_text, user):
    return zl.accepted_generations(user, jaas_text)


def zookeeper_client_generation(jaas_text, user):
    return zl.client_generation(user, jaas_text)


class FilterModule:
    def filters(self):
        return {"zookeeper_login_name": zl.login_name,
                "zookeeper_login_generation": zl.current_generation,
                "zookeeper_kept_logins": zl.kept_logins,
                "zookeeper_auth_to_local": zl.auth_to_local,
                "zookeeper_accepted_generations": zookeeper_accepted_generations,
                "zookeeper_client_generation": zookeeper_client_generation,
                "kafka_zookeeper_rotation_plan": kafka_credential_rotation.zookeeper_plan}
