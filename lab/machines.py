"""Booting and stopping lab hosts: `systemd-nspawn -b` from the base image through a per-host overlay,
in the host's network namespace, started in a session of its own so it outlives the command."""

import os
import pathlib
import signal
import socket
import subprocess
import time

import paramiko

from . import config, disks
from .shell import LabError


def run_dir(host):
    return config.RUN / host.name


def _pid_file(host):
    return run_dir(host) / "nspawn.pid"


def pid(host):
    """The pid of the host's nspawn process, or None when it is not running."""
    try:
        value = int(_pid_file(host).read_text())
        cmdline = pathlib.Path(f"/proc/{value}/cmdline").read_bytes().split(b"\0")
    except (FileNotFoundError, ValueError):
        return None
    if b"systemd-nspawn" in cmdline[0] and f"--machine={host.name}".encode() in cmdline:
        return value
    return None


def start(host):
    upper = run_dir(host) / "upper"
    upper.mkdir(parents=True, exist_ok=True)
    cmd = ["systemd-nspawn", "--quiet", "--register=no", "--keep-unit", "--boot",
           f"--directory={config.BASE}", f"--overlay={config.BASE}:{upper}:/",
           f"--network-namespace-path=/run/netns/{host.netns}", f"--machine={host.name}",
           "--console=passive"]
    if host.has_disk:
        cmd.append(f"--bind={disks.mount_point(host)}:{config.DATA_DISK_MOUNT}")
    with open(run_dir(host) / "console.log", "ab") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True)
    _pid_file(host).write_text(str(proc.pid))


def stop(host, timeout=60):
    """SIGTERM makes nspawn shut the host's systemd down cleanly; SIGKILL if it takes too long."""
    value = pid(host)
    if value is None:
        return False
    os.kill(value, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while pid(host) is not None and time.monotonic() < deadline:
        time.sleep(0.5)
    if pid(host) is not None:
        os.kill(value, signal.SIGKILL)
        time.sleep(1)
    _pid_file(host).unlink(missing_ok=True)
    return True


def ssh(host, timeout=5):
    """A paramiko client logged in as root with the lab key."""
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect(host.address, username="root", key_filename=str(config.SSH_KEY), timeout=timeout,
                   banner_timeout=timeout, auth_timeout=timeout, allow_agent=False, look_for_keys=False)
    return client


def system_state(host):
    """systemd's state inside the host ('running', 'starting', ...), or None while sshd does not answer."""
    try:
        with ssh(host, timeout=2) as client:
            _, out, _ = client.exec_command("systemctl is-system-running", timeout=5)
            return out.read().decode().strip() or "unknown"
    except (OSError, socket.timeout, paramiko.SSHException):
        return None


def wait_ready(hosts, timeout=180):
    """Wait until every host's systemd is up and sshd answers."""
    pending = {h.name: h for h in hosts}
    deadline = time.monotonic() + timeout
    states = {}
    while pending:
        for name, host in list(pending.items()):
            if pid(host) is None:
                raise LabError(f"{name}: systemd-nspawn exited; see {run_dir(host) / 'console.log'}")
            states[name] = system_state(host)
            # 'degraded' means booted with a failed unit: still a host we can deploy to; say so.
            if states[name] in ("running", "degraded"):
                if states[name] == "degraded":
                    print(f"{name}: systemd is degraded (a unit failed); continuing", flush=True)
                del pending[name]
        if pending and time.monotonic() > deadline:
            waiting = ", ".join(f"{n} ({states.get(n) or 'no ssh'})" for n in pending)
            raise LabError(f"hosts not ready after {timeout}s: {waiting}")
        if pending:
            time.sleep(1)
