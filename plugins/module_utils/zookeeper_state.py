"""ZooKeeper ensemble state from each member's answer to the `srvr` four-letter word, and the
decisions on it (pure functions, unit-tested on hand-written answers)."""

import socket
import ssl


def tls_context(ca, certfile, keyfile):
    """The TLS client context for a member's secure client port: its certificate checked against the CA and
    the address asked, ours presented (the members require one)."""
    context = ssl.create_default_context(cafile=ca)
    context.load_cert_chain(certfile, keyfile)
    return context


def four_letter_word(host, port, word="srvr", timeout=5, tls=None):
    """A member's answer to a four-letter word, or None when it does not answer; over TLS with the tls
    context (tls_context). (kazoo sends these only through a session, which a member outside a quorum does
    not grant.)"""
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw, \
                (tls.wrap_socket(raw, server_hostname=host) if tls else raw) as conn:
            conn.sendall(word.encode())
            chunks = []
            while chunk := conn.recv(4096):
                chunks.append(chunk)
        return b"".join(chunks).decode(errors="replace")
    except OSError:
        return None


def parse_srvr(answer):
    """mode (leader/follower/standalone/None), zxid (int) and node count of one member."""
    fields = {}
    for line in (answer or "").splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    zxid = fields.get("Zxid")
    return {
        "serving": "Mode" in fields,
        "mode": fields.get("Mode"),
        "zxid": int(zxid, 16) if zxid else None,
        "node_count": int(fields["Node count"]) if "Node count" in fields else None,
    }


def ensemble(members):
    """members: {name: srvr answer or None}. Whether the quorum has exactly one leader, and which."""
    nodes = {name: parse_srvr(answer) for name, answer in members.items()}
    leaders = [name for name, node in nodes.items() if node["mode"] in ("leader", "standalone")]
    serving = [name for name, node in nodes.items() if node["serving"]]
    return {
        "nodes": nodes,
        "leader": leaders[0] if len(leaders) == 1 else None,
        "has_leader": len(leaders) == 1,
        "serving": serving,
        "all_serving": len(serving) == len(nodes),
    }


def restart_order(state):
    """Followers first (by name), the leader last."""
    followers = sorted(name for name in state["nodes"] if name != state["leader"])
    return followers + ([state["leader"]] if state["leader"] else [])
