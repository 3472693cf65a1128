"""Commands on lab hosts over SSH (paramiko, the lab's key), for the integration tests."""

from lab.machines import run_on
from lab.measure import service_starts_since

# A command on a lab host as root: its stdout; a non-zero exit raises (and fails the test) with its stderr.
ssh_run = run_on

# Kafka's tool run on a controller host with that host's own client settings (the kafka_controller role's)
QUORUM_TOOL = ("timeout 90 java -Xmx256m -cp '/opt/kafka/libs/*' org.apache.kafka.tools.MetadataQuorumCommand "
               "--bootstrap-controller ctrl1.kafkalab.test:9090,ctrl2.kafkalab.test:9090,ctrl3.kafkalab.test:9090 "
               "--command-config {config} describe --{what} 2>&1")
TOOL_CONFIG = "/etc/kafka-controller/tool.properties"


def quorum(host, what="replication", config=TOOL_CONFIG):
    """kafka-metadata-quorum describe --replication (or --status) run on a controller host."""
    return ssh_run(host, QUORUM_TOOL.format(config=config, what=what))


def service_starts(hosts, unit):
    """Per host, (main pid, start time in the kernel's monotonic µs, shared by all lab hosts) of a unit:
    any restart changes it, and later starts compare greater."""
    starts = {}
    for h in hosts:
        # key=value lines: systemctl prints properties in its own order, not in the order asked
        shown = ssh_run(h, f"systemctl show -p ExecMainPID -p ExecMainStartTimestampMonotonic {unit}")
        values = dict(line.split("=", 1) for line in shown.split())
        starts[h.name] = (int(values["ExecMainPID"]), int(values["ExecMainStartTimestampMonotonic"]))
    return starts


def service_stop_and_start(hosts, unit):
    """Per host, (when the unit last stopped, when its main process last started), in the kernel's
    monotonic µs shared by all lab hosts: a restart that finished before another began shows as
    stop < start <= the other's stop."""
    times = {}
    for h in hosts:
        stop, start = "InactiveEnterTimestampMonotonic", "ExecMainStartTimestampMonotonic"
        values = dict(line.split("=", 1) for line in ssh_run(h, f"systemctl show -p {stop} -p {start} {unit}").split())
        times[h.name] = (int(values[stop]), int(values[start]))
    return times


def service_start_count(hosts, unit, since):
    """Per host, how many times systemd started the unit since `since` (seconds since the epoch)."""
    return {h.name: service_starts_since(h, unit, since) for h in hosts}
