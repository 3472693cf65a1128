"""The chaos scenario matrix: each fault injected into the lab while the canary writes, and healed.

A fault function gets the LabCluster and the canary's topic, injects its fault, heals it, and returns notes
(what it did, what it saw) for the report. "The leader" is the leader of the canary topic's partition 0
when the fault starts. The harness (harness.py) waits until the cluster is healthy afterwards.
"""

import dataclasses
import time

from confluent_kafka import KafkaError, Producer
from kazoo.client import KazooClient
from lab_cluster import run_playbook

from lab import faults, machines
from lab.machines import run_on

SESSION_TIMEOUT_S = 18  # the brokers' zookeeper.session.timeout.ms (roles/kafka_broker defaults)
CUT_S = 30              # how long a network cut or a slow link lasts
REBUILD_THROTTLE = 8 * 1024 * 1024


def _pause(seconds, why):
    print(f"  {why}: {seconds}s", flush=True)
    time.sleep(seconds)


def bounce_leader_five_times(cluster, topic):
    bounced = []
    for _ in range(5):
        leader = cluster.leader(topic)
        run_on(leader, "systemctl restart kafka")  # a clean stop: controlled shutdown moves leadership
        bounced.append(leader.name)
        cluster.wait_healthy()
    return {"bounced": bounced}


def _kill_and_wait_for_restart(cluster, host):
    """SIGKILL the host's broker; wait until systemd started a new JVM (RestartSec), the old ZooKeeper
    session expired (until then the dead broker still looks registered and in sync) and the cluster is
    healthy again."""
    main_pid = "systemctl show -p MainPID --value kafka"
    killed = run_on(host, main_pid).strip()
    faults.kill(host, "kafka")
    started = time.monotonic()
    while run_on(host, main_pid).strip() in ("0", killed):
        time.sleep(1)
    time.sleep(max(0, SESSION_TIMEOUT_S + 2 - (time.monotonic() - started)))
    cluster.wait_healthy()


def kill_leader_then_controller(cluster, topic):
    leader = cluster.leader(topic)
    _kill_and_wait_for_restart(cluster, leader)
    controller = cluster.controller()
    _kill_and_wait_for_restart(cluster, controller)
    return {"killed": [f"{leader.name} (leader)", f"{controller.name} (controller)"]}


def pause_leader_past_session_timeout(cluster, topic):
    leader = cluster.leader(topic)
    faults.pause(leader, "kafka")
    _pause(SESSION_TIMEOUT_S + 12, f"{leader.name}'s JVM stopped (SIGSTOP), past the session timeout")
    faults.resume(leader, "kafka")
    return {"paused": leader.name}


def cut_leader_from_zookeeper(cluster, topic):
    leader = cluster.leader(topic)
    faults.cut(leader, cluster.zookeepers)
    _pause(CUT_S, f"{leader.name} cut off from ZooKeeper")
    faults.connect(leader)
    return {"cut": f"{leader.name} from {', '.join(h.name for h in cluster.zookeepers)}"}


def cut_leader_from_every_host(cluster, topic):
    leader = cluster.leader(topic)
    faults.cut(leader, cluster.hosts.values())
    _pause(CUT_S, f"{leader.name} cut off from every other lab host (clients still reach it)")
    faults.connect(leader)
    return {"cut": f"{leader.name} from every other host"}


def _probe_not_enough_replicas(cluster, topic, partition):
    """One write with acks=all and no retries; the error code it gets (None when acknowledged)."""
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "enable.idempotence": False,
                         "retries": 0, "message.timeout.ms": 5000})
    outcome = []
    producer.produce(topic, value=b"probe", partition=partition,
                     on_delivery=lambda err, _: outcome.append(err))
    producer.flush(10)
    return outcome[0].code() if outcome and outcome[0] else None


def cut_two_followers(cluster, topic):
    leader = cluster.leader(topic)
    followers = [h for h in cluster.brokers if h.name != leader.name]
    for follower in followers:
        faults.cut(follower, cluster.hosts.values())
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
    return {"cut": ", ".join(h.name for h in followers),
            "not_enough_replicas_after_s": refused_after}


def slow_link_on_leader(cluster, topic):
    leader = cluster.leader(topic)
    faults.slow(leader, "1mbit")
    _pause(CUT_S, f"{leader.name} sends at 1 mbit/s (tc tbf)")
    faults.unslow(leader)
    return {"slowed": f"{leader.name} to 1 mbit/s"}


