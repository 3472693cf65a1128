"""Adoption's reading of what runs and its refusals (module_utils/kafka_adoption), on hand-written hosts."""

from plugins.module_utils import kafka_adoption as ka

HOME = "/opt/kafka_2.13-3.6.2"
# what kafka-server-start.sh runs (kafka-run-class.sh spells the class path jar by jar)
SCRIPT_ARGV = ["/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "-Xmx1G", "-Xms1G", "-server", "-XX:+UseG1GC",
               "-Dkafka.logs.dir=/opt/kafka_2.13-3.6.2/bin/../logs",
               "-Dlog4j.configuration=file:/opt/kafka_2.13-3.6.2/bin/../config/log4j.properties", "-cp",
               f"{HOME}/bin/../libs/activation-1.1.1.jar:{HOME}/bin/../libs/kafka_2.13-3.6.2.jar:"
               f"{HOME}/bin/../libs/zookeeper-3.8.4.jar", "kafka.Kafka", f"{HOME}/config/server.properties"]
UNIT_ARGV = ["/usr/bin/java", "-Xmx512m", "-cp", "/srv/zk/libs/*",
             "org.apache.zookeeper.server.quorum.QuorumPeerMain", "/srv/zk/config/zookeeper.properties"]


def test_a_broker_started_by_kafkas_scripts_is_read_with_its_release_config_and_heap():
    seen = ka.read_java_process(SCRIPT_ARGV)
    assert seen == {"kind": "broker", "main": "kafka.Kafka", "config": f"{HOME}/config/server.properties",
                    "release": "3.6.2", "zookeeper_release": "3.8.4", "java": SCRIPT_ARGV[0], "heap": "1G"}


def test_a_class_path_dir_is_read_through_its_jars_and_other_programs_are_not_kafka():
    jars = {"/srv/zk/libs": ["kafka_2.12-2.8.2.jar", "zookeeper-3.5.9.jar", "zookeeper-jute-3.5.9.jar"]}
    seen = ka.read_java_process(UNIT_ARGV, jars.get)
    assert (seen["kind"], seen["release"], seen["zookeeper_release"], seen["config"]) == (
        "zookeeper", "2.8.2", "3.5.9", "/srv/zk/config/zookeeper.properties")
    assert ka.read_java_process(UNIT_ARGV)["release"] is None  # the dir not listed: unknown, not guessed
    other = ka.read_java_process(["/usr/bin/java", "-jar", "/opt/app/app.jar", "--port", "8080"])
    assert other["kind"] is None
    assert ka.read_java_process(["/usr/bin/java", "-version"])["kind"] is None


def broker(host, broker_id="1", dirs=None, release="3.6.2", advertised=None, pid=100, unit="apache-kafka.service"):
    process = dict(ka.read_java_process(SCRIPT_ARGV), pid=pid, unit=unit, release=release)
    return {"processes": [process], "server": {"broker.id": broker_id},
            "log_dirs": dirs if dirs is not None else {"/var/lib/kafka/kafka-logs": {"broker.id": broker_id,
                                                                                    "cluster.id": "C1"}},
            "advertised": advertised or f"{host}.example.com"}


def zookeeper(pid=200):
    process = dict(ka.read_java_process(UNIT_ARGV), pid=pid, unit="apache-zookeeper.service")
    return {"processes": [process], "server": None, "log_dirs": {}, "advertised": None}


GROUPS = {"kafka_broker": ["kafka1", "kafka2"], "zookeeper": ["zk1"]}
REGISTERED = {1: "kafka1.example.com", 2: "kafka2.example.com"}


def cluster(**hosts):
    base = {"kafka1": broker("kafka1", "1"), "kafka2": broker("kafka2", "2"), "zk1": zookeeper()}
    base.update(hosts)
    return base


def rules(problems):
    return [p["rule"] for p in problems]


def test_one_cluster_on_one_release_is_adopted():
    assert ka.adoption_refusals(cluster(), GROUPS, REGISTERED) == []


def test_two_brokers_on_one_host_are_refused_naming_both():
    twice = broker("kafka1", "1")
    twice["processes"].append(dict(twice["processes"][0], pid=101, unit=None))
    problems = ka.adoption_refusals(cluster(kafka1=twice), GROUPS, REGISTERED)
    assert rules(problems) == ["adopt-ambiguous-host"]
    assert "kafka1 runs 2 broker processes (pid 100 (apache-kafka.service), pid 101)" in problems[0]["message"]


