"""A watcher of every process's command line on the lab hosts and on this machine while a run goes: no password may
ever be on one (ps shows every user's). It samples `ps -eo args` on each host about every half second over one SSH
connection per host, and keeps each line that holds one of the lab's passwords (or a private key), the password
replaced by its name.

    with CommandLineWatch(hosts, secrets) as watch:      # secrets: a function giving {name: password}, read
        run_playbook("site.yml")                         # every round (a run may make passwords as it goes)
    assert watch.leaks == []
"""

import subprocess
import threading

from scripts.check_no_secrets import leaks

from . import config
from .machines import ssh

PS = "ps -eo args"


def _redacted(line, secrets):
    for name, value in secrets.items():
        line = line.replace(value, f"<{name}>") if value else line
    return line


class CommandLineWatch:
    """Samples command lines on `hosts` (the lab's Host entries) and locally until the block ends; `leaks` is
    [(where, what leaked, the line redacted)], each distinct one once; `samples` counts the rounds taken (a watch
    that took none watched nothing)."""

    def __init__(self, hosts, secrets=None, interval=0.5):
        self.hosts, self.secrets, self.interval = list(hosts), secrets or config.secrets, interval
        self.leaks, self.samples = [], 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._clients = {host.name: ssh(host) for host in self.hosts}
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(30)
        for client in self._clients.values():
            client.close()
        return False

    def _lines(self, name):
        if name == "localhost":
            return subprocess.run(PS.split(), capture_output=True, text=True, check=True).stdout.splitlines()
        _, out, _ = self._clients[name].exec_command(PS, timeout=20)
        return out.read().decode(errors="replace").splitlines()

    def _run(self):
        seen = set()
        while not self._stop.is_set():
            secrets = self.secrets()
            for name in ["localhost", *self._clients]:
                try:
                    lines = self._lines(name)
                except Exception:  # noqa: BLE001 - a host restarting its sshd misses a round, not the watch
                    continue
                for line in lines:
                    for what in leaks(line, secrets):  # scripts/check_no_secrets.py's: passwords, private keys
                        found = (name, what, _redacted(line, secrets)[:300])
                        if found not in seen:
                            seen.add(found)
                            self.leaks.append(found)
            self.samples += 1
            self._stop.wait(self.interval)
