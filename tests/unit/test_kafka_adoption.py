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
    # the jars it holds open name what it runs: the dir may since point at another release
    upgraded = ka.read_java_process(UNIT_ARGV, jars.get, ["kafka_2.13-3.9.2.jar", "zookeeper-3.8.4.jar"])
    assert (upgraded["release"], upgraded["zookeeper_release"]) == ("3.9.2", "3.8.4")
    # open jars that name no release (the JVM never opened that jar): the class path's
    assert ka.read_java_process(UNIT_ARGV, jars.get, ["zookeeper-jute-3.5.9.jar"])["release"] == "2.8.2"
    other = ka.read_java_process(["/usr/bin/java", "-jar", "/opt/app/app.jar", "--port", "8080"])
    assert other["kind"] is None
    assert ka.read_java_process(["/usr/bin/java", "-version"])["kind"] is None


def test_open_jar_names_are_the_jars_among_a_process_open_files_removed_or_not():
    assert ka.open_jar_names(["/dev/null", "socket:[4711]", "/opt/kafka_2.13-3.9.2/libs/kafka_2.13-3.9.2.jar",
                              "/opt/kafka_2.13-3.9.2/libs/kafka-clients-3.9.2.jar (deleted)", "/var/log/x.log",
                              "/opt/kafka_2.13-3.9.2/libs/kafka_2.13-3.9.2.jar"]) == [
        "kafka-clients-3.9.2.jar", "kafka_2.13-3.9.2.jar"]
    assert ka.open_jar_names([]) == []


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
    # the broker was started before libs/ was moved on: its open jars are 3.9.2's, the dir now lists 3.6.2's
    (proc / "100" / "fd").mkdir()
    (proc / "100" / "fd" / "0").symlink_to("/dev/null")
    (proc / "100" / "fd" / "7").symlink_to("/opt/kafka_2.13-3.9.2/libs/kafka_2.13-3.9.2.jar")
    host = ka.read_host(str(proc))
    assert [(p["pid"], p["kind"], p["unit"], p["release"]) for p in host["processes"]] == [
        (100, "broker", "apache-kafka.service", "3.9.2"), (200, "zookeeper", "session-4.scope", "3.6.2")]
    assert host["server"]["broker.id"] == "2" and host["myid"] == 3 and host["errors"] == []
    assert host["log_dirs"] == {str(data): {"version": "0", "broker.id": "2", "cluster.id": "C1"},
                                f"{tmp_path}/absent": None}


# --- adoption_plan: a legacy-deploy cluster (lab/legacy.py's configs) as the hosts read it -----------------------

ZK_CFG = ("dataDir=/var/zookeeper\nclientPort=2181\nmaxClientCnxns=0\nadmin.enableServer=false\ntickTime=2000\n"
          "initLimit=10\nsyncLimit=5\n4lw.commands.whitelist=srvr,ruok,mntr\n"
          + "".join(f"server.{i}=zk{i}.lab.test:2888:3888\n" for i in (1, 2, 3)))


def server_properties(broker_id, extra=""):
    return (f"broker.id={broker_id}\nlisteners=PLAINTEXT://0.0.0.0:9092\n"
            f"advertised.listeners=PLAINTEXT://kafka{broker_id}.lab.test:9092\nnum.io.threads=8\n"
            "log.dirs=/var/lib/kafka/kafka-logs\nnum.partitions=1\nmin.insync.replicas=2\n"
            "zookeeper.connect=zk1.lab.test:2181,zk2.lab.test:2181,zk3.lab.test:2181\n" + extra)


def legacy_broker(broker_id, text=None, heap="512M"):
    process = dict(ka.read_java_process(SCRIPT_ARGV), pid=100 + broker_id, unit="apache-kafka.service", heap=heap)
    process["config_properties"] = ka.kafka_identity.parse_properties(text or server_properties(broker_id))
    return {"processes": [process], "server": process["config_properties"], "myid": None, "errors": [],
            "log_dirs": {"/var/lib/kafka/kafka-logs": {"broker.id": str(broker_id), "cluster.id": "C1"}}}


