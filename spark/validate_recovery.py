"""The recovery validator's entry point: arguments, the SparkSession and all IO around spark/checks.py.

  python spark/validate_recovery.py --before SNAPSHOT_DIR --after SNAPSHOT_DIR [--ledger FOLDER_OR_FILE]
      (--client-settings FILE | --bootstrap-servers HOST:PORT,...) --report-dir DIR [--master URL]
      [--lost-limit N] [--duplicates] [--marks FILE] [--conf K=V]
  (or through spark-submit, whose --master, jars and memory settings then hold; spark/README.md)

SNAPSHOT_DIR is a folder written by playbooks/snapshot_offsets.yml (<dir>/<cluster id>/<UTC time>/).
A ledger is a canary's folder or a JSON lines file (spark/README.md); with one, the offsets it covers are
read back through Spark's Kafka source (jars from .cache/spark-jars, fetched by `make setup`; nothing is
downloaded at run time).
Writes DIR/result.json, DIR/report.md and DIR/chart.png. Exit status: 0 = nothing lost, 1 = loss or
regression found, 2 = bad input (the message says what), 3 = the validator crashed (its traceback on stderr):
never 1, so that automation does not take a crash for a loss.
"""

import argparse
import datetime
import json
import math
import os
import pathlib
import sys
import traceback

EXIT_OK, EXIT_LOSS, EXIT_BAD_INPUT, EXIT_CRASH = 0, 1, 2, 3

try:  # pyspark is imported here: a broken install is a crash, not Python's exit status 1 (a loss)
    import checks
    import recovery_report
    import timeline
except ImportError:
    traceback.print_exc()
    sys.exit(EXIT_CRASH)

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # canary.ledger: how a canary's ledger folder is laid out

JARS_DIR = REPO / ".cache" / "spark-jars"
SNAPSHOT_FILES = ("cluster.json", "partitions.jsonl", "group_offsets.jsonl")
DRIVER_DEFAULTS = {"spark.driver.memory": "512m", "spark.driver.extraJavaOptions": "-XX:+UseSerialGC"}
ROWS_PER_SHUFFLE_PARTITION = 1_000_000  # ledger lines per shuffle partition, at most (shuffle_partitions)
CHART_PARTITIONS = 60  # partitions in the high watermark chart
WORST_PARTITIONS = 10  # partitions in the timeline's chart of windows without an acknowledgement
WINDOW_ROWS = 1000     # windows without an acknowledgement listed in result.json
FAILED_SCHEMA = "key string, error string, sent_at double, at double"  # canary/ledger.py's failed deliveries


class BadInput(Exception):
    """Input the validator cannot judge: exit 2 with this message."""


def read_cluster(snapshot_dir):
    """cluster.json of a snapshot folder, after checking that the folder holds a whole snapshot."""
    folder = pathlib.Path(snapshot_dir)
    missing = [name for name in SNAPSHOT_FILES if not (folder / name).is_file()]
    if missing:
        raise BadInput(f"{folder} is not a snapshot: {', '.join(missing)} missing. Give the folder that "
                       "holds cluster.json (<snapshot_dir>/<cluster id>/<UTC time>/), as written by "
                       "ansible-playbook playbooks/snapshot_offsets.yml -e snapshot_dir=DIR")
    try:
        cluster = json.loads((folder / "cluster.json").read_text())
        cluster["cluster_id"]  # noqa: B018 - the field every snapshot has
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BadInput(f"{folder / 'cluster.json'} is unreadable: {exc}") from None
    return cluster


def cluster_clients(args):
    """(librdkafka configuration, Java client properties) of the cluster the ledger's topics are read back
    from: a client settings file (playbooks/client_settings.yml: addresses and security), or bootstrap servers
    of an open cluster; (None, None) without either."""
    if args.client_settings:
        try:
            settings = json.loads(pathlib.Path(args.client_settings).read_text())
            return settings["kafka"], settings["kafka_java"]
        except (OSError, ValueError, KeyError) as exc:
            raise BadInput(f"{args.client_settings} is not a client settings file ({exc!r}): write one with "
                           "ansible-playbook playbooks/client_settings.yml -e client_settings_path=FILE") from None
    if args.bootstrap_servers:
        return {"bootstrap.servers": args.bootstrap_servers}, {}
    return None, None


