"""canary/verifiable.py without a cluster: Kafka's VerifiableProducer and VerifiableConsumer events (recorded from the
3.6.2 and 4.4.0 tools against a one-node broker) become exchange-format rows, failed sends and commit tallies; the
command lines fit each release's options; and a producer run's files, written through a stand-in for `java` that
prints those events, are read back by the ledger readers beside a canary's own."""

import hashlib
import json
import os
import pathlib
import sys
import textwrap
import time

import pytest

from canary import ledger as ledger_module
from canary import verifiable
from canary.ledger import LedgerWriter, read_acked, read_failed

# VerifiableProducer 3.6.2, --value-prefix 7 --max-messages 3, then one against an unreachable broker.
PRODUCER_OUTPUT = """\
{"timestamp":1795857598011,"name":"startup_complete"}
{"timestamp":1795857598239,"name":"producer_send_success","key":null,"value":"7.0","offset":119,"topic":"vt",\
"partition":1}
{"timestamp":1795857598243,"name":"producer_send_success","key":null,"value":"7.1","offset":120,"topic":"vt",\
"partition":1}
{"timestamp":1795857598243,"name":"producer_send_success","key":null,"value":"7.2","offset":121,"topic":"vt",\
"partition":1}
{"timestamp":1795857598251,"name":"shutdown_complete"}
{"timestamp":1795857598252,"name":"tool_data","sent":3,"acked":3,"target_throughput":100,\
"avg_throughput":12.244897959183673}
"""
SEND_ERROR = ('{"timestamp":1795857600482,"name":"producer_send_error","topic":"vt","key":null,"value":"8.0",'
              '"exception":"class org.apache.kafka.common.errors.TimeoutException",'
              '"message":"Topic vt not present in metadata after 1500 ms."}')

# VerifiableConsumer 4.4.0 (--consumer.config: its deprecation notice comes first, on stdout), its last commit turned
# into one that failed in a rebalance, as the tool prints those (OffsetsCommitted's error is left out when null).
CONSUMER_OUTPUT = """\
Option --consumer.config has been deprecated and will be removed in a future version. Use --command-config instead.
{"timestamp":1795857604720,"name":"startup_complete"}
{"timestamp":1795857605312,"name":"partitions_assigned","partitions":[{"topic":"vt","partition":0},{"topic":"vt",\
"partition":1},{"topic":"vt","partition":2}]}
{"timestamp":1795857605469,"name":"records_consumed","count":500,"partitions":[{"topic":"vt","partition":0,"count":500,\
"minOffset":0,"maxOffset":499}]}
{"timestamp":1795857605485,"name":"offsets_committed","offsets":[{"topic":"vt","partition":0,"offset":500}],\
"success":true}
{"timestamp":1795857605517,"name":"records_consumed","count":500,"partitions":[{"topic":"vt","partition":2,"count":123,\
"minOffset":0,"maxOffset":122},{"topic":"vt","partition":1,"count":122,"minOffset":0,"maxOffset":121},{"topic":"vt",\
"partition":0,"count":255,"minOffset":500,"maxOffset":754}]}
{"timestamp":1795857605523,"name":"offsets_committed","offsets":[{"topic":"vt","partition":2,"offset":123},\
{"topic":"vt","partition":1,"offset":122},{"topic":"vt","partition":0,"offset":755}],"success":true}
{"timestamp":1795857605535,"name":"records_consumed","count":231,"partitions":[{"topic":"vt","partition":2,"count":231,\
"minOffset":123,"maxOffset":353}]}
{"timestamp":1795857605540,"name":"offsets_committed","offsets":[{"topic":"vt","partition":2,"offset":354}],\
"success":false,\
"error":"Commit cannot be completed since the group has already rebalanced and assigned the partitions \
to another member."}
{"timestamp":1795857605547,"name":"partitions_revoked","partitions":[{"topic":"vt","partition":0},{"topic":"vt",\
"partition":1},{"topic":"vt","partition":2}]}
{"timestamp":1795857606064,"name":"shutdown_complete"}
{"timestamp":1795857606072,"name":"shutdown_requested"}
"""

