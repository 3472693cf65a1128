"""The recovery validator's entry point: arguments, the SparkSession and all IO around spark/checks.py.

  python spark/validate_recovery.py --before SNAPSHOT_DIR --after SNAPSHOT_DIR [--ledger FOLDER_OR_FILE]
      (--client-settings FILE | --bootstrap-servers HOST:PORT,...) --report-dir DIR [--master URL]
      [--lost-limit N] [--duplicates] [--conf K=V]
  (or through spark-submit, whose --master, jars and memory settings then hold; spark/README.md)

SNAPSHOT_DIR is a folder written by playbooks/snapshot_offsets.yml (<dir>/<cluster id>/<UTC time>/).
A ledger is a canary's folder or a JSON lines file (spark/README.md); with one, the offsets it covers are
read back through Spark's Kafka source (jars from .cache/spark-jars, fetched by `make setup`; nothing is
downloaded at run time).
Writes DIR/result.json, DIR/report.md and DIR/chart.png. Exit status: 0 = nothing lost, 1 = loss or
regression found, 2 = bad input (the message says what).
"""

import argparse
import datetime
import json
import os
import pathlib
import sys

import checks

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # canary.ledger: how a canary's ledger folder is laid out

JARS_DIR = REPO / ".cache" / "spark-jars"
EXIT_OK, EXIT_LOSS, EXIT_BAD_INPUT = 0, 1, 2
SNAPSHOT_FILES = ("cluster.json", "partitions.jsonl", "group_offsets.jsonl")
DRIVER_DEFAULTS = {"spark.driver.memory": "512m", "spark.driver.extraJavaOptions": "-XX:+UseSerialGC"}
TABLE_ROWS = 50       # rows of each problem table in report.md
CHART_PARTITIONS = 60  # partitions in the high watermark chart


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


