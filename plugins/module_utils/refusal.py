"""The kit's safety rules, one registry, and a refusal as every plan of the kit returns it.

RULES names each rule once: refusal() takes its ids, tests/rule_removal.py takes each rule out by id to show its lab
tests fail without it, and docs/safety-rules.md (written by make rule-removal) shows the ids and texts. A refusal is
{"rule": its id, "message": the cause, what it concerns, and what to do}; the playbooks show the messages and stop
(the plan role's stop_on_refusals)."""

RULES = {
    # Replacing and rebuilding a broker (kafka_recovery.py)
    "unclean-election": "refuse while unclean.leader.election.enable is true (replace, rebuild)",
    "rebuild-only-in-sync": "rebuild refuses to empty the only in-sync copy",
    "rebuild-below-min-isr": "rebuild refuses when its stop would leave partitions below min ISR",
    "rebuild-gate-before-stop": "rebuild stops the broker only through the safe-to-stop gate, right before",
    "rebuild-other-broker": "rebuild refuses log dirs that hold another broker's data",
    "rebuild-no-room-for-old-data": "rebuild with rebuild_keep_old_data refuses a disk without room for a second copy",
    "unreadable-disk": "a log dir that cannot be read is refused, not taken as empty",
    "replace-registered": "replace refuses a failed broker that is still registered live",
    "fence-unreachable": "replace refuses to fence a failed host that does not answer",
    "replace-only-in-sync": "replace refuses when the failed broker held the only in-sync copy",
    "replacement-runs-broker": "replace refuses a replacement host whose kafka service runs",
    "replacement-other-data": "replace refuses a replacement whose log dirs hold other data",
    "tools-before-change": "replace refuses before any change when kafka_tools_home cannot run",
    "identity-by-advertised-name": "a registered broker is matched by the endpoint it advertises, not ansible_host "
                                   "(a rerun of a failed replace completes)",
    # Rolls (the roll role)
    "roll-safe-to-stop-gate": "a rolling restart stops a broker only if no partition falls below min ISR",
    "roll-healthy-gate": "the next broker waits until the restarted one is registered and in every ISR",
    "controller-last": "the active controller is restarted last",
    "zookeeper-quorum-gate": "a ZooKeeper member restarts only while the quorum has a leader and all serve",
    "zookeeper-leader-last": "ZooKeeper followers first, the leader last",
    "rerun-finishes-roll": "a roll that failed or was killed is finished by the rerun (the restart marks)",
    "kraft-controller-gate": "a controller stops only while the other voters are a caught-up majority",
    "controller-host-gone": "a controller roll stops, naming the host, when a controller host does not answer",
    "wait-fails-fast": "a wait fails at once on an error waiting cannot fix",
    # Replication throttles
    "throttle-removed-on-failure": "a throttle is removed also when the run fails",
    "throttle-recorded-first": "what a throttle adds is recorded before it is written",
    # Securing the cluster (kafka_secure_conversion.py)
    "secure-unknown-step": "secure_cluster.yml refuses a stop_after that names no step",
    "secure-plaintext-removal-needs-flag": "secure_cluster.yml removes a plaintext port only with "
                                           "remove_plaintext=true",
    "secure-step-order": "secure_cluster.yml refuses a host that took a step without the ones before it",
    "secure-no-hosts": "secure_cluster.yml refuses an inventory without brokers or ZooKeeper members",
    "secure-open-kraft": "secure_cluster.yml refuses an open KRaft cluster (it secures open clusters in ZooKeeper "
                         "mode)",
    # Rotating the CA (kafka_ca_rotation.py)
    "rotate-unknown-phase": "rotate_ca.yml refuses a stop_after that names no phase",
    "rotate-same-ca": "rotate_ca.yml refuses a next CA that is the CA in use while hosts are not on it alone",
    "rotate-unknown-trust": "rotate_ca.yml refuses a host whose trust is no step of the rotation",
    "rotate-phase-order": "rotate_ca.yml refuses hosts a phase ahead of others",
    "rotate-no-hosts": "rotate_ca.yml refuses an inventory without hosts to rotate",
    "rotation-under-way": "the pki role (site.yml) refuses to issue or set trust while a CA rotation is under way",
    # KRaft and the migration to it
    "kraft-lost-voter": "a deploy does not format a controller's empty metadata dir next to voters that ran",
    "kraft-unread-metadata-dir": "a deploy formats no controller while another controller's metadata dir was not read",
    "kraft-other-cluster-metadata": "a deploy formats no controller beside metadata dirs of another or of several "
                                    "clusters",
    "kraft-quorum-change": "a deploy does not switch a quorum that ran between static and dynamic voters",
    "kraft-replace-static": "replace_controller.yml refuses a static quorum (its voters cannot be removed or added)",
    "kraft-replace-majority": "replace_controller.yml removes a voter only while the others are a caught-up majority",
    "kraft-replace-other-cluster": "replace_controller.yml refuses a replacement disk that holds another cluster's "
                                   "or another node's metadata, or cannot be read",
    "convert-release": "convert_quorum_to_dynamic.yml refuses a release that cannot make a static quorum dynamic",
    "convert-voters-caught-up": "convert_quorum_to_dynamic.yml upgrades kraft.version only while every voter is caught "
                                "up",
    "convert-needs-confirm": "convert_quorum_to_dynamic.yml takes the irreversible kraft.version step only with "
                             "-e confirm_irreversible=true",
    "kraft-replace-failed-running": "replace_controller.yml removes a voter whose old host still runs its controller "
                                    "only when told to fence it",
    "kraft-node-ids": "every controller has a node id of its own that no broker has (one id space)",
    "mode-change-by-migration-only": "a host moves between ZooKeeper and KRaft mode only through the migration's "
                                     "steps, never by a deploy",
    "migration-inconsistent-state": "the migration refuses hosts in a state none of its steps leads to",
    "migration-finalized-early": "the migration refuses controllers finalized before every broker runs KRaft mode",
    "migration-generated-broker-ids": "the migration to KRaft does not start with generated broker ids",
    "migration-needs-3-9-protocol": "the migration to KRaft does not start before every broker runs "
                                    "inter.broker.protocol.version 3.9",
    "migration-under-replicated": "the migration to KRaft does not start while partitions are under-replicated "
                                  "or offline",
    "migration-unclean-election": "the migration to KRaft does not start while unclean leader election is on",
    "migration-zookeeper-unhealthy": "the migration to KRaft does not start while a ZooKeeper member does not serve "
                                     "or there is no single leader",
    "migration-stale-znode": "the migration to KRaft does not start on a /migration left by an earlier one beside "
                             "empty controller metadata dirs",
    "migration-no-controllers": "the migration to KRaft does not start without KRaft controllers in the inventory",
    "migration-other-cluster-metadata": "the migration to KRaft does not start on a controller metadata dir of "
                                        "another cluster",
    "finalize-brokers-in-kraft": "the migration is finalized only once every broker runs KRaft mode, registered "
                                 "with the controllers and caught up",
    "rollback-after-finalize": "the migration is not rolled back once its finalize has begun",
    # Who may log in as whom (kafka_principals.py)
    "scram-user-is-super-user": "no SCRAM user may bear a super user's name (a password alone would be a super user)",
    "password-too-weak": "a password shorter than 16 characters or published is refused",
    # Members by certificate, from the previous layout (kafka_identity_conversion.py)
    "identity-step-order": "the move to member certificates refuses a host that took a step without the ones before it",
    "identity-replication-listener-kept": "a roll never closes the listener a broker replicates over (site.yml on "
                                          "a cluster of the previous layout)",
    "identity-previous-login-missing": "the move to member certificates refuses a step whose previous-layout "
                                       "password the inventory no longer holds",
    # Rotating the kit's credentials (kafka_credential_rotation.py)
    "rotation-inconsistent-state": "rotate_credentials.yml refuses a credential in a state none of its steps leads to",
    # The Kafka releases the kit runs (kafka_versions.py)
    "version-unknown": "a Kafka release that is not in the kit's version table is refused before anything changes",
    "version-known-bad": "a known-bad Kafka release is refused by name, with the reason",
    "version-zookeeper-on-4": "a Kafka release without ZooKeeper mode is refused on a ZooKeeper cluster (migrate on "
                              "3.9 first)",
    "version-kraft-too-old": "a KRaft cluster of a line before 3.9 is refused (the kit runs KRaft on 3.9 and 4.x)",
    "version-removed-config": "a server config the release removed is refused in the inventory's extra properties",
    "version-java-too-old": "Java below the release's on a host or on the Ansible controller is refused",
    "version-newer-format": "replace and replace_controller.yml refuse a replacement disk formatted by a newer "
                            "kafka-storage than the cluster's release",
    # Adopting a cluster the kit did not deploy (kafka_adoption.py)
    "adopt-ambiguous-host": "adoption refuses a host that runs two brokers or two ZooKeeper servers",
    "adopt-not-running": "adoption refuses a host of the inventory that runs nothing to adopt",
    "adopt-id-disagrees": "adoption refuses a broker id the cluster's registry gives another host",
    "adopt-other-data": "adoption refuses log dirs of another broker or another cluster",
    "adopt-mixed-releases": "adoption refuses brokers of several releases",
    "adopt-not-open": "adoption refuses a secured cluster (it adopts open ones, then secure_cluster.yml secures them)",
    "adopt-ambiguous-setting": "adoption refuses hosts that disagree on a setting the cluster shares",
    "adopt-port-clash": "adoption refuses a port the cluster uses that the kit's own listeners need",
    "adopt-other-ensemble": "adoption refuses brokers or members that name another ensemble than the inventory's",
    "adopt-unreadable": "adoption refuses a host whose processes' files it could not read",
    "adopt-would-overwrite": "adoption refuses to write over a file of the inventory layer it did not write",
    # Rolling version upgrades (kafka_upgrade.py)
    "upgrade-node-down": "an upgrade refuses a cluster with a node that does not run",
    "upgrade-mixed-releases": "an upgrade refuses a cluster of several releases that is not mid-upgrade to the target",
    "upgrade-downgrade": "an upgrade refuses a target older than the release the cluster runs (rollback_upgrade.yml)",
    "upgrade-under-replicated": "an upgrade refuses to start while partitions are under-replicated",
    "upgrade-feature-unsupported": "the features are raised only when Kafka's controller accepts their levels in a "
                                   "dry run",
    "upgrade-protocol-raised": "a deploy never raises the inter.broker.protocol.version a broker runs (ZooKeeper "
                               "mode): only upgrade_kafka.yml's finalize run does",
    "upgrade-protocol-lowered": "a deploy never lowers the inter.broker.protocol.version a broker runs (ZooKeeper "
                                "mode)",
    "rollback-upgrade-nothing-recorded": "rollback_upgrade.yml refuses a cluster with no upgrade recorded",
    "rollback-upgrade-irreversible": "rollback_upgrade.yml refuses once the upgrade's irreversible step was taken",
    # Secure defaults (security_exposures.py)
    "secure-default-off-on-purpose": "a secure default is turned off only when kafka_security_exposures_accepted "
                                     "names it (the roles' preflights)",
}


def refusal(rule, message):
    """A refusal of the registry's rule `rule` (KeyError for an id the registry does not have)."""
    if rule not in RULES:
        raise KeyError(f"{rule!r} is not a rule of module_utils/refusal.RULES")
    return {"rule": rule, "message": message}
