"""The recovery validator's checks: pure DataFrame-in / DataFrame-out functions.

Nothing here creates a SparkSession or reads or writes anything: the entry point owns the session, its
arguments and all IO, and hands these functions DataFrames with (at least) the columns of the schemas
below (extra columns are ignored). The formats themselves are described in spark/README.md.

Every check returns a DataFrame of problems, one row per problem; an empty DataFrame means nothing is
wrong. Rows come in no particular order. Everything is joins and anti-joins, so the checks run the
same on a laptop (``local[*]``) and on a cluster; only `summarize` brings anything back to the driver,
and then only counts and at most ``lost_limit`` lost records.
"""

from functools import reduce

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

# Input schemas (the snapshot and ledger formats, and what the entry point reads back from the cluster).
PARTITIONS_SCHEMA = StructType([
    StructField("topic", StringType()),
    StructField("partition", IntegerType()),
    StructField("log_start_offset", LongType()),
    StructField("high_watermark", LongType()),
    StructField("leader", IntegerType()),
    StructField("replicas", ArrayType(IntegerType())),
    StructField("isr", ArrayType(IntegerType())),
])
GROUP_OFFSETS_SCHEMA = StructType([
    StructField("group", StringType()),
    StructField("topic", StringType()),
    StructField("partition", IntegerType()),
    StructField("committed_offset", LongType()),
])
LEDGER_SCHEMA = StructType([  # a JSON line of the exchange format
    StructField("topic", StringType()),
    StructField("partition", IntegerType()),
    StructField("offset", LongType()),
    StructField("key", StringType()),
    StructField("sha256", StringType()),  # hex
    StructField("sent_at", DoubleType()),
    StructField("acked_at", DoubleType()),
])
LEDGER_PARQUET_SCHEMA = StructType([  # a canary's ledger segment (canary/ledger.py)
    *LEDGER_SCHEMA.fields[:4],
    StructField("sha256", BinaryType()),  # the 32 bytes
    *LEDGER_SCHEMA.fields[5:],
])
LEDGER_COLUMNS = LEDGER_SCHEMA.fieldNames()
READABLE_SCHEMA = StructType([
    StructField("topic", StringType()),
    StructField("partition", IntegerType()),
    StructField("offset", LongType()),
    StructField("sha256", BinaryType()),  # the 32 bytes
    StructField("key", StringType()),  # duplicates, and records acknowledged without an offset
])

# The names `run_checks` gives its results and `summarize` expects.
LOST_RECORDS = "lost_records"
HIGH_WATERMARK_REGRESSIONS = "high_watermark_regressions"
COMMITTED_OFFSET_PROBLEMS = "committed_offset_problems"
REPLICA_PROBLEMS = "replica_problems"
PARTITION_CHANGES = "partition_changes"

VERDICT_OK = "ok"
VERDICT_FAILED = "loss_or_regression"

_TP = ["topic", "partition"]
_TPO = ["topic", "partition", "offset"]


def _partitions(partitions, *columns):
    """One row per (topic, partition) with the given columns (a snapshot lists each partition once;
    taking the smallest value keeps a malformed duplicate line from multiplying rows in a join)."""
    if not columns:
        return partitions.select(*_TP).distinct()
    return partitions.groupBy(*_TP).agg(*[F.min(c).alias(c) for c in columns])


def _digest(frame, column):
    """A digest column as its 32 bytes, from the exchange format's hex text (either case) or bytes already."""
    if isinstance(frame.schema[column].dataType, StringType):
        return F.unhex(column)
    return F.col(column)


def _hex(column):
    return F.lower(F.hex(column))


