"""The chaos scenario matrix: each fault injected into the lab while the canary writes, confirmed by a probe
(probes.py), and healed.

A fault function gets the LabCluster, the canary's topic and the running Canary, injects its fault, checks
with a probe that it took effect (a failed probe raises and fails the scenario), heals it, and returns notes
for the report; notes["confirmed"] lists what the probes saw. "The leader" is the leader of the canary
topic's partition 0 when the fault starts. The harness (harness.py) waits until the cluster is healthy
afterwards.

The negative controls (acks=1) use faults that lose acknowledged writes by construction: the leader of
partition 0 keeps acknowledging acks=1 writes that no follower can copy any more, leadership moves to a
follower (seen in ZooKeeper, the source of truth), and when the old leader rejoins it truncates its log to
the new leader's. Each control checks that records were acknowledged in that window before it heals.
"""

import dataclasses
import time

import probes
from confluent_kafka import KafkaError, Producer
from lab_cluster import run_playbook

from lab import faults, machines
from lab.cluster_settings import kafka_config
from lab.machines import run_on

SESSION_TIMEOUT_S = 18  # the brokers' zookeeper.session.timeout.ms (roles/kafka_broker defaults)
ELECTION_TIMEOUT_S = SESSION_TIMEOUT_S + 60  # how long leadership may take to move after a leader is lost
CUT_S = 30              # how long a slow link, a read-only or full disk, or two cut followers last
HOLD_S = 10             # how long a deposed or cut-off leader keeps taking writes after leadership moved
REBUILD_THROTTLE = 8 * 1024 * 1024


def _pause(seconds, why):
    print(f"  {why}: {seconds}s", flush=True)
    time.sleep(seconds)


def _leader(cluster, topic):
    host = cluster.leader(topic)
    return host, cluster.broker_id(host)


def bounce_leader_five_times(cluster, topic, canary):
    bounced, confirmed = [], []
    for _ in range(5):
        leader = cluster.leader(topic)
        old_pid = probes.main_pid(leader, "kafka")
        run_on(leader, "systemctl restart kafka")  # a clean stop: controlled shutdown moves leadership
        confirmed.append(probes.jvm_replaced(leader, "kafka", old_pid))
        bounced.append(leader.name)
        cluster.wait_healthy()
    return {"bounced": bounced, "confirmed": confirmed}


def _kill_and_wait_for_restart(cluster, host):
    """SIGKILL the host's broker (confirmed gone); wait until systemd started a new JVM (RestartSec), the
    old ZooKeeper session expired (until then the dead broker still looks registered and in sync) and the
    cluster is healthy again. Returns what the probe saw."""
    killed = probes.main_pid(host, "kafka")
    faults.kill(host, "kafka")
    started = time.monotonic()
    confirmed = probes.jvm_gone(host, killed)
    probes.jvm_replaced(host, "kafka", killed)
    time.sleep(max(0, SESSION_TIMEOUT_S + 2 - (time.monotonic() - started)))
    cluster.wait_healthy()
    return confirmed


def kill_leader_then_controller(cluster, topic, canary):
    leader = cluster.leader(topic)
    confirmed = [_kill_and_wait_for_restart(cluster, leader)]
    controller = cluster.controller()
    confirmed.append(_kill_and_wait_for_restart(cluster, controller))
    return {"killed": [f"{leader.name} (leader)", f"{controller.name} (controller)"], "confirmed": confirmed}


def pause_leader_past_session_timeout(cluster, topic, canary):
    leader, leader_id = _leader(cluster, topic)
    pid = probes.main_pid(leader, "kafka")
    faults.pause(leader, "kafka")
    confirmed = [probes.jvm_stopped(leader, pid),
                 probes.deregistered(cluster, leader_id, ELECTION_TIMEOUT_S)]  # past the session timeout
    _pause(HOLD_S, f"{leader.name}'s JVM stopped (SIGSTOP), its ZooKeeper session expired")
    faults.resume(leader, "kafka")
    return {"paused": leader.name, "confirmed": confirmed}