def check_reachable(client_conf, timeout=15):
    from confluent_kafka.admin import AdminClient
    admin = AdminClient(client_conf)
    try:
        return set(admin.list_topics(timeout=timeout).topics)
    except Exception as exc:
        raise BadInput(f"cannot reach the cluster at {client_conf['bootstrap.servers']}: {exc}") from None


def submitted():
    """True when spark-submit started this driver: its --master, --jars or --packages and memory settings hold."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def submitted_master():
    """The master spark-submit gave the driver (its --master or --conf spark.master, spark-defaults.conf): a Java
    system property of the JVM it started. A SparkConf made before pyspark is attached to that JVM is empty (its
    master always local[*]), so attach first."""
    from pyspark import SparkConf, SparkContext
    SparkContext._ensure_initialized()  # connects to spark-submit's JVM (PYSPARK_GATEWAY_PORT); starts no context
    return SparkConf().get("spark.master", "local[*]")


def effective_master(master_option, conf, submitted_to=None):
    """The master the session gets (spark_session): a --conf spark.master=..., the last one, overrides the rest;
    then spark-submit's master (submitted_to, None when not under spark-submit), which --master does not change;
    then --master (master_option); local[*] without any."""
    settings = dict(setting.partition("=")[::2] for setting in conf)
    if "spark.master" in settings:
        return settings["spark.master"]
    if submitted_to is not None:
        return submitted_to
    return master_option or "local[*]"


def spark_master(args):
    return effective_master(args.master, args.conf, submitted_master() if submitted() else None)


def spark_session(master, conf):
    from pyspark.sql import SparkSession
    builder = (SparkSession.builder.appName("validate_recovery")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false"))
    if not submitted():
        jars = sorted(str(p) for p in JARS_DIR.glob("*.jar"))
        builder = builder.master(master).config("spark.jars", ",".join(jars))
        # A small driver that spills rather than a heap sized for the ledger (measured: bench/validator.py);
        # the serial collector's bookkeeping is the smallest. --conf overrides either.
        for key, value in DRIVER_DEFAULTS.items():
            builder = builder.config(key, value)
    for setting in conf:
        key, _, value = setting.partition("=")
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("WARN")
    size_shuffles(session, ledger_lines=0)
    return session


def shuffle_partitions(ledger_lines, cores):
    """Shuffle partitions for a ledger of this many lines: a few per core (Spark's 200 cost more in tiny files
    than they give on small hosts), and enough that none holds more than about ROWS_PER_SHUFFLE_PARTITION rows
    (sorted for the join in one task: 100M rows in 8 partitions ran the 512m driver out of heap)."""
    return max(4 * cores, math.ceil(ledger_lines / ROWS_PER_SHUFFLE_PARTITION))


def size_shuffles(session, ledger_lines):
    """Set spark.sql.shuffle.partitions by shuffle_partitions, unless the caller set it (--conf, spark-submit)."""
    if not session.sparkContext.getConf().contains("spark.sql.shuffle.partitions"):
        session.conf.set("spark.sql.shuffle.partitions",
                         str(shuffle_partitions(ledger_lines, session.sparkContext.defaultParallelism)))


def read_snapshot(spark, snapshot_dir):
    """(partitions, group offsets) of a snapshot folder, read here on the driver: a snapshot is small, and
    executors on other hosts need not see the folder."""
    folder = pathlib.Path(snapshot_dir)

    def frame(name, schema):
        # Through Arrow, so that no Python worker is needed to turn the rows into a DataFrame.
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_schema
        try:
            rows = [json.loads(line) for line in (folder / name).read_text().splitlines() if line.strip()]
            table = pa.Table.from_pylist([{f: r.get(f) for f in schema.fieldNames()} for r in rows],
                                         schema=to_arrow_schema(schema))
        except (ValueError, TypeError, AttributeError, pa.ArrowException) as exc:
            raise BadInput(f"{folder / name} is unreadable: {exc}") from None
        return spark.createDataFrame(table, schema)
    return (frame("partitions.jsonl", checks.PARTITIONS_SCHEMA),
            frame("group_offsets.jsonl", checks.GROUP_OFFSETS_SCHEMA))


def ledger_location_problem(master, ledger):
    """Why the executors of this master could not read the ledger (None when they can): a Spark cluster's
    executors (spark://, yarn, k8s://, ...) run on other hosts and read the ledger there, so a path of this
    machine means nothing to them. The snapshots are read on the driver: a path of this machine is right for them."""
    if not ledger or master.startswith("local") or "://" in ledger:
        return None
    return (f"--ledger {ledger} is a path on this machine, but the executors of the master {master} run on other "
            "hosts and read the ledger there: give a URI every executor can read (file:///PATH on a filesystem "
            "mounted at the same path on the workers, hdfs://..., s3a://...)")


def hadoop_path(spark, location):
    """(file system, path) of a ledger location: a local path (made absolute) or any URI Hadoop reads
    (hdfs://, s3a://, file://)."""
    if "://" not in location:
        location = pathlib.Path(location).resolve().as_uri()
    path = spark._jvm.org.apache.hadoop.fs.Path(location)
    return path.getFileSystem(spark._jsc.hadoopConfiguration()), path


def _jsonl_ledger(spark, locations):
    """JSON lines of the exchange format (spark/README.md), with a `_malformed` flag: not JSON, no topic or
    partition, or a sha256 that is not 64 hex digits. Blank lines are skipped."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType
    lines = (spark.read.schema(StructType([*checks.LEDGER_SCHEMA.fields, StructField("_corrupt", StringType())]))
             .option("columnNameOfCorruptRecord", "_corrupt").json(locations))
    digest = F.unhex("sha256")
    malformed = (F.col("_corrupt").isNotNull() | F.col("topic").isNull() | F.col("partition").isNull()
                 | (F.col("sha256").isNotNull() & (digest.isNull() | (F.length(digest) != 32))))
    return lines.select(*checks.LEDGER_COLUMNS[:4], digest.alias("sha256"), "sent_at", "acked_at",
                        F.coalesce(malformed, F.lit(True)).alias("_malformed"))


def read_ledger(spark, location):
    """The ledger as a DataFrame of LEDGER_COLUMNS (sha256 as 32 bytes) and `_malformed`, and the file's path
    when it is one JSONL file (else None). A folder is a canary's ledger (canary/ledger.py: Parquet segments,
    and the JSONL tails of the open ones); a file is JSON lines of the exchange format, parsed once (kept on
    local disk for the second read)."""
    import pyspark
    from pyspark.sql import functions as F

    from canary.ledger import ledger_files
    fs, path = hadoop_path(spark, location)
    if not fs.exists(path):
        raise BadInput(f"ledger {location} does not exist")
    if not fs.getFileStatus(path).isDirectory():
        return _jsonl_ledger(spark, [str(path)]).persist(pyspark.StorageLevel.DISK_ONLY), str(path)
    segments, tails = ledger_files([status.getPath().getName() for status in fs.listStatus(path)])
    if not segments and not tails:
        raise BadInput(f"ledger {location} is a folder without a canary's ledger files (*.parquet, *.tail-*.jsonl)")
    parts = []
    if segments:
        parts.append(spark.read.schema(checks.LEDGER_PARQUET_SCHEMA).parquet(*[f"{path}/{n}" for n in segments])
                     .withColumn("_malformed", F.lit(False)))
    if tails:
        parts.append(_jsonl_ledger(spark, [f"{path}/{n}" for n in tails]))
    return (parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1])), None


def first_malformed_line(spark, location):
    """The line number of the first malformed line of a JSONL ledger file (only when there is one)."""
    from pyspark.sql import functions as F
    lines = spark.read.text(location)
    numbered = spark.createDataFrame(lines.rdd.map(lambda row: row.value).zipWithIndex(), ["value", "index"])
    record = F.from_json("value", checks.LEDGER_SCHEMA)
    bad = (F.trim("value") != "") & (record.isNull() | record["topic"].isNull() | record["partition"].isNull()
                                     | (record["sha256"].isNotNull() & (F.length(F.unhex(record["sha256"])) != 32)))
    return numbered.where(bad).agg(F.min("index")).first()[0] + 1


def ledger_partitions(ledger):
    """Per (topic, partition) of the ledger: its lines, the lowest and highest offset, lines without an offset,
    malformed lines; the one pass over the ledger before the cluster is read (a Parquet ledger is read for
    the offsets alone)."""
    from pyspark.sql import functions as F
    return [r.asDict() for r in ledger.groupBy("topic", "partition").agg(
        F.count(F.lit(1)).alias("lines"), F.min("offset").alias("first"), F.max("offset").alias("last"),
        F.count_if(F.col("offset").isNull()).alias("without_offset"),
        F.count_if("_malformed").alias("malformed")).collect()]


def offset_ranges(partitions, earliest, latest):
    """{(topic, partition): (from, until)} to read back: the ledger's offsets (all of the log when the ledger
    has lines without an offset) within what the log holds now; partitions with nothing to read left out.
    partitions: ledger_partitions rows; earliest / latest: {(topic, partition): offset} of the partitions
    that exist."""
    ranges = {}
    for p in partitions:
        tp = (p["topic"], p["partition"])
        if tp not in latest:
            continue
        first, until = earliest[tp], latest[tp]
        if not p["without_offset"]:
            first, until = max(first, p["first"]), min(until, p["last"] + 1)
        if first < until:
            ranges[tp] = (first, until)
    return ranges


def log_offsets(client_conf, topic_partitions):
    """({tp: earliest offset}, {tp: latest offset}) of those partitions that exist, read from the cluster now."""
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import AdminClient, OffsetSpec
    admin = AdminClient(client_conf)
    found = {}
    for name, spec in (("earliest", OffsetSpec.earliest()), ("latest", OffsetSpec.latest())):
        requests = {TopicPartition(t, p): spec for t, p in topic_partitions}
        found[name] = {}
        for tp, future in admin.list_offsets(requests, request_timeout=30).items() if requests else ():
            try:
                found[name][(tp.topic, tp.partition)] = future.result().offset
            except Exception:  # the partition is gone: its records are reported "partition_gone"
                continue
    return found["earliest"], found["latest"]


def read_records(spark, client_conf, java_properties, ranges):
    """(topic, partition, offset, sha256 of the value as 32 bytes, key) of every record readable in the offset
    ranges ({(topic, partition): (from, until)})."""
    from pyspark.sql import functions as F
    reader = spark.read.format("kafka").option("kafka.bootstrap.servers", client_conf["bootstrap.servers"])
    for key, value in java_properties.items():  # the cluster's security
        reader = reader.option(f"kafka.{key}", value)
    assign, starting, ending = {}, {}, {}
    for (topic, partition), (first, until) in sorted(ranges.items()):
        assign.setdefault(topic, []).append(partition)
        starting.setdefault(topic, {})[str(partition)] = first
        ending.setdefault(topic, {})[str(partition)] = until
    records = (reader
               .option("assign", json.dumps(assign))
               .option("startingOffsets", json.dumps(starting)).option("endingOffsets", json.dumps(ending))
               .option("failOnDataLoss", "false")  # records deleted since are what we look for
               .load())
    return records.select("topic", "partition", "offset", F.unhex(F.sha2("value", 256)).alias("sha256"),
                          F.col("key").cast("string").alias("key"))


def watermarks(before, after):
    """[(topic, partition, hw before, hw after)] of up to CHART_PARTITIONS partitions: regressions first,
    internal topics last."""
    from pyspark.sql import functions as F
    b = before.select("topic", "partition", F.col("high_watermark").alias("before"))
    a = after.select("topic", "partition", F.col("high_watermark").alias("after"))
    joined = b.join(a, ["topic", "partition"], "full_outer")
    regressed = F.when(F.coalesce("after", F.lit(-1)) < F.coalesce("before", F.lit(-1)), 0).otherwise(1)
    internal = F.col("topic").startswith("__").cast("int")  # __consumer_offsets and the like after the rest
    rows = joined.orderBy(regressed, internal, "topic", "partition").limit(CHART_PARTITIONS).collect()
    return [(r["topic"], r["partition"], r["before"], r["after"]) for r in rows]


def read_back(spark, args, clients):
    """The ledger, the records read back from the cluster (readable) and the acknowledged lines per topic,
    after refusing a ledger with malformed lines or an unreachable cluster (BadInput)."""
    ledger, jsonl_file = read_ledger(spark, args.ledger)
    partitions = ledger_partitions(ledger)
    malformed = sum(p["malformed"] for p in partitions)
    if malformed:
        where = (f"the first at line {first_malformed_line(spark, jsonl_file)}" if jsonl_file
                 else "in its JSONL tails")
        raise BadInput(f"ledger {args.ledger} has {malformed} malformed line(s), {where}: each line must be "
                       '{"topic": ..., "partition": ..., "offset": ..., "key": ..., "sha256": <64 hex digits>}')
    size_shuffles(spark, sum(p["lines"] for p in partitions))
    client_conf, java_properties = clients
    check_reachable(client_conf)
    # A partition deleted since is not read: its records are reported lost ("partition_gone").
    earliest, latest = log_offsets(client_conf, [(p["topic"], p["partition"]) for p in partitions])
    ranges = offset_ranges(partitions, earliest, latest)
    readable = (read_records(spark, client_conf, java_properties, ranges) if ranges
                else spark.createDataFrame([], checks.READABLE_SCHEMA))
    acknowledged = {}
    for p in partitions:
        acknowledged[p["topic"]] = acknowledged.get(p["topic"], 0) + p["lines"]
    return ledger, readable, dict(sorted(acknowledged.items())), any(p["without_offset"] for p in partitions)


def failed_sends(spark, location):
    """The failed deliveries a canary recorded in its ledger folder (FAILED_SCHEMA), or None for a JSONL ledger
    file, which records none."""
    from canary.ledger import failed_files
    fs, path = hadoop_path(spark, location)
    if not fs.getFileStatus(path).isDirectory():
        return None
    names = failed_files([status.getPath().getName() for status in fs.listStatus(path)])
    if not names:
        return spark.createDataFrame([], FAILED_SCHEMA)
    return spark.read.schema(FAILED_SCHEMA).json([f"{path}/{name}" for name in names])


def _series(frame):
    return sorted(tuple(row) for row in frame.collect())


def read_timeline(spark, ledger, failed, lost, marks):
    """(result.json's timeline, the chart's per-second series) from the ledger's acknowledgement times
    (timeline.py), the failed sends (None: not recorded) and the lost records (None: none lost); (None, {})
    when no ledger line has an acked_at."""
    from pyspark.sql import functions as F
    seconds = timeline.ack_seconds(ledger).persist()  # one pass over the ledger; a row per partition-second
    acknowledged = _series(timeline.acknowledged_per_second(seconds))
    if not acknowledged:
        return None, {}
    first, last = seconds.agg(F.min("first"), F.max("last")).first()
    windows = [r.asDict() for r in timeline.unavailable_windows(seconds).orderBy("start").collect()]
    by_partition = timeline.unavailable_windows(seconds, by=("topic", "partition")).persist()
    worst = timeline.worst_partitions(by_partition, WORST_PARTITIONS).persist()
    series = {"acknowledged": acknowledged,
              "failed": [] if failed is None else _series(timeline.per_second(failed, "at", "failed")),
              "lost": [] if lost is None else _series(timeline.per_second(lost, "sent_at", "lost")),
              "partition_windows": [r.asDict() for r in by_partition.join(
                  F.broadcast(worst.select("topic", "partition")), ["topic", "partition"]).collect()]}
    found = {"min_gap_s": timeline.MIN_GAP_S, "first_acked_at": first, "last_acked_at": last,
             "unavailable_s": round(sum(w["seconds"] for w in windows), 3),
             "unavailable_window_count": len(windows), "unavailable_windows": windows[:WINDOW_ROWS],
             "worst_partitions": [r.asDict() for r in worst.collect()],
             "failed_sends": None if failed is None else sum(n for _, n in series["failed"]), "marks": marks}
    return found, series


def not_checked(*, ledger_given, ledger_topics, before_topics, has_timeline, failed_recorded, duplicates_checked):
    """What the report says it could not check, and why (each a sentence)."""
    if not ledger_given:
        return ["acknowledged records and the timeline: no ledger was given (--ledger)"]
    reasons = []
    if missing := sorted(set(ledger_topics) - set(before_topics)):
        reasons.append(f"high watermarks of {', '.join(missing)}: the ledger has these topics and the before "
                       "snapshot does not, so their high watermarks have nothing to be compared with")
    if not has_timeline:
        reasons.append("the timeline: no line of the ledger has an acknowledgement time (acked_at)")
    if not failed_recorded:
        reasons.append("failed sends: the ledger is a JSONL file, which records none (a canary's ledger folder "
                       "does)")
    if not duplicates_checked:
        reasons.append("duplicate records: not asked for (--duplicates)")
    return reasons


def judge(spark, args, clients, marks):
    """Run the checks (clients: cluster_clients(args)); returns a dict: summary, topics (per-topic counts),
    samples (rows per check), hw_rows (high watermark rows), timeline and series (read_timeline),
    not_checked."""
    from pyspark.sql import functions as F
    before, _ = read_snapshot(spark, args.before)
    after, groups_after = read_snapshot(spark, args.after)
    results, topics = checks.run_checks(before, after, groups_after), {}
    readable = failed = None
    if args.ledger:
        ledger, readable, acknowledged, without_offsets = read_back(spark, args, clients)
        failed = failed_sends(spark, args.ledger)
        results = {checks.LOST_RECORDS: checks.lost_records(ledger, readable, after, without_offsets), **results}
    summary = checks.summarize(results, args.lost_limit)
    summary["duplicate_records_total"] = None
    counts = dict(summary["counts"])
    found_timeline, series = None, {}
    if readable is not None:
        topics = {t: {"acknowledged": n, "lost": summary["lost_by_topic"].get(t, 0)} for t, n in acknowledged.items()}
        lost = results[checks.LOST_RECORDS] if summary["lost_records_total"] else None
        found_timeline, series = read_timeline(spark, ledger, failed, lost, marks)
    if readable is not None and args.duplicates:
        duplicates = checks.duplicate_records(readable).persist()  # a handful of rows, from one more read
        counts["duplicate_records"] = duplicates.count()
        summary["duplicate_records_total"] = duplicates.agg(F.sum(F.col("copies") - 1)).first()[0] or 0
        results["duplicate_records"] = duplicates
    # Rows of the problems found (a check without any is not run again).
    rows = recovery_report.TABLE_ROWS
    samples = {name: [r.asDict(recursive=True) for r in df.limit(rows).collect()] if counts[name] else []
               for name, df in results.items() if name != checks.LOST_RECORDS}
    skipped = not_checked(ledger_given=bool(args.ledger), ledger_topics=topics,
                          before_topics={r["topic"] for r in before.select("topic").distinct().collect()},
                          has_timeline=found_timeline is not None, failed_recorded=failed is not None,
                          duplicates_checked=args.duplicates)
    return {"summary": summary, "topics": topics, "samples": samples, "hw_rows": watermarks(before, after),
            "timeline": found_timeline, "series": series, "not_checked": skipped}


def read_marks(path):
    """The caller's marks (canary/marks.py), [] without a file."""
    from canary.marks import read_marks as read
    if not path:
        return []
    try:
        return read(path)
    except (OSError, ValueError) as exc:
        raise BadInput(f"--marks {path}: {exc}") from None