def lost_records(ledger: DataFrame, readable: DataFrame, after_partitions: DataFrame,
                 without_offsets: bool = True) -> DataFrame:
    """Acknowledged records that are not readable after recovery with the digest they were written with.

    Columns: topic, partition, offset, key, expected_sha256 (the ledger's digest), actual_sha256 (the
    digest of the record now readable at that offset, null when there is none), both in lower-case hex,
    sent_at (when the write was sent, for the timeline; null when the ledger has no sent_at), reason:

    - "partition_gone": the partition is not in the snapshot after recovery (e.g. its topic was deleted);
    - "digest_mismatch": another record is readable at that offset (a truncated log that grew back);
    - "below_log_start": nothing readable and offset < the partition's log start offset after recovery
      (records deleted by retention or delete_records);
    - "missing": nothing readable at that offset otherwise (e.g. a truncated log).

    A record readable with its digest is never reported. Identical ledger lines (same topic, partition,
    offset and digest) count once. Two ledger lines for one offset with different digests are two
    acknowledged writes: at most one of them can still be there, so the other is reported. Digests (the
    sha256 columns) are hex text, compared case-insensitively, or 32 bytes; a null digest (a record without
    a value) matches a null one.

    A ledger line without an offset is a write the producer saw acknowledged without one (an idempotent
    producer's retry that the broker already had: a duplicate sequence): it is intact when a record with its
    key and digest is readable anywhere in its partition, else "missing" (or "partition_gone").
    without_offsets=False says the ledger has no such line, which spares a second shuffle of readable.

    The records are compared in one shuffle of each side by (topic, partition, offset); what follows keeps
    that partitioning, so a clean ledger of any size costs one sort-merge join.
    """
    sent_at = F.col("sent_at") if "sent_at" in ledger.columns else F.lit(None).cast("double")
    acked = ledger.select(*_TPO, "key", _digest(ledger, "sha256").alias("_expected"), sent_at.alias("sent_at"))
    there = readable.select(*[F.col(c).alias(f"_r_{c}") for c in _TPO], _digest(readable, "sha256").alias("_actual"),
                            F.col("key").alias("_r_key"))
    matched = F.col("_r_offset").isNotNull()
    # Kafka has one record per offset: a ledger line is intact when the record at its offset has its digest.
    # Only the lines that are not are deduplicated (without a further shuffle: the join's partitioning holds).
    not_intact = (acked.where(F.col("offset").isNotNull())
                  .join(there, on=[acked[c] == there[f"_r_{c}"] for c in _TPO], how="left")
                  .where(~(matched & F.col("_expected").eqNullSafe(F.col("_actual"))))
                  .groupBy(*_TPO, "_expected")
                  .agg(F.min("key").alias("key"), F.min("_actual").alias("_actual"), F.max(matched).alias("_readable"),
                       F.min("sent_at").alias("sent_at")))
    if without_offsets:
        same_record_anywhere = [*[acked[c] == there[f"_r_{c}"] for c in _TP], acked["key"].eqNullSafe(there["_r_key"]),
                                acked["_expected"].eqNullSafe(there["_actual"])]
        offsetless = (acked.where(F.col("offset").isNull())
                      .join(there, on=same_record_anywhere, how="left_anti")
                      .groupBy(*_TPO, "_expected")
                      .agg(F.min("key").alias("key"), F.lit(None).cast("binary").alias("_actual"),
                           F.lit(False).alias("_readable"), F.min("sent_at").alias("sent_at")))
        not_intact = not_intact.unionByName(offsetless)
    partitions = _partitions(after_partitions, "log_start_offset").withColumn("_exists", F.lit(True))
    reason = (F.when(F.col("_exists").isNull(), "partition_gone")
              .when(F.col("_readable"), "digest_mismatch")
              .when(F.col("offset") < F.col("log_start_offset"), "below_log_start")
              .otherwise("missing"))
    return (not_intact.join(F.broadcast(partitions), on=_TP, how="left")
            .select(*_TPO, "key", _hex("_expected").alias("expected_sha256"), _hex("_actual").alias("actual_sha256"),
                    "sent_at", reason.alias("reason")))


def duplicate_records(readable: DataFrame) -> DataFrame:
    """Keys readable at more than one offset: a write the producer retried and the broker stored twice.
    Not loss, and not part of the verdict; with an idempotent producer there are none.

    Needs a key column in readable (records without a key are not counted). Columns: topic, key,
    copies (> 1), first and last (the lowest and highest partition:offset holding the key; a retry stored
    twice has two copies). Fixed-size aggregates only, so millions of keys are counted in one hash
    aggregation.
    """
    position = F.col("partition").cast("long") * (1 << 40) + F.col("offset")  # offsets stay below 2^40

    def where(column):
        return F.concat_ws(":", F.shiftright(column, 40).cast("string"), (column % (1 << 40)).cast("string"))
    return (readable.where(F.col("key").isNotNull())
            .groupBy("topic", "key")
            .agg(F.count(F.lit(1)).alias("copies"), F.min(position).alias("_first"), F.max(position).alias("_last"))
            .where(F.col("copies") > 1)
            .select("topic", "key", "copies", where(F.col("_first")).alias("first"),
                    where(F.col("_last")).alias("last")))


