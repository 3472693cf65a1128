"""Kafka's own VerifiableProducer and VerifiableConsumer, run from a Kafka distribution against a cluster: witnesses
the kit did not write. The producer's acknowledgements go into a canary ledger folder in the exchange format
(spark/README.md), so the validator checks them after a recovery as it checks the canary's own; the consumer
commits its group's offsets itself, so the validator can check later that the cluster kept them.

Each tool runs in the background (java -cp <home>/libs/* <main class>), the JSON events it prints on stdout read by
a thread; its stderr, and any stdout line that is not an event, go to a log file. The client properties (a
credential among them) are in a private file for the tool's lifetime. When the cluster's security changes, a new
object with the new properties takes over: each producer run writes files of its own into the ledger folder.

A producer run's files in the ledger folder (RUN: its name and a run number, NAME-000003; a name starts with a
letter, a canary writer's with a digit, so they never collide):

- RUN.tail-0001.jsonl: one exchange-format line per acknowledged record, appended and flushed line by line; the
  ledger readers (canary/ledger.py ledger_files) take it as the tail of a segment never closed. Read it after
  stop(): a read while the tool runs may end on a half-written line.
- failed-RUN.jsonl: failed sends, as the canary's failed deliveries ({"key", "error", "sent_at", "at"}; sent_at
  null: the tool does not say when it sent; plus "topic" and "value").

Values: VerifiableProducer sends "P.N" (--value-prefix P, N counting from 0 in each run) with a null key. P is the
run number, one higher than any run's in the ledger folder, so runs writing one topic through one ledger folder
never write the same value and a rewritten offset shows as a digest mismatch. Every release from 2.8 to 4.4 has
--value-prefix; an older one without it sends plain "N", the same values in every run (summary()'s value_prefix is
then None). The producer runs with retries=0 unless the properties set retries (VerifiableProducer's own default):
a send the cluster refuses for a moment (a leader moving) fails and is counted, it is not retried.

Needs the collection on sys.path (.cache/collections, as the drills and unit tests set it) for kafka_connection.
"""

import functools
import hashlib
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_connection import properties_text
from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_tools import tool_command

PRODUCER_CLASS = "org.apache.kafka.tools.VerifiableProducer"
CONSUMER_CLASS = "org.apache.kafka.tools.VerifiableConsumer"
# A letter first: a canary writer's files start with a digit (its start time); never "failed-": the ledger readers
# would take the acknowledgements' file for failed sends.
NAME = re.compile(r"^(?!failed-)[A-Za-z][\w.-]*$")
# A run's acknowledgements' file, created first and always: its number is taken. Not a canary's failed file
# (failed-20240101T000000-123456.jsonl: a random token of digits alone would read as a run number).
RUN_FILE = re.compile(r"^[A-Za-z][\w.-]*-(?P<run>\d{6})\.tail-\d{4}\.jsonl$")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9.-]*[a-z0-9]")

# Kafka's scripts point log4j at config/tools-log4j*: warnings to stderr. A bare `java -cp` would get log4j 1's
# "no appenders" notice and nothing else, or (Kafka 4, log4j 2) errors on stdout among the events. The same for both;
# each framework reads its own system property and ignores the other's.
LOG4J1_PROPERTIES = """log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
"""
LOG4J2_PROPERTIES = """status = warn
appender.stderr.type = Console
appender.stderr.name = STDERR
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.stderr.ref = STDERR
"""


def kafka_release(home):
    """The Kafka release of a distribution, from its client jar (libs/kafka-clients-3.6.2.jar: "3.6.2")."""
    for jar in sorted(pathlib.Path(home, "libs").glob("kafka-clients-*.jar")):
        found = re.fullmatch(r"kafka-clients-(\d[\w.-]*?)\.jar", jar.name)
        if found:
            return found[1]
    raise ValueError(f"{home} is not a Kafka distribution: it has no libs/kafka-clients-*.jar")


def java_command(java, home, main_class, args, jvm_options=()):
    """The command line of one of Kafka's tools, as kafka_tools.run_tool runs them."""
    return tool_command(home, main_class, args, jvm_options, java)


def help_options(text):
    """The options a tool's --help names (argparse4j's usage and descriptions)."""
    return frozenset(OPTION.findall(text))


