"""Every role entry point that playbooks and roles include with tasks_from has an argument spec (Ansible validates
an entry point's variables against it before its first task), and those specs accept the lab inventory's values:
a playbook of every such entry point runs with only the validation tasks (tagged always), locally, on no host."""

import subprocess
import sys
from pathlib import Path

import yaml

from lab.config import REPO

ROLE_KEYS = ("ansible.builtin.include_role", "ansible.builtin.import_role", "include_role", "import_role")
# The roles whose entry points read the roles' own variables, and the inventory group they run on. (The pki, roll,
# refusals and service entry points read what their caller passes.)
HOSTS = {"kafka_broker": "kafka_broker", "kafka_distribution": "kafka_broker", "kafka_controller": "kafka_controller",
         "zookeeper": "zookeeper"}
# What the playbooks pass to an entry point, and the facts an earlier task of it sets (skipped here).
CALLER_VARS = {"kafka_controller_wait_states": [1, 3], "kafka_restart_pending": False,
               "kafka_controller_restart_pending": False, "zookeeper_restart_pending": False,
               "kafka_controller_leaving": {"node_id": 9003, "directory_id": "i2ZnYpAAXUSxivwo7Vl4lA"},
               # the lab's reads the archive's .sha256 file next to the playbook (make setup writes it)
               "kafka_archive_checksum": "sha256:" + "0" * 64}


def _includes(node):
    """(role, entry point) of every include_role / import_role with tasks_from in a parsed YAML document."""
    found = set()
    if isinstance(node, dict):
        for key in ROLE_KEYS:
            args = node.get(key)
            if isinstance(args, dict) and args.get("tasks_from"):
                entries = node["loop"] if "{{" in args["tasks_from"] else [args["tasks_from"]]
                found |= {(args["name"].split(".")[-1], entry) for entry in entries}
        for value in node.values():
            found |= _includes(value)
    elif isinstance(node, list):
        for value in node:
            found |= _includes(value)
    return found


def _entry_points():
    files = [*(REPO / "playbooks").rglob("*.yml"), *(REPO / "roles").glob("*/tasks/**/*.yml")]
    return sorted(set().union(*(_includes(yaml.safe_load(path.read_text())) for path in files)))


def _specs(role):
    return yaml.safe_load((REPO / "roles" / role / "meta" / "argument_specs.yml").read_text())["argument_specs"]


def test_every_tasks_from_entry_point_has_an_argument_spec():
    entry_points = _entry_points()
    assert ("kafka_broker", "identity") in entry_points and ("pki", "check") in entry_points
    assert [(role, entry) for role, entry in entry_points if entry not in _specs(role)] == []


def test_the_entry_points_specs_accept_the_lab_inventory(tmp_path):
    plays = [{"name": role, "hosts": group, "gather_facts": False,
              "tasks": [{"name": entry, "ansible.builtin.import_role": {"name": f"kafkaops.toolkit.{role}",
                                                                         "tasks_from": entry}}
                        for checked, entry in _entry_points() if checked == role]}
             for role, group in HOSTS.items()]
    playbook = tmp_path / "entry_points.yml"
    playbook.write_text(yaml.safe_dump(plays, sort_keys=False))
    extra_vars = tmp_path / "extra_vars.yml"
    extra_vars.write_text(yaml.safe_dump(CALLER_VARS))
    for metadata_mode in ("zookeeper", "kraft"):
        proc = subprocess.run(
            [str(Path(sys.executable).parent / "ansible-playbook"), "-i", str(REPO / "inventories" / "lab"),
             str(playbook), "--tags", "only-validation", "--connection", "local", "--check",
             "-e", f"@{extra_vars}", "-e", f"kafka_metadata_mode={metadata_mode}"],
            cwd=REPO, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
        assert "Validating arguments against arg spec 'identity'" in proc.stdout
