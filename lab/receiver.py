"""The lab's notification receiver: Alertmanager's webhook (the lab inventory's monitoring_webhook_url) posts to it on
the bridge address, and it appends each notification, with the time it came, to one JSON line of NOTIFICATIONS.
`lab up` starts it and `lab down` stops it; tests read what came with `received()`.

    python -m lab.receiver ADDRESS PORT     (what `start` runs in the background)
"""

import datetime
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import time

from . import config
from .shell import LabError

PORT = 9099  # the lab inventory's monitoring_webhook_url names it
NOTIFICATIONS = config.ROOT / "notifications.jsonl"
_PID = config.ROOT / "receiver.pid"


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (the name http.server calls)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        received = {"received_at": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                    "path": self.path, "payload": json.loads(body or b"null")}
        with NOTIFICATIONS.open("a") as out:
            out.write(json.dumps(received) + "\n")
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):  # the file is the log
        pass


def _running_pid():
    try:
        pid = int(_PID.read_text())
        os.kill(pid, 0)
        return pid
    except (FileNotFoundError, ValueError, ProcessLookupError):
        return None


def start(address):
    """Start the receiver on ADDRESS:PORT unless it runs; wait until it answers."""
    if _running_pid():
        return
    config.ROOT.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen([sys.executable, "-m", "lab.receiver", address, str(PORT)], cwd=config.REPO,
                               start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=(config.ROOT / "receiver.log").open("a"))
    _PID.write_text(str(process.pid))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((address, PORT), timeout=1):
                return
        except OSError:
            if process.poll() is not None:
                raise LabError(f"the notification receiver exited: see {config.ROOT / 'receiver.log'}") from None
            time.sleep(0.2)
    raise LabError(f"the notification receiver does not answer on {address}:{PORT}")


def stop():
    pid = _running_pid()
    if pid:
        os.kill(pid, signal.SIGTERM)
    _PID.unlink(missing_ok=True)


def received():
    """Every notification so far: [{received_at, path, payload}], oldest first."""
    if not NOTIFICATIONS.exists():
        return []
    return [json.loads(line) for line in NOTIFICATIONS.read_text().splitlines() if line.strip()]


def parse_time(text):
    """An RFC 3339 time (Alertmanager's nanoseconds and Z, or Python's isoformat) as Unix time."""
    seconds, _, fraction = text.replace("Z", "").replace("+00:00", "").partition(".")
    return datetime.datetime.fromisoformat(seconds + "." + (fraction + "000000")[:6] + "+00:00").timestamp()


def alerts_since(since):
    """Every alert of the notifications received since `since` (Unix time), oldest first: {received_at (Unix time),
    status (firing, resolved), alertname, host (None for a cluster-wide alert), starts_at, annotations}."""
    return [{"received_at": parse_time(n["received_at"]), "status": a["status"], "alertname": a["labels"]["alertname"],
             "host": a["labels"].get("host"), "starts_at": parse_time(a["startsAt"]), "annotations": a["annotations"]}
            for n in received() if parse_time(n["received_at"]) >= since for a in n["payload"]["alerts"]]


def names(alerts):
    """The alerts as sorted "alertname (host)" strings, each once: what a report lists."""
    return sorted({f"{a['alertname']} ({a['host']})" for a in alerts})


def wait_for(alertname, host, status, since, timeout):
    """The first notification since `since` of alertname (for host; any host when None) with status, waiting up to
    timeout seconds; None if none came."""
    deadline = time.time() + timeout
    while True:
        found = [a for a in alerts_since(since) if a["alertname"] == alertname and a["status"] == status
                 and (host is None or a["host"] == host)]
        if found or time.time() > deadline:
            return found[0] if found else None
        time.sleep(2)


def main(argv):
    address, port = argv
    http.server.ThreadingHTTPServer((address, int(port)), _Handler).serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