def test_a_host_of_the_inventory_that_runs_nothing_is_refused():
    idle = dict(broker("kafka2", "2"), processes=[], server=None)
    problems = ka.adoption_refusals(cluster(kafka2=idle), GROUPS, REGISTERED)
    assert rules(problems) == ["adopt-not-running"] and "kafka2 of kafka_broker runs no broker" in \
        problems[0]["message"]


def test_an_id_the_registry_gives_another_endpoint_is_refused():
    problems = ka.adoption_refusals(cluster(kafka2=broker("kafka2", "1")), GROUPS, {1: "kafka1.example.com"})
    assert rules(problems) == ["adopt-id-disagrees"]
    assert "kafka2 runs broker 1 as kafka2.example.com, and the cluster's registry has broker 1 at " \
           "kafka1.example.com" in problems[0]["message"]


def test_log_dirs_of_another_broker_or_cluster_are_refused():
    foreign = broker("kafka2", "2", dirs={"/data/a": {"broker.id": "2", "cluster.id": "C1"},
                                          "/data/b": {"broker.id": "3", "cluster.id": "C1"}, "/data/c": None})
    problems = ka.adoption_refusals(cluster(kafka2=foreign), GROUPS, REGISTERED)
    assert rules(problems) == ["adopt-other-data"]
    assert "kafka2:/data/b holds the data of broker 3 and kafka2 runs broker 2" in problems[0]["message"]
    other_cluster = broker("kafka2", "2", dirs={"/data/a": {"broker.id": "2", "cluster.id": "C2"}})
    problems = ka.adoption_refusals(cluster(kafka2=other_cluster), GROUPS, REGISTERED)
    assert rules(problems) == ["adopt-other-data"] and "C1: kafka1:/var/lib/kafka/kafka-logs; C2: kafka2:/data/a" in \
        problems[0]["message"]


def test_brokers_of_two_releases_or_an_unknown_one_are_refused():
    problems = ka.adoption_refusals(cluster(kafka2=broker("kafka2", "2", release="3.7.2")), GROUPS, REGISTERED)
    assert rules(problems) == ["adopt-mixed-releases"] and "run 3.6.2, 3.7.2" in problems[0]["message"]
    old = {"kafka1": broker("kafka1", "1", release="2.7.2"), "kafka2": broker("kafka2", "2", release="2.7.2")}
    assert rules(ka.adoption_refusals(cluster(**old), GROUPS, REGISTERED)) == ["version-unknown"]


def test_a_host_is_read_from_its_proc_and_the_files_its_processes_name(tmp_path):
    data, zk_data, etc = tmp_path / "kafka-logs", tmp_path / "zk", tmp_path / "etc"
    for d in (data, zk_data, etc):
        d.mkdir()
    (data / "meta.properties").write_text("version=0\nbroker.id=2\ncluster.id=C1\n")
    (zk_data / "myid").write_text("3\n")
    (etc / "server.properties").write_text(f"broker.id=2\nlog.dirs={data},{tmp_path}/absent\n")
    (etc / "zookeeper.properties").write_text(f"dataDir={zk_data}\n")
    libs = tmp_path / "libs"
    libs.mkdir()
    for jar in ("kafka_2.13-3.6.2.jar", "zookeeper-3.8.4.jar"):
        (libs / jar).write_text("")
    processes = {
        "100": (["/usr/bin/java", "-cp", f"{libs}/*", "kafka.Kafka", str(etc / "server.properties")],
                "0::/system.slice/apache-kafka.service\n"),
        "200": (["/usr/lib/jvm/bin/java", "-cp", f"{libs}/*", "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                 str(etc / "zookeeper.properties")], "0::/user.slice/user-0.slice/session-4.scope\n"),
        "300": (["/usr/sbin/sshd", "-D"], "0::/system.slice/ssh.service\n"),
        "400": (["/usr/bin/java", "-jar", "/opt/other.jar"], "0::/system.slice/other.service\n"),
    }
    proc = tmp_path / "proc"
    for pid, (argv, cgroup) in processes.items():
        (proc / pid).mkdir(parents=True)
        (proc / pid / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
        (proc / pid / "cgroup").write_text(cgroup)
    (proc / "self").mkdir()
    host = ka.read_host(str(proc))
    assert [(p["pid"], p["kind"], p["unit"], p["release"]) for p in host["processes"]] == [
        (100, "broker", "apache-kafka.service", "3.6.2"), (200, "zookeeper", "session-4.scope", "3.6.2")]
    assert host["server"]["broker.id"] == "2" and host["myid"] == 3 and host["errors"] == []
    assert host["log_dirs"] == {str(data): {"version": "0", "broker.id": "2", "cluster.id": "C1"},
                                f"{tmp_path}/absent": None}
