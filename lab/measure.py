"""Measures for tests and benchmarks: how many bytes of log segments a broker's data dir holds over
time (the copy rate of a re-replication), the resident memory of a process tree, and how many times a host's
service started."""

import pathlib
import subprocess
import threading
import time

from . import machines

# Kafka's replica size is the size of its .log segments; partitions being deleted ("-delete") and
# replicas being moved ("-future") are not part of the copy.
_LOG_BYTES = ("find {data_dir} -path '*-delete*' -prune -o -path '*-future*' -prune -o -name '*.log' "
              "-printf '%s\\n' 2>/dev/null | awk '{{s += $1}} END {{print s + 0}}'")


class LogBytesSampler:
    """Samples (monotonic time, bytes of .log segments) in a host's data dir every `interval` seconds,
    over one SSH connection, from start() to stop()."""

    def __init__(self, host, data_dir="/var/lib/kafka/data", interval=0.5):
        self.host, self.command, self.interval = host, _LOG_BYTES.format(data_dir=data_dir), interval
        self.samples = []
        self._stop, self._thread = threading.Event(), None

    def _run(self):
        with machines.ssh(self.host) as client:
            while not self._stop.is_set():
                _, out, _ = client.exec_command(self.command, timeout=30)
                self.samples.append((time.monotonic(), int(out.read().decode().strip() or 0)))
                self._stop.wait(self.interval)

    def start(self):
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join()
        return self.samples


def copy_window(samples, done_fraction=0.98):
    """(bytes copied, seconds) of the re-replication in the samples: from the last sample at the lowest
    size (just before the copy starts) to the first that reaches done_fraction of the growth after it
    (the catch-up, without the slow tail of new writes)."""
    low = min(range(len(samples)), key=lambda i: (samples[i][1], -i))
    t0, b0 = samples[low]
    top = max(b for _, b in samples[low:])
    t1, b1 = next((t, b) for t, b in samples[low:] if b - b0 >= done_fraction * (top - b0))
    return b1 - b0, t1 - t0


def process_children():
    """{parent pid: [child pids]} of every process now."""
    tree = {}
    for proc in pathlib.Path("/proc").glob("[0-9]*"):
        parent = machines.parent_of(proc.name)
        if parent is not None:
            tree.setdefault(parent, []).append(int(proc.name))
    return tree


def rss_kib(pid):
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_kib(root, tree=None):
    """Resident memory of a process and everything below it."""
    tree = process_children() if tree is None else tree
    todo, total = [root], 0
    while todo:
        pid = todo.pop()
        total += rss_kib(pid)
        todo += tree.get(pid, [])
    return total


def run_with_peak_rss(cmd, interval=0.2, **popen_args):
    """Run a command; returns (exit status, seconds, peak resident MiB of its process tree)."""
    started, peak = time.monotonic(), 0
    proc = subprocess.Popen(cmd, **popen_args)
    while proc.poll() is None:
        peak = max(peak, tree_rss_kib(proc.pid))
        time.sleep(interval)
    return proc.returncode, time.monotonic() - started, peak / 1024


def service_starts_since(host, unit, since):
    """How many times systemd started the unit on a lab host since `since` (seconds since the epoch; the lab
    hosts share this machine's clock), from the host's journal."""
    shown = machines.run_on(host, f"journalctl -u {unit}.service --since @{int(since)} -o cat | grep -c '^Started' "
                                  "|| true")
    return int(shown.strip() or 0)
