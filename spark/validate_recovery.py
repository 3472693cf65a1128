"""The recovery validator's entry point: arguments, the SparkSession and all IO around spark/checks.py.

  python spark/validate_recovery.py --before SNAPSHOT_DIR --after SNAPSHOT_DIR [--ledger FILE]
      (--client-settings FILE | --bootstrap-servers HOST:PORT,...) --report-dir DIR [--master URL]
      [--lost-limit N] [--conf K=V]

SNAPSHOT_DIR is a folder written by playbooks/snapshot_offsets.yml (<dir>/<cluster id>/<UTC time>/).
With a ledger, the topics it names are read back through Spark's Kafka source (jars from
.cache/spark-jars, fetched by `make setup`; nothing is downloaded at run time).
Writes DIR/result.json, DIR/report.md and DIR/chart.png. Exit status: 0 = nothing lost, 1 = loss or
regression found, 2 = bad input (the message says what).
"""

import argparse
import datetime
import json
import pathlib
import sys

import checks

REPO = pathlib.Path(__file__).resolve().parent.parent
JARS_DIR = REPO / ".cache" / "spark-jars"
EXIT_OK, EXIT_LOSS, EXIT_BAD_INPUT = 0, 1, 2
SNAPSHOT_FILES = ("cluster.json", "partitions.jsonl", "group_offsets.jsonl")
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


def spark_session(master, conf):
    from pyspark.sql import SparkSession
    jars = sorted(str(p) for p in JARS_DIR.glob("*.jar"))
    builder = (SparkSession.builder.master(master).appName("validate_recovery")
               .config("spark.jars", ",".join(jars))
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false"))
    for setting in conf:
        key, _, value = setting.partition("=")
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("WARN")
    return session


def read_snapshot(spark, snapshot_dir):
    folder = pathlib.Path(snapshot_dir)
    partitions = spark.read.schema(checks.PARTITIONS_SCHEMA).json(str(folder / "partitions.jsonl"))
    groups = spark.read.schema(checks.GROUP_OFFSETS_SCHEMA).json(str(folder / "group_offsets.jsonl"))
    return partitions, groups


def read_ledger(spark, path):
    """The ledger as a DataFrame; BadInput naming the count and first line number of malformed lines
    (not JSON, or without topic or partition; an offset may be null: acknowledged without one). Blank lines
    are skipped."""
    from pyspark.sql import functions as F
    if not pathlib.Path(path).is_file():
        raise BadInput(f"ledger {path} does not exist")
    lines = spark.read.text(str(path))
    record = F.from_json("value", checks.LEDGER_SCHEMA)
    malformed = (F.trim("value") != "") & (record.isNull() | record["topic"].isNull()
                                           | record["partition"].isNull())
    bad = lines.where(malformed).count()
    if bad:
        indexed = lines.rdd.map(lambda row: row.value).zipWithIndex()
        numbered = spark.createDataFrame(indexed, ["value", "index"])
        first = numbered.where(malformed).agg(F.min("index")).first()[0] + 1
        raise BadInput(f"ledger {path} has {bad} malformed line(s), the first at line {first}: each line "
                       'must be {"topic": ..., "partition": ..., "offset": ..., "key": ..., "sha256": ...}')
    return lines.where(F.trim("value") != "").select(record.alias("r")).select("r.*")


def read_records(spark, client_conf, java_properties, topics):
    """(topic, partition, offset, sha256 of the value, key) of every record still readable in the topics."""
    from pyspark.sql import functions as F
    reader = spark.read.format("kafka").option("kafka.bootstrap.servers", client_conf["bootstrap.servers"])
    for key, value in java_properties.items():  # the cluster's security
        reader = reader.option(f"kafka.{key}", value)
    records = (reader
               .option("subscribe", ",".join(sorted(topics)))
               .option("startingOffsets", "earliest").option("endingOffsets", "latest")
               .option("failOnDataLoss", "false")  # records deleted since are what we look for
               .load())
    return records.select("topic", "partition", "offset", F.sha2("value", 256).alias("sha256"),
                          F.col("key").cast("string").alias("key"))


def per_topic(ledger, lost):
    """{topic: {"acknowledged": n, "readable": n}} (acknowledged = distinct ledger records: offset and digest)."""
    from pyspark.sql import functions as F
    acked = {r["topic"]: r["count"] for r in ledger.select("topic", "partition", "offset", F.lower("sha256"))
             .distinct().groupBy("topic").count().collect()}
    lost_offsets = lost.select("topic", "partition", "offset", "expected_sha256").distinct()
    lost_by_topic = {r["topic"]: r["count"] for r in lost_offsets.groupBy("topic").count().collect()}
    return {t: {"acknowledged": n, "readable": n - lost_by_topic.get(t, 0)} for t, n in sorted(acked.items())}


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
    top.bar([i + 0.2 for i in x], [topics[t]["readable"] for t in names], 0.4,
            label="still readable with the same digest")
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
            _table([{"topic": t, **c, "lost": c["acknowledged"] - c["readable"]}
                    for t, c in result["topics"].items()], ["topic", "acknowledged", "readable", "lost"]),
            f"## Lost records ({result['lost_records_total'] or 0} in all; at most {TABLE_ROWS} here, "
            "the rest in result.json up to --lost-limit)\n",
            _table(result["lost_records"][:TABLE_ROWS],
                   ["topic", "partition", "offset", "key", "reason", "expected_sha256", "actual_sha256"])]
    for name, rows in samples.items():
        text += [f"## {name.replace('_', ' ').capitalize()} (at most {TABLE_ROWS})\n",
                 _table(rows, list(rows[0]) if rows else [])]
    text.append("![acknowledged vs readable, high watermarks](chart.png)\n")
    (report_dir / "report.md").write_text("\n".join(text))