def legacy_member(myid, text=ZK_CFG):
    process = dict(ka.read_java_process(UNIT_ARGV), pid=200 + myid, unit="apache-zookeeper.service", heap="256M",
                   release="3.6.2")
    process["config_properties"] = ka.kafka_identity.parse_properties(text)
    return {"processes": [process], "server": None, "log_dirs": {}, "myid": myid, "errors": []}


LEGACY_GROUPS = {"kafka_broker": ["kafka1", "kafka2", "kafka3"], "zookeeper": ["zk1", "zk2", "zk3"]}
KIT = {"addresses": {}, "advertised": {f"kafka{i}": f"kafka{i}.lab.test" for i in (1, 2, 3)}, "ids": {},
       "ports": {"kafka_port": 9093, "kafka_replication_port": 9091, "zookeeper_client_port": 2182},
       # the connection role's defaults, as the playbook passes them
       "policy": {"kafka_auto_create_topics_enable": False, "kafka_num_partitions": 3,
                  "kafka_default_replication_factor": 3, "kafka_min_insync_replicas": 2,
                  "kafka_unclean_leader_election_enable": False}}


def legacy(**changed):
    hosts = {**{f"kafka{i}": legacy_broker(i) for i in (1, 2, 3)}, **{f"zk{i}": legacy_member(i) for i in (1, 2, 3)}}
    hosts.update(changed)
    return hosts


def plan(hosts=None, kit=None, registered=None):
    return ka.adoption_plan(hosts or legacy(), LEGACY_GROUPS,
                            registered or {i: f"kafka{i}.lab.test" for i in (1, 2, 3)}, kit or KIT)


def test_an_open_legacy_cluster_is_described_by_the_kits_variables():
    result = plan()
    assert result["refusals"] == []
    assert result["group_vars"] == {
        "kafka_version": "3.6.2", "kafka_metadata_mode": "zookeeper", "kafka_plaintext_port": 9092,
        "kafka_zookeeper_chroot": "", "zookeeper_plaintext_client_port": 2181, "zookeeper_peer_port": 2888,
        "zookeeper_election_port": 3888, "kafka_install_dir": "/opt/kafkaops", "kafka_home": "/opt/kafkaops/kafka",
        "kafka_num_io_threads": 8, "kafka_min_insync_replicas": 2, "zookeeper_tick_time": 2000,
        "zookeeper_init_limit": 10, "zookeeper_sync_limit": 5, "zookeeper_max_client_cnxns": 0,
        "zookeeper_four_letter_words": ["srvr", "ruok", "mntr"], "zookeeper_admin_server_enabled": False}
    assert result["host_vars"]["kafka2"] == {"kafka_broker_id": 2, "kafka_log_dirs": ["/var/lib/kafka/kafka-logs"],
                                            "kafka_adopted_unit": "apache-kafka.service", "kafka_heap_size": "512M",
                                            "kafka_java_bin": SCRIPT_ARGV[0]}  # not /usr/bin/java: carried
    assert result["host_vars"]["zk3"] == {"zookeeper_id": 3, "zookeeper_data_dir": "/var/zookeeper",
                                         "zookeeper_adopted_unit": "apache-zookeeper.service",
                                         "zookeeper_heap_size": "256M"}
    assert result["review"]["kafka1"] == [("num.partitions", "1")]
    # the open state is secure_cluster.yml's state after its first step, its exposures accepted by name
    assert result["open"]["kafka_plaintext_listener"] is True and result["open"]["zookeeper_client_tls"] is False
    assert "kafka_plaintext_super_user" in result["open"]["kafka_security_exposures_accepted"]
    assert result["open"]["kafka_client_security_protocol"] == "PLAINTEXT"