def cut_leader_from_zookeeper(cluster, topic, canary):
    """The leader loses ZooKeeper but not its followers or clients: its session expires, the controller
    moves leadership, and the followers follow the new leader; the old one, never told, goes on taking
    writes (with acks=1 it acknowledges them alone: the control's loss)."""
    leader, leader_id = _leader(cluster, topic)
    faults.cut(leader, cluster.zookeepers)
    confirmed = [probes.cut_off(leader, cluster.zookeepers), probes.clients_reach(leader)]
    moved, _ = probes.leadership_moved(cluster, topic, leader_id, ELECTION_TIMEOUT_S)
    deposed_at = time.time()
    confirmed.append(moved)
    _pause(HOLD_S, f"{leader.name} deposed, still cut off from ZooKeeper; clients still write to it")
    confirmed.append(probes.window_writes(canary, deposed_at, "the leader moved")[0])
    faults.connect(leader)
    return {"cut": f"{leader.name} from {', '.join(h.name for h in cluster.zookeepers)}",
            "confirmed": confirmed}


def cut_leader_from_every_host(cluster, topic, canary):
    """The leader loses its followers and ZooKeeper; clients still reach it. From the cut on, nothing it
    takes reaches a follower; leadership moves when its session expires (with acks=1 everything it
    acknowledged since the cut is lost when it rejoins)."""
    leader, leader_id = _leader(cluster, topic)
    faults.cut(leader, cluster.hosts.values())
    cut_at = time.time()
    peers = [h for h in cluster.brokers + cluster.zookeepers if h.name != leader.name]
    confirmed = [probes.cut_off(leader, peers), probes.clients_reach(leader)]
    moved, _ = probes.leadership_moved(cluster, topic, leader_id, ELECTION_TIMEOUT_S)
    confirmed.append(moved)
    _pause(HOLD_S, f"{leader.name} deposed, still cut off from every other host; clients still write to it")
    confirmed.append(probes.window_writes(canary, cut_at, "the cut")[0])
    faults.connect(leader)
    return {"cut": f"{leader.name} from every other host", "confirmed": confirmed}


def cut_leader_from_followers_then_kill(cluster, topic, canary):
    """The leader loses its followers (it keeps ZooKeeper and its clients), takes writes no follower
    copies, and dies before its ISR shrinks; a follower, still in the ISR, takes over (with acks=1 what
    the old leader acknowledged after the cut is lost when its restarted broker rejoins)."""
    leader, leader_id = _leader(cluster, topic)
    followers = [h for h in cluster.brokers if h.name != leader.name]
    faults.cut(leader, followers)
    cut_at = time.time()
    confirmed = [probes.cut_off(leader, followers), probes.clients_reach(leader)]
    _pause(HOLD_S, f"{leader.name} cut off from its followers; clients still write to it")
    confirmed.append(probes.window_writes(canary, cut_at, "the cut")[0])
    # Before the leader's replica.lag.time.max.ms runs out: the followers must still be in the ISR.
    confirmed.append(probes.isr_beyond(cluster, topic, leader_id))
    pid = probes.main_pid(leader, "kafka")
    faults.kill(leader, "kafka")
    confirmed.append(probes.jvm_gone(leader, pid))
    moved, _ = probes.leadership_moved(cluster, topic, leader_id, ELECTION_TIMEOUT_S)
    confirmed.append(moved)
    faults.connect(leader)  # systemd restarts the killed broker; it rejoins as a follower
    return {"cut": f"{leader.name} from {', '.join(h.name for h in followers)}", "killed": leader.name,
            "confirmed": confirmed}


def _probe_not_enough_replicas(cluster, topic, partition):
    """One write with acks=all and no retries; the error code it gets (None when acknowledged)."""
    producer = Producer(kafka_config(cluster.bootstrap) | {"acks": "all", "enable.idempotence": False,
                         "retries": 0, "message.timeout.ms": 5000})
    outcome = []
    producer.produce(topic, value=b"probe", partition=partition,
                     on_delivery=lambda err, _: outcome.append(err))
    producer.flush(10)
    return outcome[0].code() if outcome and outcome[0] else None


