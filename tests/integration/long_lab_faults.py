"""The lab's fault commands (python -m lab FAULT HOST ...) on the lab: each fault shows on the host, and
its opposite (or heal) takes it away. The brokers are healthy again at the end."""

import subprocess
import sys

import pytest
from lab_hosts import ssh_run

from lab import config
from lab.config import REPO


def _lab(*args):
    proc = subprocess.run([sys.executable, "-m", "lab", *args], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _reaches(host, peer, port):
    """Whether host opens a TCP connection to peer:port within 2 s."""
    probe = (f"python3 -c 'import socket; socket.create_connection((\"{peer.address}\", {port}), 2)' "
             "2>/dev/null && echo yes || echo no")
    return ssh_run(host, probe).strip() == "yes"


def _jvm(host, service):
    pid = ssh_run(host, f"systemctl show -p MainPID --value {service}").strip()
    state = ssh_run(host, f"awk '{{print $3}}' /proc/{pid}/stat 2>/dev/null || echo -").strip()
    return int(pid), state


@pytest.fixture(autouse=True, scope="module")
def healthy_brokers_afterwards(run_module, bootstrap_servers, zookeeper_connect):
    yield
    _lab("heal")
    for broker_id in (1, 2, 3):
        result = run_module("kafka_broker_wait_healthy", broker_id=broker_id, wait_timeout=300,
                            bootstrap_servers=bootstrap_servers, zookeeper_connect=zookeeper_connect)
        assert not result["failed"], result.get("msg")


def test_kill_ends_the_jvm_and_systemd_starts_a_new_one():
    kafka3 = config.host("kafka3")
    before, _ = _jvm(kafka3, "kafka")
    _lab("kill", "kafka3", "kafka")
    _lab("start", "kafka3", "kafka")
    after, state = _jvm(kafka3, "kafka")
    assert after not in (0, before) and state != "-"


def test_pause_stops_the_jvm_and_resume_continues_it():
    zk3 = config.host("zk3")
    pid, _ = _jvm(zk3, "zookeeper")
    _lab("pause", "zk3", "zookeeper")
    assert _jvm(zk3, "zookeeper") == (pid, "T")
    _lab("resume", "zk3", "zookeeper")
    assert _jvm(zk3, "zookeeper")[0] == pid and _jvm(zk3, "zookeeper")[1] != "T"


def test_cut_drops_traffic_to_the_given_hosts_only_and_connect_restores_it():
    kafka1, zk1, zk2 = config.host("kafka1"), config.host("zk1"), config.host("zk2")
    _lab("cut", "kafka1", "--from", "zk1")
    assert not _reaches(kafka1, zk1, 2182) and _reaches(kafka1, zk2, 2182)
    _lab("connect", "kafka1")
    assert _reaches(kafka1, zk1, 2182)
    _lab("cut", "kafka1")
    assert not _reaches(kafka1, zk2, 2182) and not _reaches(kafka1, config.host("kafka2"), 9093)
    assert ssh_run(kafka1, "echo still reached from the controller").strip()
    _lab("heal")
    assert _reaches(kafka1, zk2, 2182) and _reaches(kafka1, config.host("kafka2"), 9093)


def _qdisc(host):
    command = ["ip", "netns", "exec", host.netns, "tc", "qdisc", "show", "dev", "eth0"]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def test_slow_limits_the_interface_and_unslow_lifts_it():
    kafka2 = config.host("kafka2")
    _lab("slow", "kafka2", "--rate", "2mbit")
    assert "tbf" in _qdisc(kafka2) and "rate 2Mbit" in _qdisc(kafka2)
    _lab("unslow", "kafka2")
    assert "tbf" not in _qdisc(kafka2)


def test_fill_takes_the_free_space_and_unfill_gives_it_back():
    kafka2 = config.host("kafka2")
    free = "df -B1 --output=avail /var/lib/kafka | tail -1"
    before = int(ssh_run(kafka2, free))
    _lab("fill", "kafka2")
    assert int(ssh_run(kafka2, free)) < 1024 * 1024
    _lab("unfill", "kafka2")
    assert int(ssh_run(kafka2, free)) >= before - 64 * 1024 * 1024


def _write_probe(host):
    """Whether a file can be written on the host's data filesystem, and the error when not."""
    # The shell reports a failed redirection on its own stderr: group the commands to catch it.
    probe = "{ echo x > /var/lib/kafka/lab-probe && sync && echo written; } 2>&1 || true"
    return ssh_run(host, probe).strip()


@pytest.mark.parametrize("fault, error", [("readonly", "Read-only file system"),
                                          ("unplug", "Input/output error")])
def test_a_failed_data_filesystem_refuses_writes_until_repaired(fault, error):
    kafka4 = config.host("kafka4")  # the spare: no broker to disturb
    assert _write_probe(kafka4) == "written"
    _lab(fault, "kafka4")
    assert error in _write_probe(kafka4)
    _lab("repair", "kafka4")  # power off, e2fsck, a fresh mount, boot
    assert _write_probe(kafka4) == "written"
    assert ssh_run(kafka4, "cat /var/lib/kafka/lab-probe").strip() == "x"
    ssh_run(kafka4, "rm -f /var/lib/kafka/lab-probe")
