"""The playbooks as entry points, without the lab: a step refuses to run alone and names its entry point; a playbook
whose hosts come from an argument refuses without it (it would otherwise match no host and exit 0 having done
nothing); and each flow's imports follow its one step list in module_utils."""

import pathlib
import re

import pytest
import yaml

from lab import ansible
from plugins.module_utils import kafka_ca_rotation, kafka_identity_conversion, kafka_migration, kafka_secure_conversion

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
PLAYBOOKS = REPO / "playbooks"
STEPS = sorted(p.name for p in (PLAYBOOKS / "steps").glob("*.yml") if p.name != "refuse_alone.yml")


def _run(playbook, *args):
    return ansible.playbook(f"playbooks/{playbook}", *args, env=ansible.environment(ANSIBLE_FORCE_COLOR="0"),
                            timeout=300)


def _entry_points_importing(step):
    return sorted(p.name for p in PLAYBOOKS.glob("*.yml") if f"import_playbook: steps/{step}" in p.read_text())


@pytest.mark.parametrize("check", [[], ["--check"]], ids=["run", "check"])
@pytest.mark.parametrize("step", STEPS)
def test_a_step_run_alone_refuses_naming_its_entry_point(step, check):
    proc = _run(f"steps/{step}", *check)
    assert proc.returncode != 0
    assert f"playbooks/steps/{step} is a step of" in proc.stdout
    for entry_point in _entry_points_importing(step):
        assert f"playbooks/{entry_point}" in proc.stdout
    assert "changed=0" in proc.stdout


def test_the_configure_and_roll_step_refuses_an_empty_host_pattern():
    # Ansible reads "':!localhost'" as every host but localhost: an empty pattern must not configure the inventory
    proc = _run("steps/configure_and_roll.yml", "-e", "kit_entry_point=site.yml", "-e", "configure_hosts=")
    assert proc.returncode != 0
    assert "imported steps/configure_and_roll.yml with an empty configure_hosts" in proc.stdout
    assert "changed=0" in proc.stdout


@pytest.mark.parametrize("check", [[], ["--check"]], ids=["run", "check"])
@pytest.mark.parametrize("playbook, args, needed", [
    ("replace_broker.yml", [], "-e failed_host="),
    ("replace_broker.yml", ["-e", "failed_host=kafka2"], "replacement_host=unset"),
    ("replace_broker.yml", ["-e", "failed_host=kafka2", "-e", "replacement_host=nosuchhost"],
     "replacement_host=nosuchhost"),
    ("rebuild_broker.yml", [], "-e broker_host="),
    ("rebuild_broker.yml", ["-e", "broker_host=nosuchhost"], "broker_host=nosuchhost"),
    ("validate_recovery.yml", [], "-e before_snapshot="),
    ("rotate_credentials.yml", ["-e", "credentials=nosuch"],
     "credentials=nosuch: name one or more of admin, zookeeper, canary, validator"),
], ids=lambda v: v if isinstance(v, str) else " ".join(v))
def test_a_missing_argument_is_refused_saying_which(playbook, args, needed, check):
    proc = _run(playbook, *args, *check)
    assert proc.returncode != 0
    assert needed in proc.stdout
    assert "changed=0" in proc.stdout


def _plays(playbook):
    return yaml.safe_load((PLAYBOOKS / playbook).read_text())


def test_every_step_import_names_its_entry_point():
    for playbook in PLAYBOOKS.glob("*.yml"):
        for play in _plays(playbook.name):
            if str(play.get("ansible.builtin.import_playbook", "")).startswith("steps/"):
                assert play["vars"]["kit_entry_point"] == playbook.name, (playbook.name, play["name"])


def test_secure_cluster_imports_one_step_each_in_the_order_of_the_step_list():
    steps = [p["vars"]["secure_step"] for p in _plays("secure_cluster.yml") if "secure_step" in p.get("vars", {})]
    assert tuple(steps) == kafka_secure_conversion.STEP_NAMES + kafka_identity_conversion.STEP_NAMES


def test_rotate_ca_imports_one_phase_play_per_phase():
    indexes = [p["vars"]["ca_rotation_phase_index"] for p in _plays("rotate_ca.yml")
               if "ca_rotation_phase_index" in p.get("vars", {})]
    assert indexes == list(range(len(kafka_ca_rotation.PHASES)))


def test_migrate_to_kraft_has_one_step_play_per_step_in_order():
    names = [re.match(r"Step (\w+):", p["name"]).group(1) for p in _plays("migrate_to_kraft.yml")
             if p["name"].startswith("Step ")]
    assert tuple(names) == kafka_migration.STEPS
