"""The filters behind the ZooKeeper to KRaft migration's decisions; the rules are module_utils/kafka_migration's
functions, unit-tested."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_migration


class FilterModule:
    def filters(self):
        return {
            "zk_migration_state": kafka_migration.parse_zk_migration_state,
            "migration_quorum_zk_state": kafka_migration.quorum_zk_state,
            "migration_progress": kafka_migration.progress,
            "migration_steps_to_run": kafka_migration.steps_to_run,
            "migration_step_groups": kafka_migration.step_groups,
            "migration_precheck_refusals": kafka_migration.precheck_refusals,
            "migration_finalize_refusals": kafka_migration.finalize_refusals,
            "migration_rollback_plan": kafka_migration.rollback_plan,
            "migration_raised_controller_epoch": kafka_migration.raised_controller_epoch,
        }