@functools.cache
def tool_options(java, home, main_class):
    """The options of the tool in this distribution, from its own --help (they differ between releases)."""
    done = subprocess.run(java_command(java, home, main_class, ["--help"]), capture_output=True, text=True,
                          timeout=120, check=False)  # argparse4j exits non-zero after printing the help
    options = help_options(done.stdout + done.stderr)
    if "--topic" not in options:
        raise RuntimeError(f"{main_class} from {home} printed no usage: {(done.stderr or done.stdout).strip()[-500:]}")
    return options


def _either(options, preferred, older):
    return preferred if preferred in options else older


def producer_args(options, bootstrap_servers, topic, throughput, config_file, value_prefix=None, max_messages=None):
    """VerifiableProducer's arguments, for the options its release has (tool_options): acks=all."""
    args = [_either(options, "--bootstrap-server", "--broker-list"), bootstrap_servers, "--topic", topic,
            "--throughput", str(throughput), "--acks", "-1",
            # 4.x deprecates --producer.config (a notice on stdout) for --command-config; they load the same way
            _either(options, "--command-config", "--producer.config"), str(config_file)]
    if value_prefix is not None:
        args += ["--value-prefix", str(value_prefix)]
    if max_messages is not None:
        args += ["--max-messages", str(max_messages)]
    return args


def consumer_args(options, bootstrap_servers, topic, group_id, config_file, max_messages=None):
    """VerifiableConsumer's arguments, for the options its release has (tool_options). Without --enable-autocommit
    the tool commits itself, synchronously, after each batch it consumed, and says so (offsets_committed)."""
    args = [_either(options, "--bootstrap-server", "--broker-list"), bootstrap_servers, "--topic", topic,
            "--group-id", group_id, "--reset-policy", "earliest",
            _either(options, "--command-config", "--consumer.config"), str(config_file)]
    if max_messages is not None:
        args += ["--max-messages", str(max_messages)]
    return args


def parse_event(line):
    """The tool's JSON event on a stdout line ({"timestamp", "name", ...}), or None for anything else."""
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) and isinstance(event.get("name"), str) else None


def value_sha256(value):
    """The hex SHA-256 of a value as the tool sent it (StringSerializer: the string's UTF-8 bytes); None for none."""
    return None if value is None else hashlib.sha256(value.encode("utf-8")).hexdigest()


def producer_event_row(event):
    """The exchange-format row of a producer_send_success event, None for any other event. acked_at: the event's
    time, taken when the tool's send callback ran."""
    if event.get("name") != "producer_send_success":
        return None
    return {"topic": event["topic"], "partition": int(event["partition"]), "offset": int(event["offset"]),
            "key": event.get("key"), "sha256": value_sha256(event.get("value")),
            "acked_at": round(event["timestamp"] / 1000, 3)}


def producer_failure_row(event):
    """The failed-file row (canary/ledger.py's failed deliveries) of a producer_send_error event, else None."""
    if event.get("name") != "producer_send_error":
        return None
    exception = str(event.get("exception") or "").removeprefix("class ")  # the tool prints Class.toString()
    return {"key": event.get("key"), "error": f"{exception}: {event.get('message')}", "sent_at": None,
            "at": round(event["timestamp"] / 1000, 3), "topic": event.get("topic"), "value": event.get("value")}


class ConsumerProgress:
    """What VerifiableConsumer's events say: records consumed, commits that succeeded and failed, and per partition
    the offset its last successful commit stored (the next offset to read)."""

    def __init__(self):
        self.consumed = self.commits = self.commit_failures = 0
        self.last_committed = {}
        self.last_commit_error = None

    def add(self, event):
        name = event.get("name")
        if name == "records_consumed":
            self.consumed += int(event.get("count", 0))
        elif name == "offsets_committed":
            if event.get("success"):
                self.commits += 1
                for committed in event.get("offsets") or ():
                    self.last_committed[int(committed["partition"])] = int(committed["offset"])
            else:
                self.commit_failures += 1
                self.last_commit_error = event.get("error")


