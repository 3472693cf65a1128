"""secure_cluster.yml on the deployed (secured) lab: its plan, read from every host and from ZooKeeper's ACLs,
finds every step done, so a run with remove_plaintext changes nothing; a refused run changes nothing either.
The conversion of an open cluster under a canary is the drill `make security-drills`."""

from unchanged import lab_state

from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_secure_conversion import STEP_NAMES


def test_on_a_secured_cluster_every_step_is_done_and_a_run_changes_nothing(run_playbook, settings):
    before = lab_state(settings)
    proc = run_playbook("secure_cluster.yml", "-e", "remove_plaintext=true")
    assert proc.returncode == 0
    assert f"done on every host: {', '.join(STEP_NAMES)}" in proc.output
    assert "this run takes 0 step(s)" in proc.output
    assert "Kafka clients: SASL_SSL (SCRAM) only; ZooKeeper clients: TLS only;" in proc.output
    assert lab_state(settings) == before


def test_a_step_that_does_not_exist_is_refused_and_nothing_changes(run_playbook, settings):
    before = lab_state(settings)
    proc = run_playbook("secure_cluster.yml", "-e", "stop_after=secure-everything")
    assert proc.returncode != 0
    assert "secure-everything" in proc.output and "is not a step; the steps are secure-listeners" in proc.output
    assert lab_state(settings) == before