# The usage lines of --help (3.6.2 and 4.4.0), which tool_options reads the options from.
PRODUCER_HELP_3_6 = """\
usage: verifiable-producer [-h] --topic TOPIC [--max-messages MAX-MESSAGES]
                           [--throughput THROUGHPUT] [--acks ACKS]
                           [--producer.config CONFIG_FILE]
                           [--message-create-time CREATETIME]
                           [--value-prefix VALUE-PREFIX]
                           [--repeating-keys REPEATING-KEYS]
                           (--bootstrap-server HOST1:PORT1[,HOST2:PORT2[...]]
                           | --broker-list HOST1:PORT1[,HOST2:PORT2[...]])
"""
PRODUCER_HELP_4_4 = """\
usage: verifiable-producer [-h] --topic TOPIC [--max-messages MAX-MESSAGES]
                           [--throughput THROUGHPUT] [--acks ACKS]
                           [--producer.config CONFIG-FILE]
                           [--message-create-time CREATE-TIME]
                           [--value-prefix VALUE-PREFIX]
                           [--repeating-keys REPEATING-KEYS]
                           [--command-config CONFIG-FILE]
                           --bootstrap-server HOST1:PORT1[,HOST2:PORT2[...]]
"""
CONSUMER_HELP_3_6 = """\
usage: verifiable-consumer [-h] --topic TOPIC --group-id GROUP_ID
                           [--group-instance-id GROUP_INSTANCE_ID]
                           [--max-messages MAX-MESSAGES]
                           [--session-timeout TIMEOUT_MS] [--verbose]
                           [--enable-autocommit]
                           [--reset-policy RESETPOLICY]
                           [--assignment-strategy ASSIGNMENTSTRATEGY]
                           [--consumer.config CONFIG_FILE]
                           (--bootstrap-server HOST1:PORT1[,HOST2:PORT2[...]]
                           | --broker-list HOST1:PORT1[,HOST2:PORT2[...]])
"""
CONSUMER_HELP_4_4 = """\
usage: verifiable-consumer [-h] --topic TOPIC
                           [--group-protocol GROUP-PROTOCOL]
                           [--group-remote-assignor GROUP-REMOTE-ASSIGNOR]
                           --group-id GROUP-ID
                           [--group-instance-id GROUP-INSTANCE-ID]
                           [--max-messages MAX-MESSAGES]
                           [--session-timeout TIMEOUT-MS] [--verbose]
                           [--enable-autocommit]
                           [--close-timeout CLOSE-TIMEOUT-MS]
                           [--reset-policy RESET-POLICY]
                           [--assignment-strategy ASSIGNMENT-STRATEGY]
                           [--consumer.config CONFIG-FILE]
                           [--command-config CONFIG-FILE]
                           --bootstrap-server HOST1:PORT1[,HOST2:PORT2[...]]
"""


def events(text):
    return [e for e in map(verifiable.parse_event, text.splitlines()) if e is not None]


def test_an_acknowledged_send_is_an_exchange_row_with_the_digest_of_the_value_as_sent():
    rows = [verifiable.producer_event_row(e) for e in events(PRODUCER_OUTPUT)]
    assert rows[0] is None and rows[-2:] == [None, None]  # startup_complete, shutdown_complete, tool_data
    assert rows[1] == {"topic": "vt", "partition": 1, "offset": 119, "key": None,
                       "sha256": hashlib.sha256(b"7.0").hexdigest(), "acked_at": 1795857598.239}
    assert [r["sha256"] for r in rows[2:4]] == [hashlib.sha256(b"7.1").hexdigest(),
                                                hashlib.sha256(b"7.2").hexdigest()]


