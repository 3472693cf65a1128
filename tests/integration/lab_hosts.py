"""Commands on lab hosts over SSH (paramiko, the lab's key), for the integration tests."""

from lab import machines


def ssh_run(host, command):
    """Run a command on a lab host as root; returns its stdout (fails the test on a non-zero exit)."""
    with machines.ssh(host) as client:
        _, out, err = client.exec_command(command, timeout=120)
        status = out.channel.recv_exit_status()
        output = out.read().decode()
        assert status == 0, f"{host.name}: {command} exited {status}: {err.read().decode()}"
    return output


def service_starts(hosts, unit):
    """Per host, (main pid, start time in the kernel's monotonic µs, shared by all lab hosts) of a unit:
    any restart changes it, and later starts compare greater."""
    starts = {}
    for h in hosts:
        show = f"systemctl show -p ExecMainPID -p ExecMainStartTimestampMonotonic --value {unit}"
        pid, started = ssh_run(h, show).split()
        starts[h.name] = (int(pid), int(started))
    return starts
