"""Marks a playbook run on the validator's timeline: its span, and the span of each task tagged `timeline`
(a phase: fencing a broker, catching up, ...) from its start to its first host's result, appended to the file
named by KAFKAOPS_TIMELINE_MARKS (format: canary/marks.py). Without that variable it does nothing."""

# ruff: noqa: E402 - an Ansible plugin's DOCUMENTATION comes before its imports (ansible-test validate-modules)

DOCUMENTATION = """
name: timeline_marks
type: notification
short_description: Mark a playbook's span and phases for the recovery validator's timeline
description:
  - Appends JSON lines {"at", "label"[, "until"]} to the file named by KAFKAOPS_TIMELINE_MARKS, read by
    spark/validate_recovery.py --marks. Tasks tagged C(timeline) are the phases marked.
requirements:
  - enable in ansible.cfg (callbacks_enabled)
"""

import json
import os
import time

from ansible.plugins.callback import CallbackBase

PHASE_TAG = "timeline"


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "notification"
    CALLBACK_NAME = "kafkaops.toolkit.timeline_marks"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.path = os.environ.get("KAFKAOPS_TIMELINE_MARKS")
        self.playbook, self.started = None, None
        self.phases = {}  # task uuid -> when it started, until its first result

    def _mark(self, label, at, until=None):
        if not self.path:
            return
        mark = {"at": at, "label": label, **({} if until is None else {"until": until})}
        with open(self.path, "a", encoding="utf-8") as marks:
            marks.write(json.dumps(mark) + "\n")

    def v2_playbook_on_start(self, playbook):
        self.playbook, self.started = os.path.basename(playbook._file_name), time.time()

    def v2_playbook_on_task_start(self, task, is_conditional):
        if PHASE_TAG in task.tags:
            self.phases[task._uuid] = time.time()

    def _phase_done(self, result, outcome=""):
        started = self.phases.pop(result._task._uuid, None)
        if started is not None:  # the result's task has its name templated with the host's variables
            self._mark(f"{self.playbook}: {result._task.get_name().strip()}{outcome}", started, time.time())

    def v2_runner_on_ok(self, result):
        self._phase_done(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._phase_done(result, " (failed)")

    def v2_playbook_on_stats(self, stats):
        failed = any(stats.failures.values()) or any(stats.dark.values())
        self._mark(f"{self.playbook}{' (failed)' if failed else ''}", self.started, time.time())
