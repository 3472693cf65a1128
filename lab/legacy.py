"""`python -m lab legacy-deploy --version V`: a ZooKeeper-mode cluster the kit did not deploy, the way a hand-written
runbook brings one up, for adopt_cluster.yml and upgrade_kafka.yml to take over (issue 32).

Nothing of the roles is used: Kafka's own layout under /opt/kafka_2.13-V (libs/, config/, logs/), its shipped config
files' style, units named apache-zookeeper.service and apache-kafka.service whose ExecStart is the command line
kafka-server-start.sh and zookeeper-server-start.sh would exec (kafka-run-class.sh's JVM options, the class path
spelled jar by jar), run as root, ZooKeeper data in /var/zookeeper, broker data in /var/lib/kafka/kafka-logs (the data
disk, another path than the roles'), PLAINTEXT listeners on 9092 advertised by name, ZooKeeper on 2181 without
TLS or login, no authorizer. The internal topics are replicated as a careful runbook sets them (RF 3, min ISR 2).
Research: docs/design/upgrade-research.md, section 8.
"""

import pathlib
import shlex
import time

from kazoo.client import KazooClient
from kazoo.handlers.threading import KazooTimeoutError

from . import config, machines
from .shell import LabError, run

ZOOKEEPER_UNIT, KAFKA_UNIT = "apache-zookeeper.service", "apache-kafka.service"
ZOOKEEPER_DATA, KAFKA_DATA = "/var/zookeeper", f"{config.DATA_DISK_MOUNT}/kafka-logs"
CLIENT_PORT, LISTENER_PORT = 2181, 9092
# kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS and its GC log, the heaps cut to the lab's size
JVM_OPTS = ("-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35",
            "-XX:+ExplicitGCInvokesConcurrent", "-XX:MaxInlineLevel=15", "-Djava.awt.headless=true")
HEAPS = {"kafka": "-Xmx512M -Xms512M", "zookeeper": "-Xmx256M -Xms256M"}
LOG4J = """log4j.rootLogger=INFO, stdout, kafkaAppender
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.appender.kafkaAppender=org.apache.log4j.DailyRollingFileAppender
log4j.appender.kafkaAppender.DatePattern='.'yyyy-MM-dd-HH
log4j.appender.kafkaAppender.File=${kafka.logs.dir}/server.log
log4j.appender.kafkaAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.kafkaAppender.layout.ConversionPattern=[%d] %p %m (%c)%n
"""


def home(version):
    return f"/opt/kafka_2.13-{version}"


def hosts_state(version):
    """Per broker and member, its legacy unit's main pid, start time and state, the checksum of its config file, its
    data dir's entries and what /opt and the units' dir hold: any change a run made to a legacy host shows."""
    state = {}
    for host in config.load_hosts():
        for group, unit_name, config_file, data in (("kafka_broker", KAFKA_UNIT, "server.properties", KAFKA_DATA),
                                                    ("zookeeper", ZOOKEEPER_UNIT, "zookeeper.properties",
                                                     ZOOKEEPER_DATA)):
            if group in host.groups:
                state[host.name] = machines.run_on(host, (
                    "systemctl show -p ExecMainPID -p ExecMainStartTimestampMonotonic -p ActiveState -p UnitFileState "
                    f"{unit_name} | sort; sha256sum {home(version)}/config/{config_file}; ls {data}; "
                    "ls /opt /etc/systemd/system"))
    return state


def archive(version):
    """The release's archive, built from Maven Central as make setup builds the kit's (dist/build_kafka_archive.sh)."""
    out = config.kafka_libs(version).parents[1]  # where make setup puts the kit's archives
    run("bash", str(config.REPO / "dist" / "build_kafka_archive.sh"), str(out), version)
    return out / f"kafka_2.13-{version}.tgz"


def zookeeper_properties(zookeeper_hosts):
    servers = "\n".join(f"server.{i}={h.fqdn}:2888:3888" for i, h in enumerate(zookeeper_hosts, 1))
    return (f"dataDir={ZOOKEEPER_DATA}\nclientPort={CLIENT_PORT}\nmaxClientCnxns=0\nadmin.enableServer=false\n"
            f"tickTime=2000\ninitLimit=10\nsyncLimit=5\n4lw.commands.whitelist=srvr,ruok,mntr\n{servers}\n")


def server_properties(broker_id, host, zookeeper_hosts):
    connect = ",".join(f"{h.fqdn}:{CLIENT_PORT}" for h in zookeeper_hosts)
    return (f"broker.id={broker_id}\nlisteners=PLAINTEXT://0.0.0.0:{LISTENER_PORT}\n"
            f"advertised.listeners=PLAINTEXT://{host.fqdn}:{LISTENER_PORT}\nnum.network.threads=3\n"
            f"num.io.threads=8\nlog.dirs={KAFKA_DATA}\nnum.partitions=1\noffsets.topic.replication.factor=3\n"
            "transaction.state.log.replication.factor=3\ntransaction.state.log.min.isr=2\nmin.insync.replicas=2\n"
            "default.replication.factor=3\nlog.retention.hours=168\nzookeeper.connection.timeout.ms=18000\n"
            f"zookeeper.connect={connect}\ngroup.initial.rebalance.delay.ms=3000\n")