def test_a_setting_the_brokers_disagree_on_is_each_hosts_own_and_a_shared_one_is_refused():
    hosts = legacy(kafka3=legacy_broker(3, server_properties(3).replace("num.io.threads=8", "num.io.threads=16")))
    result = plan(hosts)
    assert "kafka_num_io_threads" not in result["group_vars"]
    assert [result["host_vars"][h]["kafka_num_io_threads"] for h in ("kafka1", "kafka2", "kafka3")] == [8, 8, 16]
    chroot = server_properties(3).replace(":2181\n", ":2181/kafka\n")
    assert rules(plan(legacy(kafka3=legacy_broker(3, chroot)))["refusals"]) == ["adopt-ambiguous-setting"]


def test_a_secured_cluster_is_refused_naming_what_is_secured():
    sasl = server_properties(1).replace("listeners=PLAINTEXT://0.0.0.0:9092",
                                        "listeners=PLAINTEXT://0.0.0.0:9092,SASL_SSL://0.0.0.0:9094")
    result = plan(legacy(kafka1=legacy_broker(1, sasl)))
    assert rules(result["refusals"]) == ["adopt-not-open"]
    assert "SASL_SSL is SASL_SSL" in result["refusals"][0]["message"]
    assert result["group_vars"] == {} and result["host_vars"] == {}
    tls = legacy_member(2, ZK_CFG + "secureClientPort=2182\n")
    assert rules(plan(legacy(zk2=tls))["refusals"]) == ["adopt-not-open"]


def test_a_port_the_kits_listeners_need_is_refused_naming_the_variable_to_move():
    result = plan(kit=dict(KIT, ports=dict(KIT["ports"], kafka_port=9092)))
    assert rules(result["refusals"]) == ["adopt-port-clash"]
    assert "set kafka_port to a free port" in result["refusals"][0]["message"]
    as_extra_var = plan(kit=dict(KIT, ports=dict(KIT["ports"], kafka_port="9092")))  # -e kafka_port=9092: a string
    assert rules(as_extra_var["refusals"]) == ["adopt-port-clash"]


def test_brokers_of_another_ensemble_or_a_member_outside_the_inventory_are_refused():
    other = server_properties(2).replace("zk1.lab.test:2181,zk2.lab.test:2181,zk3.lab.test:2181", "zk9.other:2181")
    assert rules(plan(legacy(kafka2=legacy_broker(2, other)))["refusals"]) == ["adopt-other-ensemble"]
    four = ZK_CFG + "server.4=zk4.lab.test:2888:3888\n"
    result = plan(legacy(**{f"zk{i}": legacy_member(i, four) for i in (1, 2, 3)}))
    assert set(rules(result["refusals"])) == {"adopt-other-ensemble"}


def test_an_id_the_inventory_gives_otherwise_and_an_unreadable_file_are_refused():
    result = plan(kit=dict(KIT, ids={"kafka1": 1, "kafka2": 5}))
    assert rules(result["refusals"]) == ["adopt-id-disagrees"]
    assert "kafka_broker_id=5" in result["refusals"][0]["message"]
    unreadable = dict(legacy_member(1), errors=["ZooKeeper's myid: [Errno 13] Permission denied"])
    assert "adopt-unreadable" in rules(plan(legacy(zk1=unreadable))["refusals"])


