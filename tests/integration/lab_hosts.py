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
        # key=value lines: systemctl prints properties in its own order, not in the order asked
        shown = ssh_run(h, f"systemctl show -p ExecMainPID -p ExecMainStartTimestampMonotonic {unit}")
        values = dict(line.split("=", 1) for line in shown.split())
        starts[h.name] = (int(values["ExecMainPID"]), int(values["ExecMainStartTimestampMonotonic"]))
    return starts
