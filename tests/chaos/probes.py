"""Probes that confirm a fault took effect: a scenario counts only when its fault was seen on the lab (the
JVM gone or stopped, the link cut, the disk read-only or full, ...), not merely when the command ran.

Each probe returns a sentence saying what it saw (the scenario's notes keep them under "confirmed") or
raises FaultNotConfirmed with what it saw instead. The parsers are pure and unit-tested
(tests/unit/test_chaos_probes.py); the probes run commands on the lab hosts with lab.machines.run_on.
"""

import subprocess
import time

from kazoo.handlers.threading import KazooTimeoutError

from lab import cluster_settings, config, machines
from lab.cluster_settings import kazoo_client
from lab.machines import run_on

CONNECT_TIMEOUT_S = 3  # a TCP connect that has no answer by then counts as cut
KAFKA_DATA_DIR = "/var/lib/kafka/data"  # the brokers' log dir (roles/kafka_broker kafka_log_dirs)


class FaultNotConfirmed(AssertionError):
    """The fault was applied but the probe did not see its effect: the scenario does not count."""


def _wait_for(seen, timeout, interval=1):
    """Call seen() until it returns something true or timeout seconds passed; its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = seen()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


# --- processes --------------------------------------------------------------------------------------

def process_state(stat):
    """The state letter from /proc/<pid>/stat text ("R", "S", "T", "Z", ...), or None when empty (the
    process is gone). The command name in parentheses may hold spaces and parentheses: split after the
    last ")"."""
    if not stat.strip():
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def _state(host, pid):
    return process_state(run_on(host, f"cat /proc/{pid}/stat 2>/dev/null || true"))


def main_pid(host, service):
    """systemd's main pid of the service on the host (0 while it is down)."""
    return int(run_on(host, f"systemctl show -p MainPID --value {service}").strip())


def jvm_gone(host, pid, timeout=10):
    """The killed JVM is gone (or a zombie systemd has not reaped yet)."""
    if not _wait_for(lambda: _state(host, pid) in (None, "Z", "X"), timeout):
        raise FaultNotConfirmed(f"{host.name}: process {pid} still in state {_state(host, pid)} {timeout}s "
                                "after SIGKILL")
    return f"{host.name}: JVM {pid} gone after SIGKILL"


def jvm_stopped(host, pid, timeout=10):
    """The paused JVM is in state T (stopped by SIGSTOP)."""
    if not _wait_for(lambda: _state(host, pid) in ("T", "t"), timeout):
        raise FaultNotConfirmed(f"{host.name}: process {pid} is in state {_state(host, pid)}, not T "
                                "(stopped), after SIGSTOP")
    return f"{host.name}: JVM {pid} in state T (stopped)"


def jvm_replaced(host, service, old_pid, timeout=120):
    """The service runs a new JVM (after a restart, or systemd's restart of a killed one)."""
    def new_pid():
        pid = main_pid(host, service)
        return pid if pid not in (0, old_pid) else None
    pid = _wait_for(new_pid, timeout)
    if not pid:
        raise FaultNotConfirmed(f"{host.name}: no new {service} JVM in place of {old_pid} after {timeout}s")
    return f"{host.name}: {service} JVM {old_pid} replaced by {pid}"


# --- network ----------------------------------------------------------------------------------------

def connect_command(targets, timeout=CONNECT_TIMEOUT_S):
    """A shell command that tries a TCP connection to each "address:port" at once and prints one line per
    target: "<target> connected|refused|timed out|error <why>". The same command runs on a lab host (from
    the cut side) and on the controller (as a client)."""
    return ("python3 - " + " ".join(targets) + " <<'EOF'\n"
            "import concurrent.futures, socket, sys\n"
            "def attempt(target):\n"
            "    address, port = target.rsplit(':', 1)\n"
            "    try:\n"
            f"        socket.create_connection((address, int(port)), {timeout}).close()\n"
            "        return 'connected'\n"
            "    except TimeoutError:\n"
            "        return 'timed out'\n"
            "    except ConnectionRefusedError:\n"
            "        return 'refused'\n"
            "    except OSError as exc:\n"
            "        return f'error {exc.strerror or exc}'\n"
            "with concurrent.futures.ThreadPoolExecutor(max(1, len(sys.argv) - 1)) as pool:\n"
            "    for target, outcome in zip(sys.argv[1:], pool.map(attempt, sys.argv[1:])):\n"
            "        print(target, outcome)\n"
            "EOF\n")


def parse_connects(output):
    """{target: outcome} from connect_command's output."""
    outcomes = {}
    for line in output.splitlines():
        if line.strip():
            target, outcome = line.split(" ", 1)
            outcomes[target] = outcome
    return outcomes