def unit(version, kind, jars):
    """The unit a runbook writes around what kafka-run-class.sh execs for kind ('kafka' or 'zookeeper')."""
    base = home(version)
    main, config_file, name = {
        "kafka": ("kafka.Kafka", "server.properties", "kafkaServer"),
        "zookeeper": ("org.apache.zookeeper.server.quorum.QuorumPeerMain", "zookeeper.properties", "zookeeper"),
    }[kind]
    classpath = ":".join(f"{base}/bin/../libs/{jar}" for jar in sorted(jars))
    command = ["/usr/bin/java", *HEAPS[kind].split(), *JVM_OPTS,
               f"-Xlog:gc*:file={base}/bin/../logs/{name}-gc.log:time,tags:filecount=10,filesize=100M",
               "-Dcom.sun.management.jmxremote", "-Dcom.sun.management.jmxremote.authenticate=false",
               "-Dcom.sun.management.jmxremote.ssl=false", f"-Dkafka.logs.dir={base}/bin/../logs",
               f"-Dlog4j.configuration=file:{base}/bin/../config/log4j.properties", "-cp", classpath, main,
               f"{base}/config/{config_file}"]
    return (f"[Unit]\nDescription=Apache {'Kafka' if kind == 'kafka' else 'ZooKeeper'} {version}\n"
            "After=network-online.target\n\n[Service]\nType=simple\nUser=root\n"
            f"ExecStart={shlex.join(command)}\nRestart=on-failure\nTimeoutStopSec=120\n\n"
            "[Install]\nWantedBy=multi-user.target\n")


def install(host, version, tgz, files):
    """Unpack the release under /opt and write files ({path: text}) on host."""
    parents = sorted({str(pathlib.PurePosixPath(path).parent) for path in files})
    machines.run_on(host, f"mkdir -p {' '.join(map(shlex.quote, parents))}")
    with machines.ssh(host, timeout=30) as client, client.open_sftp() as sftp:
        sftp.put(str(tgz), f"/tmp/{tgz.name}")
        for path, text in files.items():
            with sftp.open(path, "w") as handle:
                handle.write(text)
    # Kafka's own archive has bin/ (its scripts) and the units name paths through it (bin/../logs); the kit's has none
    machines.run_on(host, f"tar -xzf /tmp/{tgz.name} -C /opt && rm /tmp/{tgz.name} && "
                          f"mkdir -p {home(version)}/bin {home(version)}/logs")


def deploy(version):
    """Bring up the lab's ZooKeeper hosts and brokers as a runbook would, at release version."""
    if not version.startswith(("2.8.", "3.")):
        raise LabError(f"legacy-deploy runs ZooKeeper-mode releases, 2.8.x to 3.9.x, not {version}")
    hosts = config.load_hosts()
    zookeeper_hosts = [h for h in hosts if "zookeeper" in h.groups]
    brokers = [h for h in hosts if "kafka_broker" in h.groups]
    if not zookeeper_hosts or not brokers:
        raise LabError("the lab inventory has no zookeeper or kafka_broker hosts")
    tgz = archive(version)
    jars = [line.rsplit("/", 1)[-1] for line in run("tar", "-tzf", str(tgz)).stdout.split()
            if "/libs/" in line and line.endswith(".jar")]
    config_dir = f"{home(version)}/config"
    for myid, host in enumerate(zookeeper_hosts, 1):
        install(host, version, tgz, {
            f"{config_dir}/zookeeper.properties": zookeeper_properties(zookeeper_hosts),
            f"{config_dir}/log4j.properties": LOG4J, f"{ZOOKEEPER_DATA}/myid": f"{myid}\n",
            f"/etc/systemd/system/{ZOOKEEPER_UNIT}": unit(version, "zookeeper", jars)})
        machines.run_on(host, f"systemctl daemon-reload && systemctl enable --now {ZOOKEEPER_UNIT}")
    for broker_id, host in enumerate(brokers, 1):
        install(host, version, tgz, {
            f"{config_dir}/server.properties": server_properties(broker_id, host, zookeeper_hosts),
            f"{config_dir}/log4j.properties": LOG4J,
            f"/etc/systemd/system/{KAFKA_UNIT}": unit(version, "kafka", jars)})
        machines.run_on(host, f"systemctl daemon-reload && systemctl enable --now {KAFKA_UNIT}")
    wait_registered(zookeeper_hosts[0], len(brokers))
    print(f"legacy cluster {version} up: ZooKeeper on {', '.join(h.name for h in zookeeper_hosts)} "
          f"({ZOOKEEPER_UNIT}, port {CLIENT_PORT}), brokers on {', '.join(h.name for h in brokers)} ({KAFKA_UNIT}, "
          f"PLAINTEXT {LISTENER_PORT}), under {home(version)}")


def wait_registered(zookeeper_host, count, timeout=180):
    """Until count brokers are registered in ZooKeeper (/brokers/ids, read over the plaintext client port)."""
    deadline, seen = time.monotonic() + timeout, "no answer"
    while time.monotonic() < deadline:
        client = KazooClient(hosts=f"{zookeeper_host.address}:{CLIENT_PORT}", timeout=5)
        try:
            client.start(timeout=10)
            ids = client.get_children("/brokers/ids") if client.exists("/brokers/ids") else []
            if len(ids) >= count:
                return
            seen = f"{len(ids)} of {count} registered"
        except KazooTimeoutError:
            seen = "ZooKeeper does not answer yet"
        finally:
            client.stop()
        time.sleep(3)
    raise LabError(f"the legacy brokers did not register within {timeout}s ({seen})")
