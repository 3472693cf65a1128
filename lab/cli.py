"""`python -m lab up|down|status`, and `python -m lab poweroff HOST` (a host's power cut; `up` boots it
again)."""

import argparse
import shutil
import sys
import time

from . import base, config, disks, machines, network
from .shell import LabError


def up(hosts):
    started = time.monotonic()
    base.ensure_base()
    public_key = base.ensure_ssh_key()
    to_boot = [h for h in hosts if machines.pid(h) is None]
    if not to_boot:
        print("lab is up: all hosts running")
        return
    machines.stop(to_boot)  # what is left of them after a killed lab: a dead nspawn's init
    if len(to_boot) == len(hosts):
        # Nothing runs from the base, so it is safe to (re)write what hosts read from it.
        base.write_host_files(hosts, public_key)
    network.ensure_bridge(config.bridge_address(hosts))
    for host in to_boot:
        network.ensure_netns(host)
        if host.has_disk:
            disks.ensure(host)
        machines.start(host)
    print(f"booting {', '.join(h.name for h in to_boot)}...", flush=True)
    machines.wait_ready(to_boot)
    print(f"lab is up in {time.monotonic() - started:.1f}s")
    status(hosts)


def down(hosts):
    started = time.monotonic()
    stopped = machines.stop(hosts)
    if stopped:
        print(f"stopped {', '.join(stopped)}", flush=True)
    network.teardown()
    disks.teardown()
    shutil.rmtree(config.RUN, ignore_errors=True)
    shutil.rmtree(config.DISKS, ignore_errors=True)
    print(f"lab is down in {time.monotonic() - started:.1f}s (base image kept in {config.BASE})")


def status(hosts):
    print(f"{'host':<8} {'address':<14} {'groups':<24} {'nspawn':<8} systemd")
    for host in hosts:
        running = machines.pid(host) is not None
        state = (machines.system_state(host) or "no ssh") if running else "-"
        print(f"{host.name:<8} {host.address:<14} {','.join(host.groups):<24} "
              f"{'running' if running else 'stopped':<8} {state}")


def poweroff(hosts, name):
    machines.power_off(_host(hosts, name))
    print(f"{name} is powered off (`python -m lab up` boots it again)")


def _host(hosts, name):
    for host in hosts:
        if host.name == name:
            return host
    raise LabError(f"no lab host {name!r}; hosts: {', '.join(h.name for h in hosts)}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m lab", description=__doc__)
    parser.add_argument("command", choices=["up", "down", "status", "poweroff"])
    parser.add_argument("host", nargs="?", help="the host, for poweroff")
    args = parser.parse_args(argv)
    hosts = config.load_hosts()
    try:
        if args.command == "poweroff":
            if not args.host:
                parser.error("poweroff needs a HOST")
            poweroff(hosts, args.host)
        else:
            {"up": up, "down": down, "status": status}[args.command](hosts)
    except LabError as exc:
        print(f"lab {args.command} failed: {exc}", file=sys.stderr)
        return 1
    return 0