def cut_two_followers(cluster, topic, canary):
    leader = cluster.leader(topic)
    followers = [h for h in cluster.brokers if h.name != leader.name]
    for follower in followers:
        faults.cut(follower, cluster.hosts.values())
    confirmed = [probes.cut_off(follower, [leader]) for follower in followers]
    print(f"  {', '.join(h.name for h in followers)} cut off from every other host; probing {leader.name}",
          flush=True)
    started, refused_after = time.monotonic(), None
    while time.monotonic() - started < CUT_S + 15:
        if refused_after is None and _probe_not_enough_replicas(cluster, topic, 0) == \
                KafkaError.NOT_ENOUGH_REPLICAS:
            refused_after = round(time.monotonic() - started)
            print(f"  writes refused with NOT_ENOUGH_REPLICAS after {refused_after}s", flush=True)
        time.sleep(2)
    for follower in followers:
        faults.connect(follower)
    return {"cut": ", ".join(h.name for h in followers), "not_enough_replicas_after_s": refused_after,
            "confirmed": confirmed}


def slow_link_on_leader(cluster, topic, canary):
    leader = cluster.leader(topic)
    faults.slow(leader, "1mbit")
    confirmed = [probes.link_limited(leader)]
    _pause(CUT_S, f"{leader.name} sends at 1 mbit/s (tc tbf)")
    faults.unslow(leader)
    return {"slowed": f"{leader.name} to 1 mbit/s", "confirmed": confirmed}


def _restart_failed_kafka(host):
    """A broker that halted on a disk error and kept failing to start is started again."""
    run_on(host, "systemctl reset-failed kafka; systemctl start kafka")


def read_only_leader_disk(cluster, topic, canary):
    leader = cluster.leader(topic)
    faults.read_only(leader)
    confirmed = [probes.disk_refuses_writes(leader, "Read-only file system")]
    _pause(CUT_S, f"{leader.name}'s data filesystem is read-only")
    faults.repair(leader)  # power off, fsck, remount, boot: Kafka starts at boot
    return {"read_only": leader.name, "confirmed": confirmed}


def fill_leader_disk(cluster, topic, canary):
    leader = cluster.leader(topic)
    faults.fill(leader)
    confirmed = [probes.disk_full(leader)]
    _pause(CUT_S, f"{leader.name}'s data filesystem is full")
    faults.unfill(leader)
    _restart_failed_kafka(leader)
    return {"filled": leader.name, "confirmed": confirmed}


def rebuild_leader(cluster, topic, canary):
    leader = cluster.leader(topic)
    probes.mark_data_dir(leader)  # the rebuild must take it away with the rest of the log dir
    rebuilt = run_playbook("rebuild_broker.yml", "-e", f"broker_host={leader.name}",
                           "-e", f"replication_throttle_bytes_per_sec={REBUILD_THROTTLE}")
    assert rebuilt.returncode == 0, f"rebuild_broker.yml failed on {leader.name}"
    return {"rebuilt": leader.name, "confirmed": [probes.data_rebuilt(leader, topic)]}


def replace_leader(cluster, topic, canary):
    """Power the leader's host off, replace it with the spare; afterwards the lab is put back (the spare
    bare again, the old host booted, its broker catching up on its old data)."""
    leader, broker_id = _leader(cluster, topic)
    spare = cluster.spares[0]
    machines.power_off(leader)
    started = time.monotonic()
    confirmed = [probes.host_off(leader), probes.deregistered(cluster, broker_id, ELECTION_TIMEOUT_S)]
    print(f"  broker {broker_id} left ZooKeeper {time.monotonic() - started:.0f}s after the power cut",
          flush=True)
    replaced = run_playbook("replace_broker.yml", "-e", f"failed_host={leader.name}",
                            "-e", f"replacement_host={spare.name}",
                            "-e", f"replication_throttle_bytes_per_sec={REBUILD_THROTTLE}")
    assert replaced.returncode == 0, f"replace_broker.yml failed replacing {leader.name} with {spare.name}"
    cluster.wait_healthy()
    confirmed.append(probes.registered_at(cluster, broker_id, spare))
    # Put the lab back: the spare a bare host again, the old host booted with its broker.
    run_on(spare, "systemctl disable --now kafka; rm -rf /etc/kafka /etc/systemd/system/kafka.service "
                  "/var/lib/kafka/data; systemctl daemon-reload")
    machines.start(leader)
    machines.wait_ready([leader])
    run_on(leader, "systemctl enable --now kafka")
    return {"replaced": f"{leader.name} (broker {broker_id}) by {spare.name}, then put back",
            "confirmed": confirmed}


