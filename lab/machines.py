"""Booting and stopping lab hosts: `systemd-nspawn -b` from the base image through a per-host overlay,
in the host's network namespace, started in a session of its own so it outlives the command."""

import logging
import os
import pathlib
import signal
import socket
import subprocess
import time

import paramiko

from . import config, disks
from .shell import LabError

# While a host boots, sshd resets connections; paramiko would print each one as a traceback.
logging.getLogger("paramiko").setLevel(logging.CRITICAL)


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


def _init_pid_file(host):
    return run_dir(host) / "init.pid"


def parent_of(value):
    """The parent pid of a process, or None when it is gone."""
    try:
        return int(pathlib.Path(f"/proc/{value}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def remember_init(host):
    """Record the host's init (nspawn's child): if nspawn dies first, the init lives on in its own pid
    namespace, and killing it is what ends every process of the host."""
    nspawn = pid(host)
    for proc in pathlib.Path("/proc").glob("[0-9]*"):
        if nspawn is not None and parent_of(proc.name) == nspawn:
            _init_pid_file(host).write_text(proc.name)
            return


def _live_init(host):
    try:
        value = int(_init_pid_file(host).read_text())
        namespace = os.readlink(f"/proc/{value}/ns/pid")
    except (OSError, ValueError):
        return None
    return value if namespace != os.readlink("/proc/self/ns/pid") else None


def start(host, binds=()):
    """Boot the host from the base; binds: more systemd-nspawn --bind/--bind-ro options."""
    upper = run_dir(host) / "upper"
    upper.mkdir(parents=True, exist_ok=True)
    cmd = ["systemd-nspawn", "--quiet", "--register=no", "--keep-unit", "--boot",
           f"--directory={config.BASE}", f"--overlay={config.BASE}:{upper}:/",
           f"--network-namespace-path=/run/netns/{host.netns}", f"--machine={host.name}",
           "--console=passive"]
    if host.has_disk:
        cmd.append(f"--bind={disks.mount_point(host)}:{config.DATA_DISK_MOUNT}")
    cmd += binds
    with open(run_dir(host) / "console.log", "ab") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True)
    _pid_file(host).write_text(str(proc.pid))
    # Until the child has exec'd nspawn, pid() cannot tell it from a stale pid: wait for that.
    deadline = time.monotonic() + 10
    while pid(host) is None and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)


def stop(hosts, timeout=20):
    """Stop hosts together: SIGTERM makes nspawn shut each host's systemd down; what is still running
    after `timeout` seconds (a broker's controlled shutdown waits for peers that are going away too)
    is killed. Returns the names of the hosts that were running."""
    running = {h.name: (h, pid(h)) for h in hosts if pid(h) is not None}
    for _, value in running.values():
        os.kill(value, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while any(pid(h) is not None for h, _ in running.values()) and time.monotonic() < deadline:
        time.sleep(0.5)
    for host in hosts:  # also hosts whose nspawn died and left their init behind
        init = _live_init(host)
        if init is not None:
            os.kill(init, signal.SIGKILL)
    while any(pid(h) is not None for h, _ in running.values()):
        time.sleep(0.2)
    for host in hosts:
        _pid_file(host).unlink(missing_ok=True)
        _init_pid_file(host).unlink(missing_ok=True)
    return sorted(running)


def power_off(host, timeout=20):
    """Cut the host's power: every process dies at once, nothing shuts down cleanly (undo: up).

    SIGKILL to its init; a broker deregisters only when its ZooKeeper session expires."""
    remember_init(host)
    init = _live_init(host)
    if init is None:
        raise LabError(f"{host.name} is not running")
    os.kill(init, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    while pid(host) is not None:
        if time.monotonic() > deadline:
            raise LabError(f"{host.name}: systemd-nspawn did not exit {timeout}s after its init was killed")
        time.sleep(0.2)
    _pid_file(host).unlink(missing_ok=True)
    _init_pid_file(host).unlink(missing_ok=True)


def ssh(host, timeout=5):
    """A paramiko client logged in as root with the lab key."""
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect(host.address, username="root", key_filename=str(config.SSH_KEY), timeout=timeout,
                   banner_timeout=timeout, auth_timeout=timeout, allow_agent=False, look_for_keys=False)
    return client


def run_on(host, command):
    """Run a shell command on a lab host as root; its stdout, or LabError with its stderr."""
    with ssh(host) as client:
        _, out, err = client.exec_command(command, timeout=120)
        status = out.channel.recv_exit_status()
        if status != 0:
            raise LabError(f"{host.name}: `{command}` exited {status}: {err.read().decode().strip()}")
        return out.read().decode()


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
                remember_init(host)
                if states[name] == "degraded":
                    print(f"{name}: systemd is degraded (a unit failed); continuing", flush=True)
                del pending[name]
        if pending and time.monotonic() > deadline:
            waiting = ", ".join(f"{n} ({states.get(n) or 'no ssh'})" for n in pending)
            raise LabError(f"hosts not ready after {timeout}s: {waiting}")
        if pending:
            time.sleep(1)
