"""The filters behind the KRaft identity decisions; the rules are module_utils/kafka_kraft's functions, unit-tested."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_kraft


def kraft_quorum_voters(endpoints, hostvars):
    """controller.quorum.voters of the controllers in endpoints (the connection role's kafka_controller_endpoints),
    each with its kafka_controller_node_id host var."""
    return kafka_kraft.quorum_voters(endpoints, {host: hostvars[host].get("kafka_controller_node_id")
                                                 for host in endpoints})


def kraft_initial_controllers(endpoints, cluster_id, hostvars):
    """kafka-storage format --initial-controllers of a new dynamic quorum of the controllers in endpoints."""
    return kafka_kraft.initial_controllers(cluster_id, endpoints, {host: hostvars[host].get("kafka_controller_node_id")
                                                                   for host in endpoints})


class FilterModule:
    def filters(self):
        return {
            "kraft_quorum_voters": kraft_quorum_voters,
            "kraft_initial_controllers": kraft_initial_controllers,
            "kraft_node_id_refusals": kafka_kraft.node_id_refusals,
            "kraft_mode_change_refusal": kafka_kraft.mode_change_refusal,
            "kraft_metadata_state": kafka_kraft.metadata_state,
            "kraft_format_plan": kafka_kraft.format_plan,
            "kraft_quorum_replication": kafka_kraft.parse_quorum_replication,
            "kraft_controller_stop_refusals": kafka_kraft.controller_stop_refusals,
            "kraft_controller_rejoined": kafka_kraft.controller_rejoined,
            "kraft_static_voters": kafka_kraft.static_voters,
            "kraft_controller_restart_order": kafka_kraft.controller_restart_order,
        }