class _KafkaTool:
    """One of Kafka's verifiable tools as a background process; subclasses give its arguments and take its events."""

    main_class = None

    def __init__(self, home, java_properties, topic, name, log_path, bootstrap_servers, java):
        if not NAME.match(name):
            raise ValueError(f"name {name!r}: letters, digits, _ . - and a letter first, not failed-...")
        self.home, self.java, self.topic, self.name = str(home), java, topic, name
        self.properties = dict(java_properties)
        # The kit's "kafka_java" settings hold the security alone: the addresses may come apart.
        self.bootstrap_servers = bootstrap_servers or self.properties.get("bootstrap.servers")
        if not self.bootstrap_servers:
            raise ValueError("no bootstrap servers: give bootstrap_servers or java_properties['bootstrap.servers']")
        self.release = kafka_release(home)
        self.log_path = pathlib.Path(log_path) if log_path else None
        self.process = self._reader = self._private_dir = self._log = None
        self.started = threading.Event()  # the tool printed startup_complete
        self.shutdown_complete = False    # ... and shutdown_complete: it closed its client

    def _args(self, options, config_file):
        raise NotImplementedError

    def _on_event(self, event):
        raise NotImplementedError

    def _close_files(self):
        pass

    def start(self):
        if self.process is not None:
            raise RuntimeError(f"{self.name} was started already: a restart is a new object")
        options = tool_options(self.java, self.home, self.main_class)
        self._private_dir = pathlib.Path(tempfile.mkdtemp(prefix="kafkaops-verifiable-"))  # 0700
        config_file = self._private_dir / "client.properties"
        with os.fdopen(os.open(config_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as handle:
            handle.write(properties_text(self.properties))
        (self._private_dir / "log4j.properties").write_text(LOG4J1_PROPERTIES)
        (self._private_dir / "log4j2.properties").write_text(LOG4J2_PROPERTIES)
        jvm_options = [f"-Dlog4j.configuration=file:{self._private_dir / 'log4j.properties'}",
                       f"-Dlog4j2.configurationFile={self._private_dir / 'log4j2.properties'}"]
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "a", encoding="utf-8")  # noqa: SIM115 - closed in stop()
        try:
            self.process = subprocess.Popen(
                java_command(self.java, self.home, self.main_class, self._args(options, config_file), jvm_options),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._log, text=True, encoding="utf-8",
                errors="replace")
        except BaseException:
            self._log.close()
            shutil.rmtree(self._private_dir, ignore_errors=True)
            raise
        self._reader = threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True,
                                        name=f"{self.name}-reader")
        self._reader.start()
        return self

    def _read(self, lines):
        for line in lines:
            event = parse_event(line)
            if event is None:
                if line.strip():  # a notice the tool printed on stdout (4.x: a deprecated option's)
                    self._log.write(f"[stdout] {line.rstrip()}\n")
                    self._log.flush()
                continue
            if event["name"] == "startup_complete":
                self.started.set()
            elif event["name"] == "shutdown_complete":
                self.shutdown_complete = True
            self._on_event(event)

    def wait_started(self, timeout=60):
        """True once the tool said it started; False when it exited first or timeout passed."""
        deadline = time.monotonic() + timeout
        while not self.started.wait(0.2):
            if self.process.poll() is not None or time.monotonic() > deadline:
                return self.started.is_set()
        return True

    def running(self):
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout=180):
        """SIGTERM (the tool closes its client: a producer waits for its outstanding sends, which end acknowledged
        or failed), then SIGKILL after timeout; waits for the last event; returns summary()."""
        if self.process is None:
            return self.summary()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join()
        self.process.stdout.close()
        self._close_files()
        self._log.close()
        shutil.rmtree(self._private_dir, ignore_errors=True)  # the credential goes with the tool
        return self.summary()

    def summary(self):
        return {"tool": f"{self.main_class.rsplit('.', 1)[-1]} {self.release}",
                "exit": None if self.process is None else self.process.returncode}


