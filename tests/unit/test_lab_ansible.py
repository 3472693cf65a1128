"""lab/ansible.py, how every runner of the kit runs Ansible: the operator's environment, the command line, and a
playbook run from a Python whose venv is not on PATH (`.venv/bin/python -m lab ...` from a fresh clone); and
config.host, a lab host by its name."""

import os
import subprocess
import sys

import pytest

from lab import ansible, config
from lab.shell import LabError

# Passes only when the repo's ansible.cfg is in force and every extra var arrives whole and with its type.
CHECK_VARS = """
- name: What the runner gave
  hosts: localhost
  gather_facts: false
  tasks:
    - name: The config file and the extra vars
      ansible.builtin.assert:
        that:
          - ansible_config_file == expected_config
          - word == "kafka3"
          - sentence == "two words, 'quoted'"
          - count == 3 and count is number
          - flag is sameas true
          - names == ["a", "b"]
"""
EXTRA_VARS = {"word": "kafka3", "sentence": "two words, 'quoted'", "count": 3, "flag": True, "names": ["a", "b"]}


def test_the_operators_environment_has_the_repos_config_and_the_venv_first_on_path():
    assert ansible.BIN == os.path.dirname(sys.executable)
    assert os.access(os.path.join(ansible.BIN, "ansible-playbook"), os.X_OK)
    env = ansible.environment({"PATH": "/usr/bin:/bin", "KEPT": "1"}, EXTRA="x")
    assert env == {"PATH": f"{ansible.BIN}:/usr/bin:/bin", "KEPT": "1", "EXTRA": "x",
                   "ANSIBLE_CONFIG": str(config.REPO / "ansible.cfg")}
    assert ansible.environment(env)["PATH"] == env["PATH"]  # built again (a runner run by a runner): no growth
    assert ansible.environment({})["PATH"] == os.pathsep.join([ansible.BIN, *os.defpath.split(os.pathsep)])
    assert ansible.environment(ANSIBLE_CONFIG="/other/ansible.cfg")["ANSIBLE_CONFIG"] == "/other/ansible.cfg"
    assert ansible.environment()["HOME"] == os.environ["HOME"]  # this process's environment by default


def test_the_command_line_is_the_one_an_operator_types():
    assert ansible.command("playbooks/rebuild_broker.yml", "-i", "inventories/lab", check=True, extra_vars={
        "broker_host": "kafka3", "snapshot_dir": config.REPO / "snaps", "note": "two words", "count": 3,
        "restart_first": ["kafka3"]}) == [
        "ansible-playbook", "playbooks/rebuild_broker.yml", "-i", "inventories/lab",
        "-e", "broker_host=kafka3", "-e", f"snapshot_dir={config.REPO / 'snaps'}", "-e", '{"note": "two words"}',
        "-e", '{"count": 3}', "-e", '{"restart_first": ["kafka3"]}', "--check"]
    assert ansible.command("site.yml") == ["ansible-playbook", "site.yml"]


def test_a_playbook_runs_as_the_operator_from_a_python_started_without_the_venv_on_path(tmp_path, shell_without_venv):
    """As `.venv/bin/python -m lab spark-up` from a fresh clone: no activated venv, so no ansible-playbook on PATH
    (it died with FileNotFoundError: 'ansible-playbook' before lab/ansible.py)."""
    play = tmp_path / "check_vars.yml"
    play.write_text(CHECK_VARS)
    runner = ("import sys; sys.path.insert(0, sys.argv[1]); from lab import ansible; "
              f"proc = ansible.playbook(sys.argv[2], extra_vars={EXTRA_VARS!r} | {{'expected_config': sys.argv[3]}}); "
              "print(proc.stdout, proc.stderr); sys.exit(proc.returncode)")
    proc = subprocess.run([sys.executable, "-c", runner, str(config.REPO), str(play), str(ansible.CONFIG)],
                          cwd=tmp_path, env=shell_without_venv, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "failed=0" in proc.stdout


def test_a_playbook_that_fails_is_returned_with_its_output(tmp_path):
    play = tmp_path / "check_vars.yml"
    play.write_text(CHECK_VARS)
    proc = ansible.playbook(play, extra_vars=EXTRA_VARS | {"count": "3", "expected_config": str(ansible.CONFIG)},
                            timeout=120)
    assert proc.returncode == 2  # Ansible's status for a failed task
    assert "count == 3 and count is number" in proc.stdout and "failed=1" in proc.stdout


def test_a_lab_host_by_its_name_or_its_dns_name():
    kafka3 = config.host("kafka3")
    assert (kafka3.name, kafka3.address, kafka3.groups) == ("kafka3", "10.213.7.23", ("kafka_broker",))
    assert config.host("kafka3.kafkalab.test") == kafka3  # as a broker advertises itself


def test_an_unknown_host_is_refused_naming_the_known_ones(tmp_path):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("all:\n  children:\n    zookeeper:\n      hosts:\n"
                         "        a: {ansible_host: 10.0.0.5}\n        b: {ansible_host: 10.0.0.6}\n")
    assert config.host("b", inventory).address == "10.0.0.6"
    with pytest.raises(LabError, match=f"no lab host 'kafka9' in {inventory}; hosts: a, b$"):
        config.host("kafka9", inventory)
