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
    """Per host, the pid and start time of a unit's main process: any restart changes it."""
    return {h.name: ssh_run(h, f"systemctl show -p ExecMainPID -p ExecMainStartTimestamp --value {unit}")
            for h in hosts}