def test_a_value_is_hashed_as_its_utf8_bytes_and_no_value_has_no_digest():
    assert verifiable.value_sha256("12") == hashlib.sha256(b"12").hexdigest()  # without --value-prefix: "N"
    assert verifiable.value_sha256("é.1") == hashlib.sha256("é.1".encode()).hexdigest()
    event = json.loads(PRODUCER_OUTPUT.splitlines()[1]) | {"value": None}
    assert verifiable.producer_event_row(event)["sha256"] is None


def test_a_send_error_is_a_failed_delivery_as_the_canary_records_them():
    event = verifiable.parse_event(SEND_ERROR)
    assert verifiable.producer_event_row(event) is None
    assert verifiable.producer_failure_row(event) == {
        "key": None, "error": "org.apache.kafka.common.errors.TimeoutException: Topic vt not present in metadata "
                              "after 1500 ms.",
        "sent_at": None, "at": 1795857600.482, "topic": "vt", "value": "8.0"}
    assert verifiable.producer_failure_row(events(PRODUCER_OUTPUT)[1]) is None


def test_only_json_events_are_events():
    assert verifiable.parse_event(CONSUMER_OUTPUT.splitlines()[0]) is None  # 4.x's notice on stdout
    assert verifiable.parse_event("{not json") is None
    assert verifiable.parse_event('{"timestamp": 1}') is None
    assert verifiable.parse_event("  \n") is None
    assert verifiable.parse_event('{"timestamp":1,"name":"startup_complete"}\n')["name"] == "startup_complete"


def test_the_consumer_tally_counts_records_and_commits_and_keeps_the_last_committed_offsets():
    progress = verifiable.ConsumerProgress()
    for event in events(CONSUMER_OUTPUT):
        progress.add(event)
    assert progress.consumed == 1231
    assert (progress.commits, progress.commit_failures) == (2, 1)
    assert progress.last_committed == {0: 755, 1: 122, 2: 123}  # the failed commit of partition 2 did not count
    assert progress.last_commit_error.startswith("Commit cannot be completed")


def test_the_options_come_from_the_help():
    options = verifiable.help_options(PRODUCER_HELP_4_4)
    assert {"--command-config", "--producer.config", "--bootstrap-server", "--value-prefix", "--topic"} <= options
    assert "--broker-list" not in options and "--help" not in options  # -h alone: not an option name here
    assert "--broker-list" in verifiable.help_options(PRODUCER_HELP_3_6)


@pytest.fixture
def fake_home(tmp_path):
    home = tmp_path / "kafka_2.13-3.6.2"
    (home / "libs").mkdir(parents=True)
    for jar in ("kafka-clients-3.6.2.jar", "kafka-tools-3.6.2.jar", "kafka-tools-api-3.6.2.jar"):
        (home / "libs" / jar).touch()
    return home


def test_the_release_is_the_client_jars(fake_home, tmp_path):
    assert verifiable.kafka_release(fake_home) == "3.6.2"
    with pytest.raises(ValueError, match="not a Kafka distribution"):
        verifiable.kafka_release(tmp_path)