def high_watermark_regressions(before_partitions: DataFrame, after_partitions: DataFrame) -> DataFrame:
    """Partitions present before and after whose high watermark went backwards.

    Columns: topic, partition, hw_before, hw_after. A high watermark that did not go backwards proves
    nothing on its own (a truncated log can grow back past it): `lost_records` compares the records.
    Partitions that exist on one side only are `partition_changes`; a null high watermark is not compared.
    """
    before = _partitions(before_partitions, "high_watermark").withColumnRenamed("high_watermark", "hw_before")
    after = _partitions(after_partitions, "high_watermark").withColumnRenamed("high_watermark", "hw_after")
    return (before.join(after, on=_TP, how="inner")
            .where(F.col("hw_after") < F.col("hw_before"))
            .select(*_TP, "hw_before", "hw_after"))


def committed_offset_problems(group_offsets_after: DataFrame, after_partitions: DataFrame) -> DataFrame:
    """Committed consumer group offsets that do not point into the partition's log after recovery.

    Columns: group, topic, partition, committed_offset, log_start_offset, high_watermark (the latter two
    null when the partition is gone), reason:

    - "partition_gone": the partition is not in the snapshot after recovery;
    - "beyond_high_watermark": committed_offset > high_watermark (the group would skip what is written
      next, or reset);
    - "before_log_start": committed_offset < log_start_offset (what the group had not consumed yet is gone).

    committed_offset == high_watermark (caught up) and == log_start_offset are fine. A null or negative
    committed offset (Kafka's -1: nothing committed) is no commitment and is not checked.
    """
    committed = (group_offsets_after
                 .select("group", *_TP, "committed_offset")
                 .where(F.col("committed_offset") >= 0)
                 .distinct())
    partitions = (_partitions(after_partitions, "log_start_offset", "high_watermark")
                  .withColumn("_exists", F.lit(True)))
    reason = (F.when(F.col("_exists").isNull(), "partition_gone")
              .when(F.col("committed_offset") > F.col("high_watermark"), "beyond_high_watermark")
              .when(F.col("committed_offset") < F.col("log_start_offset"), "before_log_start"))
    return (committed.join(F.broadcast(partitions), on=_TP, how="left")
            .select("group", *_TP, "committed_offset", "log_start_offset", "high_watermark",
                    reason.alias("reason"))
            .where(F.col("reason").isNotNull()))


def replica_problems(after_partitions: DataFrame) -> DataFrame:
    """Partitions without a usable leader or with replicas out of sync, one row per problem.

    Columns: topic, partition, leader, replicas, isr, reason:

    - "offline": leader is -1 or null, or the leader is not in the ISR;
    - "under_replicated": the ISR has fewer brokers than the replica list.

    A partition can have both rows. A null ISR or replica list counts as empty.
    """
    isr = F.coalesce(F.col("isr"), F.array().cast("array<int>"))
    replicas = F.coalesce(F.col("replicas"), F.array().cast("array<int>"))
    leader = F.col("leader")
    offline = leader.isNull() | (leader == -1) | ~F.array_contains(isr, leader)
    under_replicated = F.size(isr) < F.size(replicas)
    reasons = F.array_compact(F.array(F.when(offline, F.lit("offline")),
                                      F.when(under_replicated, F.lit("under_replicated"))))
    return after_partitions.select(*_TP, "leader", "replicas", "isr", F.explode(reasons).alias("reason"))


def partition_changes(before_partitions: DataFrame, after_partitions: DataFrame) -> DataFrame:
    """Partitions that exist on one side only.

    Columns: topic, partition, change: "disappeared" (before only: data gone with it) or "appeared"
    (after only: a new topic or more partitions, which alone is not a failure).
    """
    before = _partitions(before_partitions)
    after = _partitions(after_partitions)
    disappeared = before.join(after, on=_TP, how="left_anti").withColumn("change", F.lit("disappeared"))
    appeared = after.join(before, on=_TP, how="left_anti").withColumn("change", F.lit("appeared"))
    return disappeared.unionByName(appeared)


