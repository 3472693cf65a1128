"""Ansible run as the operator runs it, for every runner of the kit (lab, tests, benchmarks, demo): the repo's
ansible.cfg, and the venv's `ansible-playbook` found without an activated venv (`.venv/bin/python -m lab ...`
from a fresh clone)."""

import json
import os
import signal
import subprocess
import sys
import time

from .config import REPO

CONFIG = REPO / "ansible.cfg"
# The bin dir of the Python running this, where pip put `ansible-playbook` next to the ansible it imports.
BIN = os.path.dirname(sys.executable)
# For output a program reads (captured, parsed): no colour codes.
NO_COLOR = {"ANSIBLE_FORCE_COLOR": "0", "ANSIBLE_NOCOLOR": "1"}


def environment(base=None, **extra):
    """The operator's environment: base (default: this process's environment) with ANSIBLE_CONFIG set to the
    repo's ansible.cfg, the venv's bin dir first on PATH, and extra on top."""
    found = dict(os.environ if base is None else base)
    path = found.get("PATH", os.defpath).split(os.pathsep)
    if sys.prefix != sys.base_prefix:  # a venv's bin dir only: a system Python's would shadow the operator's tools
        path = [BIN] + [p for p in path if p != BIN]
    return found | {"ANSIBLE_CONFIG": str(CONFIG), "PATH": os.pathsep.join(path)} | extra


def command(playbook, *args, extra_vars=None, check=False):
    """The ansible-playbook command line: the playbook (a path from the working dir), args as given, each extra
    var as `-e key=value` (JSON when the value is not one plain word, so that it arrives whole and typed), and
    --check."""
    cmd = ["ansible-playbook", str(playbook), *args]
    for key, value in (extra_vars or {}).items():
        value = os.fspath(value) if isinstance(value, os.PathLike) else value
        plain = isinstance(value, str) and value and not any(c.isspace() or c in "'\"\\" for c in value)
        cmd += ["-e", f"{key}={value}" if plain else json.dumps({key: value})]
    return cmd + (["--check"] if check else [])


def run(cmd, *, env=None, cwd=REPO, capture=True, timeout=None):
    """Run an Ansible command (ansible-playbook, ansible, or another the operator runs beside them) in the
    operator's environment (default: environment()), from cwd; captured as text unless capture is false. Returns the
    CompletedProcess, whatever its exit status."""
    return subprocess.run(cmd, cwd=cwd, env=environment() if env is None else env, capture_output=capture,
                          text=True, timeout=timeout)


def playbook(path, *args, extra_vars=None, check=False, env=None, cwd=REPO, capture=True, timeout=None):
    """Run a playbook as the operator: command() run by run(). Returns the CompletedProcess."""
    return run(command(path, *args, extra_vars=extra_vars, check=check), env=env, cwd=cwd, capture=capture,
               timeout=timeout)


def start_until(cmd, log, line, timeout=300):
    """Start an Ansible command in the operator's environment (no colour), its output to the file log, and return
    the process once log shows line (looked for every 50 ms, so a signal lands close to it). The process leads its
    own process group, for signals to the whole run."""
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, env=environment(**NO_COLOR), stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    deadline = time.monotonic() + timeout
    while line not in log.read_text():
        ended = proc.poll() is not None
        if ended or time.monotonic() > deadline:
            if not ended:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            raise AssertionError(f"{' '.join(cmd)} {'ended' if ended else 'killed after ' + str(timeout) + ' s'} "
                                 f"before its output showed {line!r}: {log.read_text()[-3000:]}")
        time.sleep(0.05)
    return proc


def killed_at(cmd, log, line, timeout=300):
    """Run an Ansible command and kill it with SIGKILL, its whole process group, once its output shows line (the
    controller dies: no always section or handler runs). Returns its output."""
    proc = start_until(cmd, log, line, timeout)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return log.read_text()
