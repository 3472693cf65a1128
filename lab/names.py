"""The lab's DNS names: <host>.<config.DOMAIN> (Host.fqdn) for every host, resolvable on each lab host (its /etc/hosts,
written into the base) and on this machine (a marked block in /etc/hosts that `lab up` writes and
`lab down` removes), so brokers advertise names the way a production inventory has them."""

import pathlib

ETC_HOSTS = pathlib.Path("/etc/hosts")
BEGIN = "# BEGIN kafka-lab (python -m lab; removed by lab down)"
END = "# END kafka-lab"


def host_lines(hosts):
    return [f"{h.address} {h.fqdn} {h.name}" for h in hosts]


def without_block(text):
    """The text with the lab's block (if any) removed."""
    lines = text.splitlines()
    if BEGIN not in lines or END not in lines:
        return text
    start, end = lines.index(BEGIN), lines.index(END)
    kept = lines[:start] + lines[end + 1:]
    return "\n".join(kept) + ("\n" if kept else "")


def with_block(text, hosts):
    """The text with exactly one lab block, holding these hosts, at its end."""
    rest = without_block(text)
    if rest and not rest.endswith("\n"):
        rest += "\n"
    return rest + "\n".join([BEGIN, *host_lines(hosts), END]) + "\n"


# Written in place: /etc/hosts may be a bind mount (containers), which a rename would not replace.
def add_to_controller(hosts, path=ETC_HOSTS):
    text = path.read_text()
    wanted = with_block(text, hosts)
    if wanted != text:
        path.write_text(wanted)


def remove_from_controller(path=ETC_HOSTS):
    text = path.read_text()
    wanted = without_block(text)
    if wanted != text:
        path.write_text(wanted)