def validate(args):
    before_cluster, after_cluster = read_cluster(args.before), read_cluster(args.after)
    if before_cluster["cluster_id"] != after_cluster["cluster_id"]:
        raise BadInput(f"the snapshots are of two clusters: {before_cluster['cluster_id']} (before, "
                       f"{args.before}) and {after_cluster['cluster_id']} (after, {args.after})")
    master = spark_master(args)
    problem = ledger_location_problem(master, args.ledger)
    if problem:
        raise BadInput(problem)
    clients = cluster_clients(args)
    if args.ledger and clients[0] is None:
        raise BadInput("a ledger is checked against the records read back: give --client-settings or "
                       "--bootstrap-servers")
    marks = read_marks(args.marks)
    spark = spark_session(master, args.conf)
    try:
        found = judge(spark, args, clients, marks)
    finally:
        spark.stop()
    summary = found["summary"]
    result = {"cluster_id": after_cluster["cluster_id"], "before": str(args.before), "after": str(args.after),
              "before_taken_at": before_cluster.get("taken_at"),
              "after_taken_at": after_cluster.get("taken_at"), "ledger": args.ledger,
              "checked_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
              **summary, "topics": found["topics"], "timeline": found["timeline"], "not_checked": found["not_checked"],
              "exit_status": EXIT_OK if summary["verdict"] == checks.VERDICT_OK else EXIT_LOSS}
    report_dir = pathlib.Path(args.report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "result.json").write_text(json.dumps(result, indent=2, default=str) + "\n")
    recovery_report.write_report(report_dir, result, found["samples"])
    recovery_report.write_chart(report_dir / "chart.png", found["timeline"], found["series"], found["hw_rows"],
                                CHART_PARTITIONS)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(prog="validate_recovery.py", description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="snapshot folder taken before")
    parser.add_argument("--after", required=True, help="snapshot folder taken after the recovery")
    parser.add_argument("--ledger", help="acknowledged records: a canary's ledger folder or a JSON lines file")
    cluster = parser.add_mutually_exclusive_group()
    cluster.add_argument("--client-settings", help="the cluster, to read the ledger's topics back: the JSON file "
                                                   "playbooks/client_settings.yml writes (addresses and security)")
    cluster.add_argument("--bootstrap-servers", help="or the host:port,... of an open (PLAINTEXT) cluster")
    parser.add_argument("--report-dir", required=True)
    parser.add_argument("--master", help="Spark master (default local[*]; under spark-submit, its --master)")
    parser.add_argument("--lost-limit", type=int, default=1000, help="lost records listed in result.json")
    parser.add_argument("--duplicates", action="store_true",
                        help="also count keys readable more than once (not loss: a retried write stored twice); "
                             "reads the records back a second time")
    parser.add_argument("--marks", help="what happened when, drawn on the timeline: JSON lines {\"at\": <Unix time>, "
                                        "\"label\": ..., \"until\": <Unix time, optional>} (canary/marks.py)")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting, e.g. spark.driver.memory=4g (repeatable)")
    args = parser.parse_args(argv)
    try:
        result = validate(args)
    except BadInput as exc:
        print(f"validate_recovery: bad input: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception:  # anything else is the validator's own failure, not a verdict
        traceback.print_exc()
        print(f"validate_recovery: crashed (exit {EXIT_CRASH}), no verdict: the traceback above says where",
              file=sys.stderr)
        return EXIT_CRASH
    lost = result["lost_records_total"]
    print(f"verdict: {'NOTHING LOST' if result['exit_status'] == EXIT_OK else 'LOSS OR REGRESSION FOUND'}; "
          f"lost records: {'not checked (no ledger)' if lost is None else lost}; failed checks: "
          f"{', '.join(result['failed_checks']) or 'none'}; duplicate records: "
          f"{result['duplicate_records_total']}; report: {args.report_dir}/report.md")
    return result["exit_status"]


if __name__ == "__main__":
    sys.exit(main())