def judge(spark, args, clients):
    """Run the checks (clients: cluster_clients(args)); returns (summary, per-topic counts, sample rows per
    check, high watermark rows)."""
    from pyspark.sql import functions as F
    before, _ = read_snapshot(spark, args.before)
    after, groups_after = read_snapshot(spark, args.after)
    ledger = readable = None
    if args.ledger:
        ledger = read_ledger(spark, args.ledger).persist()
        topics = {r["topic"] for r in ledger.select("topic").distinct().collect()}
        # A topic deleted since is read as empty: its records are reported lost ("partition_gone").
        client_conf, java_properties = clients
        still_there = topics & check_reachable(client_conf)
        readable = (read_records(spark, client_conf, java_properties, still_there).persist() if still_there
                    else spark.createDataFrame([], checks.READABLE_SCHEMA))
    results = checks.run_checks(before, after, groups_after, ledger, readable)
    if ledger is not None:
        results[checks.LOST_RECORDS] = results[checks.LOST_RECORDS].persist()
    summary = checks.summarize(results, args.lost_limit)
    summary["duplicate_records_total"] = None
    if readable is not None:
        duplicates = checks.duplicate_records(readable).persist()
        summary["duplicate_records_total"] = duplicates.agg(F.sum(F.col("copies") - 1)).first()[0] or 0
        results["duplicate_records"] = duplicates
    topics_counts = per_topic(ledger, results[checks.LOST_RECORDS]) if ledger is not None else {}
    samples = {name: [r.asDict(recursive=True) for r in df.limit(TABLE_ROWS).collect()]
               for name, df in results.items() if name != checks.LOST_RECORDS}
    return summary, topics_counts, samples, watermarks(before, after)


def validate(args):
    before_cluster, after_cluster = read_cluster(args.before), read_cluster(args.after)
    if before_cluster["cluster_id"] != after_cluster["cluster_id"]:
        raise BadInput(f"the snapshots are of two clusters: {before_cluster['cluster_id']} (before, "
                       f"{args.before}) and {after_cluster['cluster_id']} (after, {args.after})")
    clients = cluster_clients(args)
    if args.ledger and clients[0] is None:
        raise BadInput("a ledger is checked against the records read back: give --client-settings or "
                       "--bootstrap-servers")
    spark = spark_session(args.master, args.conf)
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
    parser.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    parser.add_argument("--lost-limit", type=int, default=1000, help="lost records listed in result.json")
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