def test_the_layer_is_written_with_its_header_secrets_hidden_and_a_persons_file_refused():
    written = ka.inventory_files(plan(), {})
    assert written["refusals"] == []
    files = written["files"]
    assert set(files) == {"hosts.yml", "group_vars/all/adopted-cluster.yml", "group_vars/all/open-until-secured.yml",
                          *(f"host_vars/{h}.yml" for h in ("kafka1", "kafka2", "kafka3", "zk1", "zk2", "zk3"))}
    assert all(text.startswith(ka.HEADER) for text in files.values())
    assert 'kafka_version: "3.6.2"\n' in files["group_vars/all/adopted-cluster.yml"]
    assert "#   num.partitions=1\n" in files["host_vars/kafka1.yml"]
    # a rerun rewrites the kit's own files; a person's file is refused and nothing is written
    assert ka.inventory_files(plan(), files)["refusals"] == []
    theirs = ka.inventory_files(plan(), {"host_vars/zk1.yml": "zookeeper_id: 1\n"})
    assert rules(theirs["refusals"]) == ["adopt-would-overwrite"] and theirs["files"] == {}
    hidden = ka.inventory_files(plan(), {"group_vars/all.yml": "kafka_version: 3.6.2\n"})
    assert rules(hidden["refusals"]) == ["adopt-would-overwrite"]


def test_the_topic_policy_the_takeover_changes_is_said_against_kafkas_defaults_and_what_is_carried():
    # the legacy brokers set num.partitions=1 and min.insync.replicas=2 (carried) and leave the rest to Kafka
    result = plan()
    assert result["changes"] == [("auto.create.topics.enable", "true", "false"), ("num.partitions", "1", "3"),
                                 ("default.replication.factor", "1", "3")]
    files = ka.inventory_files(result, {})["files"]
    assert "#   auto.create.topics.enable: true -> false\n" in files["group_vars/all/adopted-cluster.yml"]
    assert ("The takeover changes the topic policy the brokers run: auto.create.topics.enable true -> false; "
            "num.partitions 1 -> 3; default.replication.factor 1 -> 3") in ka.plan_lines(legacy(), result)
    # a value the brokers set is theirs; one the kit renders alike, or carries, is no change
    hosts = legacy(**{f"kafka{i}": legacy_broker(i, server_properties(
        i, "auto.create.topics.enable=FALSE\ndefault.replication.factor=3\nnum.partitions=3\n")) for i in (1, 2, 3)})
    assert plan(hosts)["changes"] == []
    one = legacy(kafka2=legacy_broker(2, server_properties(2, "min.insync.replicas=1\n")))  # the last line wins
    assert [key for key, _, _ in plan(one)["changes"]] == [
        "auto.create.topics.enable", "num.partitions", "default.replication.factor"]  # each host's own kept
    assert plan(kit=dict(KIT, policy=dict(KIT["policy"], kafka_auto_create_topics_enable="True")))["changes"][0] == (
        "num.partitions", "1", "3")  # -e kafka_auto_create_topics_enable=True: a string, the same value


def test_the_registry_is_read_from_the_members_that_run_by_the_kits_address_and_the_brokers_chroot():
    kit = dict(KIT, addresses={"zk1": "10.0.0.11", "zk2": "10.0.0.12", "zk3": "10.0.0.13"})
    assert ka.registry_connect(legacy(), LEGACY_GROUPS, kit) == "10.0.0.11:2181,10.0.0.12:2181,10.0.0.13:2181"
    chrooted = {f"kafka{i}": legacy_broker(i, server_properties(i).replace(":2181\n", ":2181/kafka\n"))
                for i in (1, 2, 3)}
    idle = dict(legacy_member(3), processes=[])
    assert ka.registry_connect(legacy(zk3=idle, **chrooted), LEGACY_GROUPS, KIT) == "zk1:2181,zk2:2181/kafka"
    assert ka.registry_connect(legacy(**{f"zk{i}": dict(legacy_member(i), processes=[]) for i in (1, 2, 3)}),
                               LEGACY_GROUPS, KIT) is None


def test_a_secret_the_plan_does_not_carry_is_listed_without_its_value():
    text = server_properties(1, "sasl.jaas.config=secret-stuff\nlog.cleaner.threads=2\n")
    assert ka._review(ka.kafka_identity.parse_properties(text), ka._BROKER_READ | set(ka.BROKER_KEYS)) == [
        ("log.cleaner.threads", "2"), ("num.partitions", "1"), ("sasl.jaas.config", "(hidden: a secret)")]
