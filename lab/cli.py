"""`python -m lab up|down|status`, and the faults: `python -m lab FAULT HOST [...]`, each undone by its
opposite or by `python -m lab heal` (see `python -m lab --help`)."""

import argparse
import pathlib
import shutil
import sys
import time

from . import base, cluster_settings, config, disks, faults, legacy, machines, names, network, receiver, spark
from .shell import LabError


def up(hosts):
    started = time.monotonic()
    base.ensure_base()
    public_key = base.ensure_ssh_key()
    to_boot = [h for h in hosts if machines.pid(h) is None]
    if not to_boot:
        receiver.start(config.bridge_address(hosts).split("/")[0])
        print("lab is up: all hosts running")
        return
    machines.stop(to_boot)  # what is left of them after a killed lab: a dead nspawn's init
    if len(to_boot) == len(hosts):
        # Nothing runs from the base, so it is safe to (re)write what hosts read from it.
        base.write_host_files(hosts + spark.HOSTS, public_key)
    network.ensure_bridge(config.bridge_address(hosts))
    names.add_to_controller(hosts + spark.HOSTS)
    for host in to_boot:
        network.ensure_netns(host)
        if host.has_disk:
            disks.ensure(host)
        machines.start(host)
    print(f"booting {', '.join(h.name for h in to_boot)}...", flush=True)
    machines.wait_ready(to_boot)
    receiver.start(config.bridge_address(hosts).split("/")[0])  # Alertmanager's notifications (lab/receiver.py)
    print(f"lab is up in {time.monotonic() - started:.1f}s")
    status(hosts)


def down(hosts):
    started = time.monotonic()
    receiver.stop()
    stopped = machines.stop(hosts + spark.HOSTS)
    if stopped:
        print(f"stopped {', '.join(stopped)}", flush=True)
    network.teardown()
    names.remove_from_controller()
    disks.teardown()
    shutil.rmtree(config.RUN, ignore_errors=True)
    shutil.rmtree(config.DISKS, ignore_errors=True)
    shutil.rmtree(config.PKI, ignore_errors=True)  # a fresh lab gets a fresh CA and certificates (365 days)
    print(f"lab is down in {time.monotonic() - started:.1f}s (base image kept in {config.BASE})")


def status(hosts):
    print(f"{'host':<8} {'address':<14} {'groups':<24} {'nspawn':<8} systemd")
    for host in hosts:
        running = machines.pid(host) is not None
        state = (machines.system_state(host) or "no ssh") if running else "-"
        print(f"{host.name:<8} {host.address:<14} {','.join(host.groups):<24} "
              f"{'running' if running else 'stopped':<8} {state}")


def heal(hosts):
    up(hosts)  # boots the hosts that were powered off
    faults.heal(hosts)
    print("healed: every host running, every data filesystem writable and with free space, no drop rules, "
          "no bandwidth limits, no paused JVM")


# The faults by command name; each function's docstring is its help and names its opposite.
SERVICE_FAULTS = {"kill": faults.kill, "start": faults.start, "pause": faults.pause, "resume": faults.resume}
HOST_FAULTS = {"poweroff": machines.power_off, "cut": faults.cut, "connect": faults.connect,
               "slow": faults.slow, "unslow": faults.unslow, "fill": faults.fill, "unfill": faults.unfill,
               "readonly": faults.read_only, "unplug": faults.unplug, "repair": faults.repair}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m lab", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("up", "boot every host that is not running"), ("down", "remove the whole lab"),
                       ("status", "each host, its address and state"), ("heal", "undo every fault"),
                       ("spark-up", "boot the Spark hosts and start a master and two workers (lab/spark.py)"),
                       ("spark-down", "stop the Spark hosts")):
        commands.add_parser(name, help=text)
    for name, function in {**SERVICE_FAULTS, **HOST_FAULTS}.items():
        command = commands.add_parser(name, help=function.__doc__.split("\n\n")[0])
        command.add_argument("host")
        if name in SERVICE_FAULTS:
            command.add_argument("service", choices=faults.SERVICES)
    legacy_deploy = commands.add_parser("legacy-deploy", help="deploy ZooKeeper and brokers as a hand-written "
                                        "runbook would, without the kit (lab/legacy.py)")
    legacy_deploy.add_argument("--version", required=True, help="the Kafka release, 2.8.2 to 3.9.2")
    commands.choices["cut"].add_argument("--from", dest="peers", nargs="+", metavar="HOST",
                                         help="the hosts to cut it off from (default: every other lab host)")
    commands.choices["slow"].add_argument("--rate", default="1mbit", help="tc rate (default 1mbit)")
    args = parser.parse_args(argv)
    hosts = config.load_hosts()
    try:
        if args.command in ("up", "down", "status", "heal"):
            {"up": up, "down": down, "status": status, "heal": heal}[args.command](hosts)
            return 0
        if args.command == "spark-up":
            # Executors read the ledger's topics with the kit's client settings: the CA file's folder goes along.
            truststore = cluster_settings.load()["kafka_java"].get("ssl.truststore.location")
            spark.up(pathlib.Path(truststore).parent if truststore else config.ROOT)
            return 0
        if args.command == "legacy-deploy":
            legacy.deploy(args.version)
            return 0
        if args.command == "spark-down":
            spark.down()
            return 0
        host = config.host(args.host)
        if args.command in SERVICE_FAULTS:
            SERVICE_FAULTS[args.command](host, args.service)
        elif args.command == "cut":
            faults.cut(host, [config.host(n) for n in args.peers] if args.peers else hosts)
        elif args.command == "slow":
            faults.slow(host, args.rate)
        else:
            HOST_FAULTS[args.command](host)
        print(f"{args.command} {args.host}: done")
    except LabError as exc:
        print(f"lab {args.command} failed: {exc}", file=sys.stderr)
        return 1
    return 0
