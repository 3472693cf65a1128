"""rotate_ca.yml's refusals on the deployed lab: a refused run changes nothing. The rotation itself under load
is long_rotate_ca.py (make test-long) and the certificates drill (make security-drills)."""

import shutil

from unchanged import lab_state

from lab import config

PKI = config.PKI  # the lab's kafka_pki_dir


def test_an_unknown_phase_is_refused_and_nothing_changes(run_playbook, settings):
    before = lab_state(settings)
    proc = run_playbook("rotate_ca.yml", "-e", "stop_after=trust-everything")
    assert proc.returncode != 0
    assert "stop_after=trust-everything is not a phase; the phases are trust-both, reissue, drop-old" in proc.output
    assert lab_state(settings) == before
    assert not (PKI / "ca-next").exists()  # no next CA made either


def test_site_yml_refuses_while_a_rotation_is_under_way_and_nothing_changes(run_playbook, settings):
    # A rotation cut off between phases leaves ca-next; here a copy of the CA in use stands for it.
    (PKI / "ca-next").mkdir()
    shutil.copy(PKI / "ca" / "cert.pem", PKI / "ca-next" / "cert.pem")
    try:
        before = lab_state(settings)
        proc = run_playbook("site.yml")
        assert proc.returncode != 0
        assert "A CA rotation is under way" in proc.output and "Finish it with playbooks/rotate_ca.yml" in proc.output
        assert lab_state(settings) == before
    finally:
        shutil.rmtree(PKI / "ca-next")
