"""Running host-side commands, with the failing command and its output in the error."""

import subprocess


class LabError(Exception):
    """A lab step failed; the message says which and why."""


def run(*cmd, check=True):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        detail = (proc.stderr or proc.stdout or "").strip()
        raise LabError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{detail}")
    return proc


def succeeds(*cmd):
    return subprocess.run(cmd, capture_output=True).returncode == 0