def _restart_failed_kafka(host):
    """A broker that halted on a disk error and kept failing to start is started again."""
    run_on(host, "systemctl reset-failed kafka; systemctl start kafka")


def read_only_leader_disk(cluster, topic):
    leader = cluster.leader(topic)
    faults.read_only(leader)
    _pause(CUT_S, f"{leader.name}'s data filesystem is read-only")
    faults.repair(leader)  # power off, fsck, remount, boot: Kafka starts at boot
    return {"read_only": leader.name}


def fill_leader_disk(cluster, topic):
    leader = cluster.leader(topic)
    faults.fill(leader)
    _pause(CUT_S, f"{leader.name}'s data filesystem is full")
    faults.unfill(leader)
    _restart_failed_kafka(leader)
    return {"filled": leader.name}


def rebuild_leader(cluster, topic):
    leader = cluster.leader(topic)
    rebuilt = run_playbook("rebuild_broker.yml", "-e", f"broker_host={leader.name}",
                           "-e", f"replication_throttle_bytes_per_sec={REBUILD_THROTTLE}")
    assert rebuilt.returncode == 0, f"rebuild_broker.yml failed on {leader.name}"
    return {"rebuilt": leader.name}


def _registered(cluster, broker_id):
    zk = KazooClient(hosts=cluster.zookeeper_connect)
    zk.start(timeout=15)
    try:
        return zk.exists(f"/brokers/ids/{broker_id}") is not None
    finally:
        zk.stop()


def replace_leader(cluster, topic):
    """Power the leader's host off, replace it with the spare; afterwards the lab is put back (the spare
    bare again, the old host booted, its broker catching up on its old data)."""
    leader, spare = cluster.leader(topic), cluster.spares[0]
    broker_id = cluster.broker_id(leader)
    machines.power_off(leader)
    started = time.monotonic()
    while _registered(cluster, broker_id):
        time.sleep(2)
    print(f"  broker {broker_id} left ZooKeeper {time.monotonic() - started:.0f}s after the power cut",
          flush=True)
    replaced = run_playbook("replace_broker.yml", "-e", f"failed_host={leader.name}",
                            "-e", f"replacement_host={spare.name}",
                            "-e", f"replication_throttle_bytes_per_sec={REBUILD_THROTTLE}")
    assert replaced.returncode == 0, f"replace_broker.yml failed replacing {leader.name} with {spare.name}"
    cluster.wait_healthy()
    # Put the lab back: the spare a bare host again, the old host booted with its broker.
    run_on(spare, "systemctl disable --now kafka; rm -rf /etc/kafka /etc/systemd/system/kafka.service "
                  "/var/lib/kafka/data; systemctl daemon-reload")
    machines.start(leader)
    machines.wait_ready([leader])
    run_on(leader, "systemctl enable --now kafka")
    return {"replaced": f"{leader.name} (broker {broker_id}) by {spare.name}, then put back"}


def zookeeper_one_then_two_down(cluster, topic):
    first, second = cluster.zookeepers[0], cluster.zookeepers[1]
    run_on(first, "systemctl stop zookeeper")
    _pause(15, f"{first.name} down (quorum kept)")
    run_on(second, "systemctl stop zookeeper")
    _pause(20, f"{first.name} and {second.name} down (no quorum)")
    for host in (first, second):
        run_on(host, "systemctl start zookeeper")
    return {"stopped": f"{first.name}, then {second.name}"}


@dataclasses.dataclass(frozen=True)
class Scenario:
    key: str            # test id and file name
    number: str         # the numbering; controls end in "c"
    title: str
    fault: object
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
    Scenario("kill-leader-controller-acks1", "2c", "negative control: scenario 2 with acks=1",
             kill_leader_then_controller, acks="1"),
    Scenario("leader-cut-from-zk-acks1", "4c", "negative control: scenario 4 with acks=1",
             cut_leader_from_zookeeper, acks="1"),
    Scenario("leader-cut-from-all-acks1", "5c", "negative control: scenario 5 with acks=1",
             cut_leader_from_every_host, acks="1"),
]

# What `make test` runs (within CI's time budget): scenarios 2, 4, 10 and a negative control.
QUICK = ("kill-leader-controller", "leader-cut-from-zk", "rebuild-broker", "leader-cut-from-zk-acks1")
