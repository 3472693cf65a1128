"""Marks for the validator's timeline: the file format (canary/marks.py) and the timeline_marks callback that
marks a playbook's span and its phases (tasks tagged `timeline`), run through ansible-playbook."""

import json
import os

import pytest

from canary.marks import PLAYBOOK_MARKS, add_mark, read_marks
from lab import ansible

PLAYBOOK = """
- name: Phases
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Pick the host
      ansible.builtin.set_fact:
        who: kafka9
    - name: "Fence: {{ who }}"
      tags: timeline
      ansible.builtin.command: sleep 1
      changed_when: false
    - name: Not a phase
      ansible.builtin.debug:
        msg: nothing
"""


def test_marks_are_read_back_in_time_order(tmp_path):
    path = tmp_path / "marks.jsonl"
    add_mark(path, "healed", at=20.0)
    add_mark(path, "fault", at=10.0, until=15.5)
    assert read_marks(path) == [{"at": 10.0, "label": "fault", "until": 15.5}, {"at": 20.0, "label": "healed"}]


def test_a_line_that_is_not_a_mark_is_named(tmp_path):
    path = tmp_path / "marks.jsonl"
    path.write_text('{"at": 1, "label": "a"}\n\n{"at": "soon", "label": "b"}\n')
    with pytest.raises(ValueError, match="line 3 is not a mark"):
        read_marks(path)


def test_the_callback_marks_the_playbook_and_its_tagged_tasks(tmp_path):
    (tmp_path / "phases.yml").write_text(PLAYBOOK)
    marks = tmp_path / "marks.jsonl"
    proc = ansible.playbook(tmp_path / "phases.yml", env=ansible.environment(**{PLAYBOOK_MARKS: str(marks)}),
                            timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]
    phase, playbook = (json.loads(line) for line in marks.read_text().splitlines())
    assert (phase["label"], playbook["label"]) == ("phases.yml: Fence: kafka9", "phases.yml")
    assert phase["until"] - phase["at"] >= 1  # the task's span: it slept a second
    assert playbook["at"] <= phase["at"] < phase["until"] <= playbook["until"]


def test_the_callback_writes_nothing_without_a_marks_file(tmp_path):
    (tmp_path / "phases.yml").write_text(PLAYBOOK)
    env = ansible.environment({k: v for k, v in os.environ.items() if k != PLAYBOOK_MARKS})
    proc = ansible.playbook(tmp_path / "phases.yml", env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert list(tmp_path.iterdir()) == [tmp_path / "phases.yml"]