def test_the_command_lines_per_release(fake_home):
    command = verifiable.java_command("java", fake_home, verifiable.PRODUCER_CLASS, ["--topic", "t"])
    assert command == ["java", "-Xmx256m", "-cp", f"{fake_home}/libs/*", "org.apache.kafka.tools.VerifiableProducer",
                       "--topic", "t"]
    assert verifiable.producer_args(verifiable.help_options(PRODUCER_HELP_3_6), "k1:9093", "vt", 50, "/p/c.properties",
                                    value_prefix=3) == [
        "--bootstrap-server", "k1:9093", "--topic", "vt", "--throughput", "50", "--acks", "-1",
        "--producer.config", "/p/c.properties", "--value-prefix", "3"]
    new = verifiable.producer_args(verifiable.help_options(PRODUCER_HELP_4_4), "k1:9093", "vt", 50, "/p/c.properties",
                                   value_prefix=3, max_messages=10)
    assert new[new.index("--command-config") + 1] == "/p/c.properties" and "--producer.config" not in new
    assert new[-2:] == ["--max-messages", "10"]
    oldest = verifiable.producer_args({"--topic", "--broker-list", "--producer.config"}, "k1:9093", "vt", 5, "/c")
    assert oldest[:2] == ["--broker-list", "k1:9093"] and "--value-prefix" not in oldest

    consumer = verifiable.consumer_args(verifiable.help_options(CONSUMER_HELP_3_6), "k1:9093", "vt", "g", "/c")
    assert consumer == ["--bootstrap-server", "k1:9093", "--topic", "vt", "--group-id", "g", "--reset-policy",
                        "earliest", "--consumer.config", "/c"]
    assert "--enable-autocommit" not in consumer  # the tool commits itself, and says so
    consumer = verifiable.consumer_args(verifiable.help_options(CONSUMER_HELP_4_4), "k1:9093", "vt", "g", "/c")
    assert consumer[-2:] == ["--command-config", "/c"]


def test_a_name_must_not_look_like_a_canary_writer_and_the_addresses_are_needed(fake_home, tmp_path):
    for name in ("2024run", "failed-run"):  # a canary writer's, a failed file's
        with pytest.raises(ValueError, match="a letter first"):
            verifiable.VerifiableProducer(fake_home, {"bootstrap.servers": "k:1"}, "t", tmp_path / "l", name=name)
    with pytest.raises(ValueError, match="no bootstrap servers"):
        verifiable.VerifiableProducer(fake_home, {"security.protocol": "SSL"}, "t", tmp_path / "l")
    consumer = verifiable.VerifiableConsumer(fake_home, {"security.protocol": "SSL"}, "t", "g",
                                             bootstrap_servers="k:1")
    assert consumer.bootstrap_servers == "k:1"


FAKE_JAVA = """\
#!{python}
# Stands in for `java -cp ... <tool> ARGS`: --help prints the recorded usage; a run records its arguments and its
# properties file, prints the recorded events (the producer's with its --value-prefix) and, on SIGTERM, what the tool
# prints as it shuts down.
import json, os, signal, sys, time
HELP, EVENTS = {help!r}, {events!r}
tool = next(a for a in sys.argv if a.startswith("org.apache.kafka.tools."))
args = sys.argv[sys.argv.index(tool) + 1:]
if "--help" in args:
    print(HELP[tool])
    sys.exit(1)
config = args[args.index(next(a for a in args if a.endswith("config"))) + 1]
with open(os.environ["FAKE_JAVA_RECORD"], "a") as record:
    record.write(json.dumps({{"argv": sys.argv, "mode": os.stat(config).st_mode & 0o777,
                             "config": open(config).read()}}) + "\\n")
print("a warning on stderr", file=sys.stderr, flush=True)

def stop(*_):
    print('{{"timestamp":1795857601996,"name":"shutdown_complete"}}', flush=True)
    print('{{"timestamp":1795857601998,"name":"tool_data","sent":4,"acked":3,"target_throughput":50,'
          '"avg_throughput":2.0}}', flush=True)
    sys.exit(143)

signal.signal(signal.SIGTERM, stop)
prefix = args[args.index("--value-prefix") + 1] if "--value-prefix" in args else "x"
for line in EVENTS[tool]:
    print(line.replace('"value":"7.', '"value":"' + prefix + '.'), flush=True)
while True:
    time.sleep(0.05)
"""