def connects(targets, host=None):
    """{"address:port": outcome} of TCP connections from the lab host, or from the controller (where the
    canary and every client run) when host is None."""
    command = connect_command(targets)
    if host is None:
        output = subprocess.run(["sh", "-c", command], capture_output=True, text=True, check=True).stdout
    else:
        output = run_on(host, command)
    return parse_connects(output)


def endpoint(host):
    """name:port (or address:port) of the service a lab host runs, as the clients reach it: the connection
    role's settings (playbooks/client_settings.yml)."""
    settings = cluster_settings.load()
    return settings["brokers"].get(host.name) or settings["zookeeper_members"][host.name]


def cut_off(host, peers):
    """No TCP connection from the host to any of the peers' service ports gets through."""
    outcomes = connects([endpoint(peer) for peer in peers], host)
    through = [target for target, outcome in outcomes.items() if outcome == "connected"]
    if through or len(outcomes) != len(peers):
        raise FaultNotConfirmed(f"{host.name} still connects to {', '.join(through) or outcomes}")
    seen = sorted(set(outcomes.values()))
    return f"{host.name} cannot connect to {', '.join(p.name for p in peers)} ({', '.join(seen)})"


def clients_reach(host):
    """The controller, where the clients run, still connects to the host's service."""
    target = endpoint(host)
    outcome = connects([target])[target]
    if outcome != "connected":
        raise FaultNotConfirmed(f"clients no longer reach {target} ({outcome}): not the fault meant")
    return f"clients still connect to {target}"


def service_refuses(host):
    """The host is up but nothing listens on its service's port: a connection is refused (it is down)."""
    target = endpoint(host)
    outcome = connects([target])[target]
    if outcome != "refused":
        raise FaultNotConfirmed(f"{target} answered a connection with '{outcome}', not refused")
    return f"{target} refuses connections"


def no_zookeeper_session(host, timeout=30):
    """The remaining ZooKeeper node serves no session (the ensemble lost its quorum)."""
    def refused():
        zk = kazoo_client(endpoint(host))
        try:
            zk.start(timeout=3)
        except KazooTimeoutError:  # start() stopped the client itself
            return True
        zk.stop()
        zk.close()
        return False
    if not _wait_for(refused, timeout):
        raise FaultNotConfirmed(f"{host.name} still opens ZooKeeper sessions {timeout}s later: quorum kept")
    return f"{host.name} opens no ZooKeeper session (no quorum)"


def qdisc_rate(tc_output):
    """The rate of a tbf qdisc in `tc qdisc show` output ("1Mbit"), or None when there is no tbf."""
    for line in tc_output.splitlines():
        words = line.split()
        if words[:2] == ["qdisc", "tbf"] and "rate" in words:
            return words[words.index("rate") + 1]
    return None


def link_limited(host):
    """The host's interface sends through a token bucket filter (tc tbf)."""
    shown = run_on(host, "tc qdisc show dev eth0")
    rate = qdisc_rate(shown)
    if rate is None:
        raise FaultNotConfirmed(f"{host.name}: no tbf qdisc on eth0: {shown.strip()}")
    return f"{host.name}: eth0 limited by tbf to {rate}"


# --- disks ------------------------------------------------------------------------------------------

WRITE_PROBE = (f"{{ echo probe > {config.DATA_DISK_MOUNT}/lab-probe && sync && echo written && "
               f"rm -f {config.DATA_DISK_MOUNT}/lab-probe; }} 2>&1 || true")


def write_error(output):
    """The error of WRITE_PROBE's output, or None when the write went through."""
    text = output.strip()
    return None if text.splitlines()[-1:] == ["written"] else text


def disk_refuses_writes(host, error="Read-only file system"):
    """A write on the host's data filesystem fails with the error."""
    seen = write_error(run_on(host, WRITE_PROBE))
    if seen is None or error not in seen:
        raise FaultNotConfirmed(f"{host.name}: a write on {config.DATA_DISK_MOUNT} gave "
                                f"{seen or 'no error'}, not '{error}'")
    return f"{host.name}: a write on {config.DATA_DISK_MOUNT} fails ({error})"


def free_bytes(df_output):
    """The number from `df -B1 --output=avail PATH`'s output (a header line, then the value)."""
    return int(df_output.split()[-1])


