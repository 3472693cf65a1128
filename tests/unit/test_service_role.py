"""The service lifecycle the zookeeper, kafka_broker and kafka_controller roles share (roles/service), run by
ansible-playbook on this machine without the lab, through the roles' own entry points and handlers: one fake host
(ansible_connection local) running all three services, their config dirs in tmp_path, and a fake `systemctl` on
PATH that knows only each unit's start time (any other command fails, as for a unit systemd does not know)."""

import json
import os
import re
import stat
import subprocess
import sys
import time

import pytest

from lab.config import REPO

BIN = os.path.dirname(sys.executable)
SERVICES = {  # unit -> (role, config dir variable, fact set by restart_pending, what its mark says restarts it)
    "kafka.service": ("kafka_broker", "kafka_config_dir", "kafka_restart_pending",
                      "playbooks/kafka.yml restarts this broker"),
    "zookeeper.service": ("zookeeper", "zookeeper_config_dir", "zookeeper_restart_pending",
                          "playbooks/zookeeper.yml restarts this member"),
    "kafka-controller.service": ("kafka_controller", "kafka_controller_config_dir", "kafka_controller_restart_pending",
                                 "playbooks/kafka.yml restarts this controller"),
}
FAKE_SYSTEMCTL = """#!/bin/sh
# `systemctl show UNIT --property=ExecMainStartTimestamp --timestamp=unix --value`: UNIT.since next to this file
if [ "$1" = show ] && [ "$3" = --property=ExecMainStartTimestamp ]; then
  cat "$(dirname "$0")/$2.since" 2>/dev/null; exit 0
fi
echo "Unit $2 not found." >&2; exit 1
"""
# Reads each role's facts through its entry points (which load its handlers), optionally notifies a topic, and reads
# them again: what playbooks/*.yml and the roles' service.yml see.
READ_PLAYBOOK = """\
- name: Read, change, read again
  hosts: all
  gather_facts: false
  tasks:
    - name: Read what the broker runs
      ansible.builtin.import_role: {name: kafkaops.toolkit.kafka_broker, tasks_from: running_config}
    - name: Read what the member runs
      ansible.builtin.import_role: {name: kafkaops.toolkit.zookeeper, tasks_from: running_config}
    - name: Read whether the controller waits for a restart
      ansible.builtin.import_role: {name: kafkaops.toolkit.kafka_controller, tasks_from: restart_pending}
    - name: Show before
      ansible.builtin.debug:
        msg: {kafka: "{{ kafka_restart_pending }}", zookeeper: "{{ zookeeper_restart_pending }}",
              controller: "{{ kafka_controller_restart_pending }}"}
    - name: Change files
      ansible.builtin.debug: {msg: "{{ topic }}"}
      changed_when: true
      notify: "{{ topic }}"
      when: topic | length > 0
    - name: Mark as configure.yml does
      ansible.builtin.meta: flush_handlers
    - name: Read the broker again
      ansible.builtin.include_role: {name: kafkaops.toolkit.kafka_broker, tasks_from: running_config}
    - name: Read the member again
      ansible.builtin.include_role: {name: kafkaops.toolkit.zookeeper, tasks_from: running_config}
    - name: Read the controller again
      ansible.builtin.include_role: {name: kafkaops.toolkit.kafka_controller, tasks_from: restart_pending}
    - name: Show after
      ansible.builtin.debug:
        msg: {kafka: "{{ kafka_restart_pending }}", zookeeper: "{{ zookeeper_restart_pending }}",
              controller: "{{ kafka_controller_restart_pending }}", kafka_running_config: "{{ kafka_running_config }}",
              zookeeper_running_config: "{{ zookeeper_running_config }}"}
"""
# The controller's service.yml after its files changed, as its main.yml runs it (configure.yml registered the unit).
SERVICE_PLAYBOOK = """\
- name: Start the controller after a change
  hosts: all
  gather_facts: false
  tasks:
    - name: Load the role's handlers
      ansible.builtin.import_role: {name: kafkaops.toolkit.kafka_controller, tasks_from: restart_pending}
    - name: Change files
      ansible.builtin.debug: {msg: changed}
      changed_when: true
      notify: kafka controller files changed
    - name: Mark as configure.yml does
      ansible.builtin.meta: flush_handlers
    - name: Enable and start it
      ansible.builtin.import_role: {name: kafkaops.toolkit.kafka_controller, tasks_from: service}
      vars:
        _kafka_controller_unit: {changed: false}
    - name: Show after
      ansible.builtin.debug:
        msg: {controller: "{{ kafka_controller_restart_pending }}"}
"""

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the roles write the mark owned by root, as on a host")


