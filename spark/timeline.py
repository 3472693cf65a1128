"""The recovery timeline: when writes were acknowledged, when they failed and when nothing was acknowledged at all,
from the ledger's times (acked_at, sent_at) and the canary's failed sends (at). Pure DataFrame-in /
DataFrame-out functions, as in checks.py; each result has a row per second (or per window), small enough for the
driver whatever the ledger's size.
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


def unavailable_windows(ledger: DataFrame, by: tuple = (), min_gap_s: float = MIN_GAP_S) -> DataFrame:
    """Windows without any acknowledgement: two acknowledgements in a row (by acked_at, over the whole ledger or per
    `by` columns, e.g. ("topic", "partition")) further apart than min_gap_s. Columns: *by, start (the last
    acknowledgement before), end (the first after), seconds (end - start).

    Exact for min_gap_s >= 1: the acknowledgements are first reduced to the first and last of each second, and a
    gap longer than a second always runs from the last acknowledgement of one second to the first of a later one.
    """
    if min_gap_s < 1:
        raise ValueError(f"min_gap_s must be at least 1 second, not {min_gap_s}")
    seconds = (ledger.where(F.col("acked_at").isNotNull())
               .groupBy(*by, F.floor("acked_at").alias("_second"))
               .agg(F.min("acked_at").alias("_first"), F.max("acked_at").alias("_last")))
    previous = F.lag("_last").over(Window.partitionBy(*by).orderBy("_second"))
    return (seconds.select(*by, previous.alias("start"), F.col("_first").alias("end"))
            .where(F.col("end") - F.col("start") > min_gap_s)
            .select(*by, "start", "end", (F.col("end") - F.col("start")).alias("seconds")))