def disk_full(host, timeout=10):
    """No byte of the host's data filesystem is left for Kafka (an unprivileged user). A remainder (freed
    between fallocate's size and its allocation) is taken by the broker's next appends: wait a little."""
    def free():
        return free_bytes(run_on(host, f"df -B1 --output=avail {config.DATA_DISK_MOUNT}"))
    if not _wait_for(lambda: free() == 0, timeout):
        raise FaultNotConfirmed(f"{host.name}: {free()} bytes still free on {config.DATA_DISK_MOUNT} "
                                f"{timeout}s after the fill")
    return f"{host.name}: 0 bytes free on {config.DATA_DISK_MOUNT}"


REBUILD_MARKER = f"{KAFKA_DATA_DIR}/.chaos-rebuild-marker"


def mark_data_dir(host):
    """Leave a marker file in the broker's log dir (Kafka reads only the directories there): a rebuild
    that empties the log dir takes it away."""
    run_on(host, f"touch {REBUILD_MARKER}")


def data_rebuilt(host, topic, partition=0):
    """The log dir was emptied (the marker is gone) and the partition's replica fetched again."""
    replica = f"{KAFKA_DATA_DIR}/{topic}-{partition}"
    marker_left = run_on(host, f"test -e {REBUILD_MARKER} && echo yes || echo no").strip() == "yes"
    replica_back = run_on(host, f"test -d {replica} && echo yes || echo no").strip() == "yes"
    if marker_left or not replica_back:
        marker = "still there" if marker_left else "gone"
        raise FaultNotConfirmed(f"{host.name} after the rebuild: marker {marker}, "
                                f"{replica} {'present' if replica_back else 'missing'}")
    return f"{host.name}: log dir emptied, {topic}-{partition} fetched again"


# --- hosts and the cluster --------------------------------------------------------------------------

def host_off(host):
    """The host's machine is gone (no systemd-nspawn process)."""
    if machines.pid(host) is not None:
        raise FaultNotConfirmed(f"{host.name} still runs after the power cut")
    return f"{host.name}: powered off"


def deregistered(cluster, broker_id, timeout):
    """The broker's ZooKeeper registration is gone: its session expired."""
    if not _wait_for(lambda: not cluster.registered(broker_id), timeout, interval=2):
        raise FaultNotConfirmed(f"broker {broker_id} still registered in ZooKeeper {timeout}s later")
    return f"broker {broker_id} left ZooKeeper"


def registered_at(cluster, broker_id, host):
    """The broker id is registered under the host's name (a replacement took the id over)."""
    found = cluster.broker_id(host)
    if found != broker_id:
        raise FaultNotConfirmed(f"{host.name} is registered as broker {found}, not {broker_id}")
    return f"broker {broker_id} registered at {host.name}"


def leadership_moved(cluster, topic, old_leader_id, timeout, partition=0):
    """ZooKeeper shows another live leader for the partition than old_leader_id: the controller moved it
    (which a cut-off or paused leader does not learn). Returns the sentence and the state seen."""
    def moved():
        state = cluster.partition_state(topic, partition)
        return state if state["leader"] not in (old_leader_id, -1) else None  # -1: no leader, offline
    state = _wait_for(moved, timeout)
    if not state:
        raise FaultNotConfirmed(f"{topic}[{partition}] still led by broker {old_leader_id} {timeout}s later: "
                                "leadership never moved")
    return (f"{topic}[{partition}] leader moved from broker {old_leader_id} to {state['leader']} "
            f"(epoch {state['leader_epoch']}, ISR {state['isr']})"), state


def isr_beyond(cluster, topic, leader_id, partition=0):
    """The partition's ISR still holds a replica besides the leader, which can take over cleanly."""
    isr = cluster.partition_state(topic, partition)["isr"]
    if not set(isr) - {leader_id}:
        raise FaultNotConfirmed(f"{topic}[{partition}]'s ISR shrank to {isr}: no follower can take over")
    return f"{topic}[{partition}] ISR {isr}"


def acked_sent_after(recent_acks, partition, since):
    """How many of the canary's acknowledged records on the partition were sent after `since`."""
    return sum(1 for p, sent_at in recent_acks if p == partition and sent_at > since)


def window_writes(canary, since, what, partition=0):
    """How many records on the partition were sent after `since` (Unix time) and acknowledged. With acks=1
    (a negative control) only the cut-off or deposed leader, which no follower copies any more, can have
    acknowledged them: they are the writes the control must lose, and a control without any cannot lose.
    Returns the sentence and the count."""
    count = acked_sent_after(canary.recent_acks(), partition, since)
    if canary.acks == "1" and count == 0:
        raise FaultNotConfirmed(f"no record on partition {partition} sent after {what} was acknowledged: "
                                "the leader took no acks=1 write it could lose")
    return (f"{count} records on partition {partition} sent after {what} acknowledged (acks={canary.acks})",
            count)