@pytest.fixture
def fake_java(tmp_path, monkeypatch):
    record = tmp_path / "java-runs.jsonl"
    monkeypatch.setenv("FAKE_JAVA_RECORD", str(record))
    produced = PRODUCER_OUTPUT.splitlines()[:4] + [SEND_ERROR.replace('"value":"8.0"', '"value":"7.3"')]
    java = tmp_path / "java"
    java.write_text(FAKE_JAVA.format(python=sys.executable, help={
        verifiable.PRODUCER_CLASS: PRODUCER_HELP_3_6, verifiable.CONSUMER_CLASS: CONSUMER_HELP_4_4}, events={
        verifiable.PRODUCER_CLASS: produced, verifiable.CONSUMER_CLASS: CONSUMER_OUTPUT.splitlines()}))
    java.chmod(0o755)
    return str(java), lambda: [json.loads(line) for line in record.read_text().splitlines()]


def _wait_for(condition, timeout=20):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_producer_runs_write_files_the_ledger_readers_read_beside_a_canarys(fake_home, fake_java, tmp_path,
                                                                            monkeypatch):
    java, runs = fake_java
    folder = tmp_path / "run" / "ledger"
    monkeypatch.setattr(ledger_module, "FLUSH_S", 0)
    canary = LedgerWriter(folder)  # a canary's closed segment, and its failed file
    canary.add("canary", 0, 0, "canary-0", hashlib.sha256(b"c0").digest(), 10.0, 11.0)
    canary.close()

    props = {"bootstrap.servers": "k1:9093", "security.protocol": "SSL", "ssl.keystore.key": "-----BEGIN\nKEY"}
    producer = verifiable.VerifiableProducer(fake_home, props, "vt", folder, throughput=50, java=java).start()
    assert producer.wait_started(20)
    _wait_for(lambda: producer.failed == 1)
    private = producer._private_dir
    summary = producer.stop(timeout=20)
    assert summary == {"tool": "VerifiableProducer 3.6.2", "exit": 143, "acked": 3, "failed": 1, "sent": 4,
                       "value_prefix": 1, "ledger_file": str(folder / "verifiable-000001.tail-0001.jsonl"),
                       "log": str(tmp_path / "run" / "verifiable-000001.log")}
    assert producer.shutdown_complete and not private.exists()  # the credential is gone with the tool

    # The security changed: a new object, its own run number, files and values.
    second = verifiable.VerifiableProducer(fake_home, props | {"bootstrap.servers": "k1:9094"}, "vt", folder,
                                           java=java).start()
    assert second.wait_started(20)
    _wait_for(lambda: second.acked == 3)
    assert second.stop(timeout=20)["value_prefix"] == 2

    first_run, second_run = runs()
    argv = first_run["argv"]
    assert argv[argv.index("--bootstrap-server") + 1] == "k1:9093" and argv[argv.index("--value-prefix") + 1] == "1"
    assert argv[argv.index("--acks") + 1] == "-1" and argv[argv.index("--throughput") + 1] == "50"
    assert any(a.startswith("-Dlog4j.configuration=file:") for a in argv)
    assert first_run["mode"] == 0o600 and "ssl.keystore.key=-----BEGIN\\nKEY\n" in first_run["config"]
    assert second_run["argv"][second_run["argv"].index("--bootstrap-server") + 1] == "k1:9094"

    names = sorted(os.listdir(folder))
    assert {"verifiable-000001.tail-0001.jsonl", "verifiable-000002.tail-0001.jsonl",
            "failed-verifiable-000001.jsonl"} <= set(names)
    assert ledger_module.ledger_files(names)[1] == ["verifiable-000001.tail-0001.jsonl",
                                                    "verifiable-000002.tail-0001.jsonl"]
    acked = read_acked(folder)
    assert [r["key"] for r in acked if r["topic"] == "canary"] == ["canary-0"]
    ours = [r for r in acked if r["topic"] == "vt"]
    assert [(r["offset"], r["sha256"]) for r in ours] == [
        (119 + i, hashlib.sha256(f"{run}.{i}".encode()).hexdigest()) for run in (1, 2) for i in range(3)]
    assert all(r["acked_at"] == 1795857598.239 for r in ours[::3])
    failed = read_failed(folder)
    assert [f["value"] for f in failed] == ["1.3", "2.3"] and all(f["error"].startswith("org.apache") for f in failed)

    log = pathlib.Path(summary["log"]).read_text()
    assert "a warning on stderr" in log


