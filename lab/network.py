"""The lab network: one bridge on the controller, and per host a network namespace joined to it by a
veth pair. Hosts get only their /24 route: there is no route off the bridge and no NAT."""

import pathlib

from . import config
from .shell import run, succeeds


def _host_veth(host):
    return f"kl-{host.name}"[:15]


def ensure_bridge(address):
    if not succeeds("ip", "link", "show", config.BRIDGE):
        run("ip", "link", "add", config.BRIDGE, "type", "bridge")
    if address.split("/")[0] not in run("ip", "-o", "addr", "show", "dev", config.BRIDGE).stdout:
        run("ip", "addr", "add", address, "dev", config.BRIDGE)
    run("ip", "link", "set", config.BRIDGE, "up")


def ensure_netns(host):
    ns = host.netns
    if not pathlib.Path("/run/netns", ns).exists():
        run("ip", "netns", "add", ns)
    veth = _host_veth(host)
    if not succeeds("ip", "netns", "exec", ns, "ip", "link", "show", "eth0"):
        run("ip", "link", "del", veth, check=False)
        peer = f"kp-{host.name}"[:15]
        run("ip", "link", "add", veth, "type", "veth", "peer", "name", peer)
        run("ip", "link", "set", peer, "netns", ns)
        run("ip", "netns", "exec", ns, "ip", "link", "set", peer, "name", "eth0")
    run("ip", "link", "set", veth, "master", config.BRIDGE, "up")
    inside = ("ip", "netns", "exec", ns)
    if host.address not in run(*inside, "ip", "-o", "addr", "show", "dev", "eth0").stdout:
        run(*inside, "ip", "addr", "add", f"{host.address}/24", "dev", "eth0")
    run(*inside, "ip", "link", "set", "eth0", "up")
    run(*inside, "ip", "link", "set", "lo", "up")


def lab_namespaces():
    names = run("ip", "netns", "list").stdout.split()
    return [n for n in names if n.startswith(config.NETNS_PREFIX)]


def teardown():
    for ns in lab_namespaces():
        run("ip", "netns", "del", ns, check=False)
    for line in run("ip", "-o", "link", "show", "type", "veth").stdout.splitlines():
        name = line.split(":")[1].strip().split("@")[0]
        if name.startswith("kl-"):
            run("ip", "link", "del", name, check=False)
    if succeeds("ip", "link", "show", config.BRIDGE):
        run("ip", "link", "del", config.BRIDGE)
