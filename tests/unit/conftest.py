"""Fixtures shared by the unit tests."""

import os
import pathlib
import sys

import pytest

# The chaos suite's pure parts (report, expectations, probes' parsers, outcome, run record) are unit-tested;
# its modules import each other by name, as pytest runs them from tests/chaos.
sys.path.append(str(pathlib.Path(__file__).resolve().parents[1] / "chaos"))


@pytest.fixture(scope="session")
def spark_session():
    """One small local SparkSession for the whole run, started only when a test asks for it."""
    from pyspark.sql import SparkSession

    session = (SparkSession.builder
               .master("local[1]")
               .appName("kafka-ops-unit-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "1")
               .config("spark.default.parallelism", "1")
               .config("spark.driver.memory", "512m")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.pyspark.python", sys.executable)
               .config("spark.log.level", "ERROR")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def shell_without_venv():
    """The environment of a fresh shell on the machine with no venv activated: the system PATH, no VIRTUAL_ENV.
    What a documented command finds when run from a fresh clone as written."""
    return {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": os.environ.get("HOME", "/root")}