def test_a_consumer_run_reports_its_commits(fake_home, fake_java, tmp_path):
    java, runs = fake_java
    log = tmp_path / "logs" / "consumer.log"
    consumer = verifiable.VerifiableConsumer(fake_home, {"bootstrap.servers": "k1:9093"}, "vt", "verifiable-group",
                                             log_path=log, java=java).start()
    assert consumer.wait_started(20)
    _wait_for(lambda: consumer.progress.commit_failures == 1)
    summary = consumer.stop(timeout=20)
    assert summary == {"tool": "VerifiableConsumer 3.6.2", "exit": 143, "consumed": 1231, "commits": 2,
                       "commit_failures": 1, "last_committed": {0: 755, 1: 122, 2: 123},
                       "group_id": "verifiable-group",
                       "last_commit_error": "Commit cannot be completed since the group has already rebalanced and "
                                            "assigned the partitions to another member.", "log": str(log)}
    argv = runs()[0]["argv"]
    assert argv[argv.index("--group-id") + 1] == "verifiable-group" and "--command-config" in argv
    assert "--enable-autocommit" not in argv
    text = log.read_text()
    assert "a warning on stderr" in text and "[stdout] Option --consumer.config has been deprecated" in text


def test_the_validator_reads_a_producer_file_beside_a_canary_segment(spark_session, tmp_path):
    from lab.config import REPO
    sys.path.insert(0, str(REPO / "spark"))
    import validate_recovery

    folder = tmp_path / "ledger"
    canary = LedgerWriter(folder)
    canary.add("canary", 0, 0, "canary-0", hashlib.sha256(b"c0").digest(), 10.0, 11.0)
    canary.close()
    rows = [verifiable.producer_event_row(e) for e in events(PRODUCER_OUTPUT)]
    (folder / "verifiable-000001.tail-0001.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows if r is not None))
    ledger, jsonl_file = validate_recovery.read_ledger(spark_session, str(folder))
    got = sorted((r["topic"], r["offset"], r["sha256"].hex(), r["_malformed"]) for r in ledger.collect())
    assert jsonl_file is None
    assert got == [("canary", 0, hashlib.sha256(b"c0").hexdigest(), False)] + [
        ("vt", 119 + i, hashlib.sha256(f"7.{i}".encode()).hexdigest(), False) for i in range(3)]


def test_the_producer_file_is_private_to_its_run(fake_home, tmp_path):
    """Two producers claiming a run in one folder get two numbers (the file is created exclusively); a canary's
    files, whose random token may be digits alone, take none."""
    folder = tmp_path / "ledger"
    folder.mkdir()
    for canary_file in ("failed-20260101T000000-123456.jsonl", "20260101T000000-123456-000007.tail-0001.jsonl"):
        (folder / canary_file).touch()
    first = verifiable.VerifiableProducer(fake_home, {"bootstrap.servers": "k:1"}, "t", folder)
    second = verifiable.VerifiableProducer(fake_home, {"bootstrap.servers": "k:1"}, "t", folder, name="other")
    claims = [first._claim_run(), second._claim_run()]
    for _, _, handle in claims:
        handle.close()
    assert [run for run, _, _ in claims] == [1, 2]
    assert claims[1][1].name == "other-000002.tail-0001.jsonl" and claims[1][1].is_file()


def test_a_release_without_the_tool_options_is_refused(fake_home, tmp_path):
    java = tmp_path / "java-broken"
    java.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import sys
        print("Error: Could not find or load main class", file=sys.stderr)
        sys.exit(1)
        """))
    java.chmod(0o755)
    with pytest.raises(RuntimeError, match="printed no usage"):
        verifiable.tool_options(str(java), str(fake_home), verifiable.PRODUCER_CLASS)