def zookeeper_one_then_two_down(cluster, topic, canary):
    first, second, third = cluster.zookeepers[:3]
    run_on(first, "systemctl stop zookeeper")
    confirmed = [probes.service_refuses(first)]
    _pause(15, f"{first.name} down (quorum kept)")
    run_on(second, "systemctl stop zookeeper")
    confirmed += [probes.service_refuses(second), probes.no_zookeeper_session(third)]
    _pause(20, f"{first.name} and {second.name} down (no quorum)")
    for host in (first, second):
        run_on(host, "systemctl start zookeeper")
    return {"stopped": f"{first.name}, then {second.name}", "confirmed": confirmed}


@dataclasses.dataclass(frozen=True)
class Scenario:
    key: str            # test id and file name
    number: str         # the numbering; controls end in "c"
    title: str
    fault: object       # fault(cluster, topic, canary) -> notes
    acks: str = "all"
    lead_s: int = 20    # canary time before the fault (a third of a run when the fault takes lead_s)
    delivery_timeout_s: int = 120

    @property
    def negative_control(self):
        return self.acks != "all"


SCENARIOS = [
    Scenario("bounce-leader", "1", "clean bounce of the leader, five times, chasing it",
             bounce_leader_five_times),
    Scenario("kill-leader-controller", "2", "hard kill of the leader, then of the controller",
             kill_leader_then_controller),
    Scenario("pause-leader", "3", "leader paused past the ZooKeeper session timeout, then resumed",
             pause_leader_past_session_timeout),
    Scenario("leader-cut-from-zk", "4", "leader cut off from ZooKeeper only", cut_leader_from_zookeeper),
    Scenario("leader-cut-from-all", "5", "leader cut off from every other host (clients still reach it)",
             cut_leader_from_every_host),
    # A delivery timeout shorter than the cut: writes the cluster refuses show up as failed sends.
    Scenario("two-followers-cut", "6", "two followers cut off (writes refused, NOT_ENOUGH_REPLICAS)",
             cut_two_followers, delivery_timeout_s=20),
    Scenario("slow-leader", "7", "slow link on the leader (tc tbf 1 mbit/s)", slow_link_on_leader),
    Scenario("leader-disk-read-only", "8", "leader's data filesystem read-only", read_only_leader_disk),
    Scenario("leader-disk-full", "9", "leader's data filesystem full", fill_leader_disk),
    Scenario("rebuild-broker", "10", "a broker's data wiped and rebuilt with rebuild_broker.yml",
             rebuild_leader),
    Scenario("replace-broker", "11", "a broker replaced with replace_broker.yml (power cut first)",
             replace_leader, lead_s=30),
    Scenario("zookeeper-down", "12", "one ZooKeeper node down, then two, then healed",
             zookeeper_one_then_two_down),
    Scenario("leader-cut-from-followers-killed", "13",
             "leader cut off from its followers, then killed; a follower takes over",
             cut_leader_from_followers_then_kill),
    Scenario("leader-cut-from-zk-acks1", "4c", "negative control: scenario 4 with acks=1",
             cut_leader_from_zookeeper, acks="1"),
    Scenario("leader-cut-from-all-acks1", "5c", "negative control: scenario 5 with acks=1",
             cut_leader_from_every_host, acks="1"),
    Scenario("leader-cut-from-followers-killed-acks1", "13c", "negative control: scenario 13 with acks=1",
             cut_leader_from_followers_then_kill, acks="1"),
]
