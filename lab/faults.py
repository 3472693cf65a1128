"""Faults to inject into lab hosts, each with its opposite, and heal() that undoes them all.

Process faults go through systemd inside the host (over SSH); network faults are iptables rules and a tc
qdisc in the host's network namespace, set from the controller; disk faults act on the host's data
filesystem from the controller (lab/disks.py).
"""

from . import config, disks, machines
from .machines import run_on
from .shell import LabError, run

SERVICES = ("kafka", "zookeeper", "kafka-controller")
CHAIN = "LAB-FAULT"  # the host's own iptables chain, jumped to from INPUT and OUTPUT
FILL_FILE = f"{config.DATA_DISK_MOUNT}/lab-fill"


def _service(name):
    if name not in SERVICES:
        raise LabError(f"service must be one of {', '.join(SERVICES)}, not {name!r}")
    return name


def _signal(host, service, signal):
    # To the main process only: systemd in the lab's containers cannot signal a whole unit. MainPID is 0
    # while the service is down, and `kill 0` would signal the SSH session itself: refuse instead.
    name = _service(service)
    run_on(host, f"pid=$(systemctl show -p MainPID --value {name}); if [ \"$pid\" = 0 ]; then "
                 f"echo '{name} is not running' >&2; exit 1; fi; kill -s {signal} $pid")


def kill(host, service):
    """SIGKILL the service's JVM (systemd starts it again after its RestartSec; or: start)."""
    _signal(host, service, "KILL")


def stop(host, service):
    """Stop the service cleanly, through systemd (undo: start)."""
    run_on(host, f"systemctl stop {_service(service)}")


def start(host, service):
    """Start the service (after kill or stop)."""
    run_on(host, f"systemctl start {_service(service)}")


def pause(host, service):
    """SIGSTOP the service's JVM: it keeps its sockets and sessions, answers nothing (undo: resume)."""
    _signal(host, service, "STOP")


def resume(host, service):
    """SIGCONT the service's JVM."""
    _signal(host, service, "CONT")


def _in_netns(host, *command, check=True):
    return run("ip", "netns", "exec", host.netns, *command, check=check)


def _ensure_chain(host):
    if _in_netns(host, "iptables", "-n", "-L", CHAIN, check=False).returncode != 0:
        _in_netns(host, "iptables", "-N", CHAIN)
        _in_netns(host, "iptables", "-I", "INPUT", "-j", CHAIN)
        _in_netns(host, "iptables", "-I", "OUTPUT", "-j", CHAIN)


def cut(host, peers):
    """Drop all traffic between the host and the given lab hosts (undo: connect).

    The controller, and so the clients and Ansible, still reach it."""
    _ensure_chain(host)
    for peer in peers:
        if peer.name != host.name:
            _in_netns(host, "iptables", "-A", CHAIN, "-s", peer.address, "-j", "DROP")
            _in_netns(host, "iptables", "-A", CHAIN, "-d", peer.address, "-j", "DROP")


def block_to(host, peers, port):
    """Drop what the host sends to the given lab hosts' TCP port: its connections there fail, theirs to it still work
    (undo: connect)."""
    _ensure_chain(host)
    for peer in peers:
        if peer.name != host.name:
            _in_netns(host, "iptables", "-A", CHAIN, "-d", peer.address, "-p", "tcp", "--dport", str(port),
                      "-j", "DROP")


def refuse_ssh(host):
    """Refuse SSH connections to the host, as from a hung machine whose services still run (undo: connect)."""
    _ensure_chain(host)
    _in_netns(host, "iptables", "-A", CHAIN, "-p", "tcp", "--dport", "22", "-j", "REJECT", "--reject-with", "tcp-reset")


def connect(host):
    """Remove every drop and refuse rule of the host."""
    if _in_netns(host, "iptables", "-n", "-L", CHAIN, check=False).returncode == 0:
        _in_netns(host, "iptables", "-F", CHAIN)


def slow(host, rate="1mbit"):
    """Limit what the host sends (tc tbf on its interface; undo: unslow)."""
    _in_netns(host, "tc", "qdisc", "replace", "dev", "eth0", "root", "tbf", "rate", rate,
              "burst", "32kbit", "latency", "400ms")


def unslow(host):
    """Remove the limit."""
    _in_netns(host, "tc", "qdisc", "del", "dev", "eth0", "root", check=False)


def _require_disk(host):
    if not host.has_disk:
        raise LabError(f"{host.name} has no data disk of its own")


def fill(host, leave=0):
    """Take every free byte of the host's data filesystem but `leave` bytes (undo: unfill)."""
    _require_disk(host)
    run_on(host, f"fallocate -l $(( $(df -B1 --output=avail {config.DATA_DISK_MOUNT} | tail -1) - {int(leave)} )) "
              f"{FILL_FILE} || true; sync")


def unfill(host):
    """Free it again."""
    _require_disk(host)
    run_on(host, f"rm -f {FILL_FILE}")


def read_only(host):
    """Turn the host's data filesystem read-only, as ext4 does after a disk error (undo: repair)."""
    _require_disk(host)
    disks.make_read_only(host)


def unplug(host):
    """Take the host's data filesystem away: every read and write fails with EIO (undo: repair)."""
    _require_disk(host)
    disks.take_away(host)


def repair(host):
    """Power the host off, check and remount its data filesystem, boot it again.

    A filesystem that went read-only or away can be written again only after it is unmounted and
    checked; the host's bind mount holds it until the host is off."""
    _require_disk(host)
    if machines.pid(host) is not None:
        machines.power_off(host)
    disks.repair(host)
    machines.start(host)
    machines.wait_ready([host])


def heal(hosts):
    """Undo every fault on every running host: failed data filesystems (repair), network rules and
    limits, filled disks, paused JVMs. (Powered-off hosts are booted by `lab up`; killed services
    restart by themselves.)"""
    for host in hosts:
        if machines.pid(host) is None:
            continue
        if host.has_disk and disks.failed(host):
            repair(host)
        connect(host)
        unslow(host)
        if host.has_disk:
            unfill(host)
        for service in SERVICES:
            run_on(host, f"kill -s CONT $(systemctl show -p MainPID --value {service}) 2>/dev/null; true")