class VerifiableProducer(_KafkaTool):
    """Kafka's VerifiableProducer writing `topic` at about `throughput` records/s with acks=all, its acknowledgements
    added to the ledger folder ledger_dir (the module's docstring: file names, values). java_properties: the Java
    client properties of the cluster's security (cluster_settings.load()["kafka_java"]), bootstrap.servers among
    them unless bootstrap_servers is given. stderr goes to log_path (default: beside the ledger folder, named after
    the run). max_messages: stop after that many (default: until stop())."""

    main_class = PRODUCER_CLASS

    def __init__(self, home, java_properties, topic, ledger_dir, throughput=50, name="verifiable", *,
                 bootstrap_servers=None, log_path=None, max_messages=None, java="java"):
        super().__init__(home, java_properties, topic, name, log_path, bootstrap_servers, java)
        self.ledger_dir = pathlib.Path(ledger_dir)
        self.throughput, self.max_messages = throughput, max_messages
        self.run = self.value_prefix = self.acked_path = self.failed_path = None
        self._acked_file = self._failed_file = None
        self.acked = self.failed = 0
        self.tool_data = None  # the tool's own count at its end: {"sent", "acked", "target_throughput", ...}

    def _claim_run(self):
        """The next run number in the ledger folder and its acknowledgements' file, created exclusively: two
        producers starting together take two numbers."""
        self.ledger_dir.mkdir(parents=True, exist_ok=True)
        runs = [int(found["run"]) for found in map(RUN_FILE.match, os.listdir(self.ledger_dir)) if found]
        run = max(runs, default=0) + 1
        while True:
            path = self.ledger_dir / f"{self.name}-{run:06d}.tail-0001.jsonl"
            try:
                return run, path, open(path, "x", encoding="utf-8")  # noqa: SIM115 - closed in stop()
            except FileExistsError:
                run += 1

    def _args(self, options, config_file):
        if "--value-prefix" in options:
            self.value_prefix = self.run
        return producer_args(options, self.bootstrap_servers, self.topic, self.throughput, config_file,
                             self.value_prefix, self.max_messages)

    def start(self):
        if self.process is not None:
            raise RuntimeError(f"{self.name} was started already: a restart is a new object")
        self.run, self.acked_path, self._acked_file = self._claim_run()
        self.failed_path = self.ledger_dir / f"failed-{self.name}-{self.run:06d}.jsonl"
        if self.log_path is None:
            self.log_path = self.ledger_dir.resolve().parent / f"{self.name}-{self.run:06d}.log"
        try:
            return super().start()
        except BaseException:
            self._close_files()
            raise

    def _on_event(self, event):
        row = producer_event_row(event)
        if row is not None:
            self.acked += 1
            self._acked_file.write(json.dumps(row) + "\n")
            self._acked_file.flush()  # in the ledger as soon as acknowledged, whatever ends this process
            return
        failure = producer_failure_row(event)
        if failure is not None:
            self.failed += 1
            if self._failed_file is None:
                self._failed_file = open(self.failed_path, "a", encoding="utf-8")  # noqa: SIM115 - closed in stop()
            self._failed_file.write(json.dumps(failure) + "\n")
            self._failed_file.flush()
        elif event["name"] == "tool_data":
            self.tool_data = {k: v for k, v in event.items() if k not in ("name", "timestamp")}

    def _close_files(self):
        for handle in (self._acked_file, self._failed_file):
            if handle is not None:
                handle.close()

    def summary(self):
        """{"tool": "VerifiableProducer <release>", "acked", "failed", "exit" (None while it runs), "sent" (the
        tool's own count, once it stopped cleanly), "value_prefix", "ledger_file", "log"}."""
        return super().summary() | {
            "acked": self.acked, "failed": self.failed, "sent": (self.tool_data or {}).get("sent"),
            "value_prefix": self.value_prefix, "ledger_file": str(self.acked_path) if self.acked_path else None,
            "log": str(self.log_path) if self.log_path else None}


class VerifiableConsumer(_KafkaTool):
    """Kafka's VerifiableConsumer reading `topic` from the earliest offset in group group_id, committing the offsets
    it consumed after each batch (synchronously), for the validator to check later that the cluster kept them.
    java_properties and bootstrap_servers as VerifiableProducer's; stderr goes to log_path (default: NAME-GROUP.log
    in the system's temporary folder)."""

    main_class = CONSUMER_CLASS

    def __init__(self, home, java_properties, topic, group_id, name="verifiable-consumer", *,
                 bootstrap_servers=None, log_path=None, max_messages=None, java="java"):
        if log_path is None:
            group_in_name = re.sub(r"[^\w.-]", "_", group_id)
            log_path = pathlib.Path(tempfile.gettempdir()) / f"{name}-{group_in_name}.log"
        super().__init__(home, java_properties, topic, name, log_path, bootstrap_servers, java)
        self.group_id, self.max_messages = group_id, max_messages
        self.progress = ConsumerProgress()

    def _args(self, options, config_file):
        return consumer_args(options, self.bootstrap_servers, self.topic, self.group_id, config_file,
                             self.max_messages)

    def _on_event(self, event):
        self.progress.add(event)

    def summary(self):
        """{"tool": "VerifiableConsumer <release>", "consumed", "commits", "commit_failures", "last_committed":
        {partition: offset committed last}, "exit" (None while it runs), "group_id", "last_commit_error", "log"}."""
        progress = self.progress
        return super().summary() | {
            "consumed": progress.consumed, "commits": progress.commits, "commit_failures": progress.commit_failures,
            "last_committed": dict(sorted(progress.last_committed.items())), "group_id": self.group_id,
            "last_commit_error": progress.last_commit_error, "log": str(self.log_path)}