def spark_master(args):
    if submitted():
        from pyspark import SparkConf
        return SparkConf().get("spark.master", "local[*]")
    return args.master or "local[*]"


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
    if not any(setting.startswith("spark.sql.shuffle.partitions=") for setting in conf):
        # A few shuffle partitions per core: Spark's 200 cost more in tiny files than they give on small hosts.
        session.conf.set("spark.sql.shuffle.partitions", str(4 * session.sparkContext.defaultParallelism))
    return session


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
    executors run on other hosts and read the ledger there, so a path of this machine means nothing to them."""
    if not ledger or master.startswith("local") or "://" in ledger:
        return None
    return (f"--ledger {ledger} is a path on this machine, but the executors of --master {master} run on other "
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


def write_chart(path, topics, hw_rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(12, 9))
    names = list(topics)
    x = range(len(names))
    top.bar([i - 0.2 for i in x], [topics[t]["acknowledged"] for t in names], 0.4,
            label="acknowledged (ledger)")
    top.bar([i + 0.2 for i in x], [topics[t]["lost"] for t in names], 0.4, label="lost")
    top.set_xticks(list(x), names, rotation=20, ha="right")
    top.set_title("Acknowledged records per topic")
    if names:
        top.legend()
    else:
        top.text(0.5, 0.5, "no ledger given: acknowledged records not checked", ha="center",
                 transform=top.transAxes)
    labels = [f"{t}-{p}" for t, p, _, _ in hw_rows]
    x = range(len(labels))
    bottom.bar([i - 0.2 for i in x], [b or 0 for _, _, b, _ in hw_rows], 0.4, label="before")
    bottom.bar([i + 0.2 for i in x], [a or 0 for _, _, _, a in hw_rows], 0.4, label="after")
    bottom.set_xticks(list(x), labels, rotation=90, fontsize=7)
    bottom.set_title(f"High watermark per partition (regressions first, at most {CHART_PARTITIONS})")
    bottom.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _table(rows, columns):
    if not rows:
        return "none\n"
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row.get(c)) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write_report(report_dir, result, samples):
    ok = result["verdict"] == checks.VERDICT_OK
    duplicates = result["duplicate_records_total"]
    duplicates = "not checked" if duplicates is None else duplicates
    text = [f"# Recovery validation: {'NOTHING LOST' if ok else 'LOSS OR REGRESSION FOUND'}\n",
            f"- cluster: {result['cluster_id']}",
            f"- before: {result['before']} ({result['before_taken_at']})",
            f"- after: {result['after']} ({result['after_taken_at']})",
            f"- ledger: {result['ledger'] or 'none (acknowledged records not checked)'}",
            f"- checked at: {result['checked_at']}",
            f"- duplicate records (keys readable more than once; not loss): {duplicates}\n",
            "## Checks\n",
            _table([{"check": name, "problems": count,
                     "reasons": json.dumps(result["reasons"].get(name, {})),
                     "fails the verdict": name in result["failed_checks"]}
                    for name, count in result["counts"].items()],
                   ["check", "problems", "reasons", "fails the verdict"]),
            "## Acknowledged records per topic\n",
            _table([{"topic": t, **c} for t, c in result["topics"].items()], ["topic", "acknowledged", "lost"]),
            f"## Lost records ({result['lost_records_total'] or 0} in all; at most {TABLE_ROWS} here, "
            "the rest in result.json up to --lost-limit)\n",
            _table(result["lost_records"][:TABLE_ROWS],
                   ["topic", "partition", "offset", "key", "reason", "expected_sha256", "actual_sha256"])]
    for name, rows in samples.items():
        text += [f"## {name.replace('_', ' ').capitalize()} (at most {TABLE_ROWS})\n",
                 _table(rows, list(rows[0]) if rows else [])]
    text.append("![acknowledged vs readable, high watermarks](chart.png)\n")
    (report_dir / "report.md").write_text("\n".join(text))


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


def judge(spark, args, clients):
    """Run the checks (clients: cluster_clients(args)); returns (summary, per-topic counts, sample rows per
    check, high watermark rows)."""
    from pyspark.sql import functions as F
    before, _ = read_snapshot(spark, args.before)
    after, groups_after = read_snapshot(spark, args.after)
    results, topics = checks.run_checks(before, after, groups_after), {}
    readable = None
    if args.ledger:
        ledger, readable, acknowledged, without_offsets = read_back(spark, args, clients)
        results = {checks.LOST_RECORDS: checks.lost_records(ledger, readable, after, without_offsets), **results}
    summary = checks.summarize(results, args.lost_limit)
    summary["duplicate_records_total"] = None
    counts = dict(summary["counts"])
    if readable is not None:
        topics = {t: {"acknowledged": n, "lost": summary["lost_by_topic"].get(t, 0)} for t, n in acknowledged.items()}
    if readable is not None and args.duplicates:
        duplicates = checks.duplicate_records(readable).persist()  # a handful of rows, from one more read
        counts["duplicate_records"] = duplicates.count()
        summary["duplicate_records_total"] = duplicates.agg(F.sum(F.col("copies") - 1)).first()[0] or 0
        results["duplicate_records"] = duplicates
    # Rows of the problems found (a check without any is not run again).
    samples = {name: [r.asDict(recursive=True) for r in df.limit(TABLE_ROWS).collect()] if counts[name] else []
               for name, df in results.items() if name != checks.LOST_RECORDS}
    return summary, topics, samples, watermarks(before, after)


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
    spark = spark_session(master, args.conf)
    try:
        summary, topics_counts, samples, hw_rows = judge(spark, args, clients)
    finally:
        spark.stop()
    result = {"cluster_id": after_cluster["cluster_id"], "before": str(args.before), "after": str(args.after),
              "before_taken_at": before_cluster.get("taken_at"),
              "after_taken_at": after_cluster.get("taken_at"), "ledger": args.ledger,
              "checked_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
              **summary, "topics": topics_counts,
              "exit_status": EXIT_OK if summary["verdict"] == checks.VERDICT_OK else EXIT_LOSS}
    report_dir = pathlib.Path(args.report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "result.json").write_text(json.dumps(result, indent=2, default=str) + "\n")
    write_report(report_dir, result, samples)
    write_chart(report_dir / "chart.png", topics_counts, hw_rows)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(prog="validate_recovery.py", description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="snapshot folder taken before")
    parser.add_argument("--after", required=True, help="snapshot folder taken after the recovery")
    parser.add_argument("--ledger", help="acknowledged records, one JSON object per line")
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
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting, e.g. spark.driver.memory=4g (repeatable)")
    args = parser.parse_args(argv)
    try:
        result = validate(args)
    except BadInput as exc:
        print(f"validate_recovery: bad input: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    lost = result["lost_records_total"]
    print(f"verdict: {'NOTHING LOST' if result['exit_status'] == EXIT_OK else 'LOSS OR REGRESSION FOUND'}; "
          f"lost records: {'not checked (no ledger)' if lost is None else lost}; failed checks: "
          f"{', '.join(result['failed_checks']) or 'none'}; duplicate records: "
          f"{result['duplicate_records_total']}; report: {args.report_dir}/report.md")
    return result["exit_status"]


if __name__ == "__main__":
    sys.exit(main())
