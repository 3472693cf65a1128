"""migrate_to_kraft.yml when a broker dies in the middle of its broker roll (make test-migration, on the secured
ZooKeeper lab after migration_refusals.py): the run stops, naming the dead broker; once the broker's host is back,
the rerun resumes from the cluster's state and completes the step; records acknowledged meanwhile are all there."""

import re
import time

from lab_hosts import ssh_run

from lab import config, machines
from lab.cli import up
from lab.traffic import AckedProducer, read_all

UNTIL_BROKERS = ("-e", "migration_until=brokers_migration", "-e", "rolling_restart_stop_timeout=30")
HEALTHY_GATE = ("TASK [kafkaops.toolkit.roll : Gate: wait until it is registered and back in the ISR of every "
                "partition it hosts: ")


def _wait_registered(run_module, settings, broker_id, timeout=180):
    deadline = time.monotonic() + timeout
    while True:
        info = run_module("kafka_cluster_info", bootstrap_servers=settings["bootstrap_servers"],
                          zookeeper_connect=settings["zookeeper_connect"])
        if not info["failed"] and str(broker_id) in info["brokers"]:
            return
        assert time.monotonic() < deadline, f"broker {broker_id} did not register in {timeout} s"
        time.sleep(3)


def test_a_broker_killed_during_the_broker_roll_stops_the_run_and_the_rerun_completes(
        run_playbook, playbook_at, run_module, settings, brokers, bootstrap_servers, topic):
    producer = AckedProducer(bootstrap_servers, topic, rate=200)
    producer.start()
    try:
        proc, log = playbook_at("migrate_to_kraft.yml", UNTIL_BROKERS, HEALTHY_GATE, timeout=900)
        rolling = re.search(re.escape(HEALTHY_GATE) + r"(\S+?)\]", log.read_text()).group(1)
        victim = next(h for h in brokers if h.name != rolling)
        machines.power_off(victim)  # the broker dies with its host, mid roll
        proc.wait(timeout=900)
        stopped = log.read_text()
        assert proc.returncode != 0, stopped[-3000:]
        head = stopped.split("PLAY RECAP")[0]
        starts = [i for i in (head.find("fatal:"), head.find("UNREACHABLE")) if i >= 0]
        assert starts, head[-3000:]
        failure = head[min(starts):]
        # the reason: the dead broker's host, or the gate that will not stop another broker next to it
        assert (f"{victim.name} does not answer over SSH" in failure or "min.insync.replicas" in failure
                or "min ISR" in failure), failure[-3000:]
        print(failure[-2000:])

        up(config.load_hosts())  # its host is back; the broker starts at boot
        _wait_registered(run_module, settings, int(victim.name.removeprefix("kafka")))
        rerun = run_playbook("migrate_to_kraft.yml", *UNTIL_BROKERS)
        assert rerun.returncode == 0, rerun.output[-3000:]
        assert "steps done: controllers;" in rerun.output  # it resumed: the controllers step was not redone
        done = run_playbook("migrate_to_kraft.yml", *UNTIL_BROKERS, "--check")
        # (the controllers' metadata copy, the next step, follows on its own once every broker registered)
        assert "steps done: controllers, brokers_migration" in done.output, done.output[-3000:]
    finally:
        unreported = producer.stop()
    for host in brokers:  # every broker runs with the migration's settings
        assert "zookeeper.metadata.migration.enable=true" in ssh_run(host, "cat /etc/kafka/server.properties")
    assert unreported == 0
    assert producer.acked <= read_all(bootstrap_servers, topic, len(producer.acked))


JMXTOOL = "timeout 90 java -Xmx256m -cp '/opt/kafka/libs/*' {args} 2>&1; echo exit=$?"
KIT_ARGS = "/etc/kafka-controller/jmxtool.args"


def test_a_migrating_controllers_jmx_takes_only_its_read_only_login(controllers):
    """The controllers migrate (the step above): JMX is on for the kit's read of ZkMigrationState, on the loopback,
    and refuses a connection without the login; the kit's read (its arguments in a root-only file) gets the state."""
    host = controllers[0]
    kit = ssh_run(host, JMXTOOL.format(args="@" + KIT_ARGS))
    assert "ZkMigrationState" in kit and "exit=0" in kit, kit
    no_login = " ".join(line for line in ssh_run(host, f"cat {KIT_ARGS}").splitlines()
                        if line.strip() and not line.startswith("#") and "--jmx-auth-prop" not in line)
    refused = ssh_run(host, JMXTOOL.format(args=no_login))
    assert "exit=0" not in refused, refused  # the same port answered the kit's read just before
    modes = ssh_run(host, f"stat -c '%U %a' /etc/kafka-controller/jmxremote.password {KIT_ARGS}").split("\n")
    assert modes[:2] == ["kafka 600", "root 600"], modes