def run_checks(before_partitions: DataFrame, after_partitions: DataFrame, group_offsets_after: DataFrame,
               ledger: DataFrame | None = None, readable: DataFrame | None = None) -> dict:
    """Every check, by the names `summarize` knows. Without a ledger there is no lost_records result."""
    results = {}
    if ledger is not None:
        if readable is None:
            raise ValueError("a ledger needs the records read back from the cluster (readable) to check")
        results[LOST_RECORDS] = lost_records(ledger, readable, after_partitions)
    results[HIGH_WATERMARK_REGRESSIONS] = high_watermark_regressions(before_partitions, after_partitions)
    results[COMMITTED_OFFSET_PROBLEMS] = committed_offset_problems(group_offsets_after, after_partitions)
    results[REPLICA_PROBLEMS] = replica_problems(after_partitions)
    results[PARTITION_CHANGES] = partition_changes(before_partitions, after_partitions)
    return results


def summarize(results: dict, lost_limit: int) -> dict:
    """The verdict and counts of check results (name -> DataFrame, as `run_checks` names them).

    Returns a plain, JSON-serialisable dict:

    - verdict: "ok", or "loss_or_regression" when any check has a problem row, except that partitions
      that only appeared do not fail it;
    - failed_checks: the names of the checks that failed it, in the order of results;
    - counts: {check name: number of problem rows};
    - reasons: {check name: {reason or change: number of rows}} for the checks that have a reason (or
      change) column;
    - lost_records_total: the number of lost records (null when there was no lost_records check);
    - lost_by_topic: {topic: number of lost records} of the topics with any;
    - lost_records: at most lost_limit of them as dicts (lost_records' columns), sorted by topic,
      partition, offset.

    Only counts per reason and at most lost_limit rows are brought to the driver. Each result is
    evaluated once for its counts and lost_records once more for its sample: persist them first when
    recomputing them is expensive.
    """
    if lost_limit < 0:
        raise ValueError(f"lost_limit must be >= 0, not {lost_limit}")
    kinds = {name: next((c for c in ("reason", "change") if c in df.columns), None)
             for name, df in results.items()}
    # One job counts the rows of every check by reason.
    tallies = [df.select(F.lit(name).alias("check"), F.col(kinds[name]).cast("string").alias("kind")
                         if kinds[name] else F.lit(None).cast("string").alias("kind"),
                         F.col("topic") if name == LOST_RECORDS else F.lit(None).cast("string").alias("topic"))
               for name, df in results.items()]
    by_kind, lost_by_topic = {name: {} for name in results}, {}
    if tallies:
        for row in reduce(DataFrame.unionByName, tallies).groupBy("check", "kind", "topic").count().collect():
            by_kind[row["check"]][row["kind"]] = by_kind[row["check"]].get(row["kind"], 0) + row["count"]
            if row["check"] == LOST_RECORDS:
                lost_by_topic[row["topic"]] = lost_by_topic.get(row["topic"], 0) + row["count"]
    counts = {name: sum(by_kind[name].values()) for name in results}
    reasons = {name: dict(sorted(by_kind[name].items(), key=lambda kv: str(kv[0]))) for name in results
               if kinds[name]}
    failed = [name for name in results
              if counts[name] - (by_kind[name].get("appeared", 0) if name == PARTITION_CHANGES else 0)]
    lost_total = counts.get(LOST_RECORDS)
    lost = []
    if lost_total and lost_limit:
        lost = [row.asDict(recursive=True) for row in
                results[LOST_RECORDS].orderBy(*_TPO, "expected_sha256").limit(lost_limit).collect()]
    return {
        "verdict": VERDICT_FAILED if failed else VERDICT_OK,
        "failed_checks": failed,
        "counts": counts,
        "reasons": reasons,
        "lost_records_total": lost_total,
        "lost_by_topic": dict(sorted(lost_by_topic.items())),
        "lost_records": lost,
    }