@pytest.fixture
def host(tmp_path):
    """The fake host's dirs: config files as the roles write them, and each unit started 1000 s ago."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "systemctl").write_text(FAKE_SYSTEMCTL)
    (tmp_path / "bin" / "systemctl").chmod(0o755)
    for unit, (role, *_) in SERVICES.items():
        (tmp_path / role).mkdir()
        started(tmp_path, unit, -1000)
    (tmp_path / "kafka_broker" / "server.properties").write_text(
        "listeners=PLAINTEXT://0.0.0.0:9092\nlog.dirs=/var/lib/kafka\nsasl.jaas.config=secret\n")
    (tmp_path / "zookeeper" / "zoo.cfg").write_text("clientPort=2181\ndataDir=/var/lib/zookeeper\n")
    return tmp_path


def started(tmp_path, unit, seconds_from_now):
    (tmp_path / "bin" / f"{unit}.since").write_text(f"@{time.time() + seconds_from_now:.0f}\n")


def mark(tmp_path, unit):
    return tmp_path / SERVICES[unit][0] / "restart-pending"


def run(tmp_path, playbook, *, check=False, fails=False, **extra_vars):
    """ansible-playbook on the fake host; what its "Show ..." tasks showed, by task name (with fails, the run must
    fail: the names of its failed tasks)."""
    host_vars = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
                 "kafka_pki_dir": str(tmp_path / "pki"),  # required by every inventory; the kit's logins live in it
                 **{var: str(tmp_path / role) for role, var, *_ in SERVICES.values()}}
    (tmp_path / "inventory.yml").write_text(json.dumps({"all": {"hosts": {"node": host_vars}}}))
    (tmp_path / "play.yml").write_text(playbook)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_STDOUT_CALLBACK="ansible.posix.json",
               ANSIBLE_NOCOLOR="1", PATH=f"{tmp_path / 'bin'}{os.pathsep}{BIN}{os.pathsep}{env.get('PATH', '')}")
    args = [os.path.join(BIN, "ansible-playbook"), "-i", "inventory.yml", "play.yml", "-e", json.dumps(extra_vars)]
    proc = subprocess.run(args + (["--check"] if check else []), cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    if fails:
        assert proc.returncode != 0
        return [task["task"]["name"] for play in json.loads(proc.stdout)["plays"] for task in play["tasks"]
                if any(outcome.get("failed") for outcome in task["hosts"].values())]
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    plays = json.loads(proc.stdout)["plays"]
    return {task["task"]["name"]: outcome["msg"] for play in plays for task in play["tasks"]
            if task["task"]["name"].startswith("Show ") for outcome in task["hosts"].values()}


def test_a_change_marks_only_its_own_service_and_the_mark_lasts_until_the_service_restarts(host):
    shown = run(host, READ_PLAYBOOK, topic="zookeeper files changed")
    assert shown["Show before"] == {"kafka": False, "zookeeper": False, "controller": False}
    after = shown["Show after"]
    assert (after["kafka"], after["zookeeper"], after["controller"]) == (False, True, False)
    # secure_cluster.yml's plan: the plan's keys only (no secret), and the restart pending
    assert after["kafka_running_config"] == {"config": {"listeners": "PLAINTEXT://0.0.0.0:9092"},
                                             "restart_pending": False}
    assert after["zookeeper_running_config"] == {"config": {"clientPort": "2181"}, "restart_pending": True}

    written = mark(host, "zookeeper.service")
    assert re.fullmatch(r"files changed at \d{4}-\d\d-\d\dT[\d:.]+; playbooks/zookeeper\.yml restarts this member\n",
                        written.read_text())
    assert stat.S_IMODE(written.stat().st_mode) == 0o644 and written.stat().st_uid == 0
    assert not mark(host, "kafka.service").exists() and not mark(host, "kafka-controller.service").exists()

    # A later run with nothing to change still sees the mark newer than the member's start...
    assert run(host, READ_PLAYBOOK, topic="")["Show before"] == {"kafka": False, "zookeeper": True, "controller": False}

    # ...until it (re)started after the mark, by whatever means. A new distribution marks every service, each with
    # the playbook that restarts it.
    started(host, "zookeeper.service", +1000)
    shown = run(host, READ_PLAYBOOK, topic="kafka distribution changed")
    assert shown["Show before"] == {"kafka": False, "zookeeper": False, "controller": False}
    after = shown["Show after"]
    assert (after["kafka"], after["zookeeper"], after["controller"]) == (True, True, True)
    for unit, (_, _, _, note) in SERVICES.items():
        assert mark(host, unit).read_text().endswith(f"; {note}\n")


def test_check_mode_marks_nothing_and_only_check_mode_runs_on_past_a_unit_systemd_does_not_know(host):
    # A new host in check mode: the unit file is not written, so systemd cannot start it; the run goes on, writes no
    # mark, and shows the controller whose files changed, and which this run did not start, waiting for a restart.
    assert run(host, SERVICE_PLAYBOOK, check=True)["Show after"] == {"controller": True}
    assert not any(mark(host, unit).exists() for unit in SERVICES)
    assert [name for name in run(host, SERVICE_PLAYBOOK, fails=True) if "Enable" in name] != []
