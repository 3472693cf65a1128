"""The recovery timeline: when writes were acknowledged, when they failed and when nothing was acknowledged at all,
from the ledger's times (acked_at, sent_at) and the canary's failed sends (at). Pure DataFrame-in /
DataFrame-out functions, as in checks.py; each result has a row per second, per window or per partition, small
enough for the driver whatever the ledger's size.
"""

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

MIN_GAP_S = 1.0  # a stretch this long without an acknowledgement is an unavailable window


def per_second(frame: DataFrame, time_column: str, name: str) -> DataFrame:
    """Rows per whole second of time_column (Unix time): columns second (long), <name> (count). Rows without a time
    are left out."""
    return (frame.where(F.col(time_column).isNotNull())
            .groupBy(F.floor(time_column).alias("second"))
            .agg(F.count(F.lit(1)).alias(name)))


def ack_seconds(ledger: DataFrame) -> DataFrame:
    """The one pass over the ledger the timeline needs: per topic, partition and whole second of acked_at, the
    acknowledgements (acknowledged) and the first and last acked_at. Lines without acked_at are left out."""
    return (ledger.where(F.col("acked_at").isNotNull())
            .groupBy("topic", "partition", F.floor("acked_at").alias("second"))
            .agg(F.count(F.lit(1)).alias("acknowledged"), F.min("acked_at").alias("first"),
                 F.max("acked_at").alias("last")))


def acknowledged_per_second(seconds: DataFrame) -> DataFrame:
    """Columns second, acknowledged: every partition's acknowledgements together (seconds: ack_seconds)."""
    return seconds.groupBy("second").agg(F.sum("acknowledged").alias("acknowledged"))


def unavailable_windows(seconds: DataFrame, by: tuple = (), min_gap_s: float = MIN_GAP_S) -> DataFrame:
    """Windows without any acknowledgement: two acknowledgements in a row (by acked_at, over the whole ledger or per
    `by` columns, e.g. ("topic", "partition")) further apart than min_gap_s. seconds: ack_seconds of the ledger.
    Columns: *by, start (the last acknowledgement before), end (the first after), seconds (end - start).

    Exact for min_gap_s >= 1: a gap longer than a second always runs from the last acknowledgement of one second
    to the first of a later one, and ack_seconds keeps both.
    """
    if min_gap_s < 1:
        raise ValueError(f"min_gap_s must be at least 1 second, not {min_gap_s}")
    per = seconds.groupBy(*by, F.col("second").alias("_second")).agg(F.min("first").alias("_first"),
                                                                     F.max("last").alias("_last"))
    previous = F.lag("_last").over(Window.partitionBy(*by).orderBy("_second"))
    return (per.select(*by, previous.alias("start"), F.col("_first").alias("end"))
            .where(F.col("end") - F.col("start") > min_gap_s)
            .select(*by, "start", "end", (F.col("end") - F.col("start")).alias("seconds")))


def worst_partitions(partition_windows: DataFrame, limit: int) -> DataFrame:
    """The `limit` partitions longest without an acknowledgement, from unavailable_windows(..., by=("topic",
    "partition")): columns topic, partition, windows (how many), unavailable_s (their sum), longest_s; the most
    unavailable first."""
    return (partition_windows.groupBy("topic", "partition")
            .agg(F.count(F.lit(1)).alias("windows"), F.sum("seconds").alias("unavailable_s"),
                 F.max("seconds").alias("longest_s"))
            .orderBy(F.desc("unavailable_s"), "topic", "partition").limit(limit))
