"""The broker preflight's identity rule over log dirs already read (module_utils.kafka_identity)."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_identity


def kafka_identity_refusals(identity, broker_id, cluster_id, peers):
    """The refusals of kafka_identity.refusals for a kafka_broker_identity result, against cluster_id (which may have
    become known after the read) and compared with peers' dirs (read by the same task on every broker, so they could
    not be compared while it ran)."""
    return kafka_identity.refusals(kafka_identity.against_cluster(identity["dirs"], cluster_id), broker_id,
                                   cluster_id or None, peers, identity["abandoned_log_dirs"])


class FilterModule:
    def filters(self):
        return {"kafka_identity_refusals": kafka_identity_refusals}
