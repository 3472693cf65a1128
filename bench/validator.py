"""The recovery validator at scale: a ledger of 10 million acknowledged records (written by the canary into a
12-partition RF 3 topic on the lab, as its Parquet ledger folder) checked against the topic read back, in the
same run, by

- spark/validate_recovery.py in local mode (its defaults; the time includes the JVM start, the snapshot checks
  and the report),
- the same job on the lab's Spark standalone cluster (lab/spark.py: a master and two one-core workers; the
  driver here), its peak memory being the driver's process tree plus the executors' (sampled on the workers),
- bench/plain_validate.py, the plain single-process Python a user would write instead (the ledger into a dict
  with pyarrow, a confluent-kafka consumer, hashlib), reading the same ledger folder,
- bench/read_floor.py, the floor: a confluent-kafka consumer that reads the same records and checks nothing;

each timed, with the peak resident memory of its process tree (sampled every 0.2 s).

Run: make bench-validator   (the lab must be up and deployed: make deploy; it starts the Spark hosts; about 15
     minutes, 1 GB of disk for the ledger; with --records 100000000 the canary writes for about 40 minutes, the
     ledger takes 4 GiB and each broker 6 GiB of its data disk)
     python bench/validator.py --records N [--keep] [--contenders NAME,...]   (--keep leaves the topic and the
     ledger for a rerun with the same records, which then skips writing them; --contenders runs only those of
     local, cluster, plain, floor, and none with an empty list. The plain script keeps every record of the
     ledger in a dict: at 100,000,000 records it needs more memory than the 24 GiB machine has, so leave it
     out there and state its growth per record from runs at smaller sizes)
"""

import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import threading
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from confluent_kafka.admin import AdminClient  # noqa: E402

from canary import Canary, ensure_topic  # noqa: E402
from lab import ansible, cluster_settings, spark  # noqa: E402
from lab.cluster_settings import kafka_config  # noqa: E402
from lab.measure import rss_kib, run_with_peak_rss  # noqa: E402

WORK = spark.SHARED / "bench-validator"  # the executors of the Spark cluster read the ledger at this path
CONTENDERS = ("local", "cluster", "plain", "floor")


class ExecutorMemory:
    """Samples the summed resident memory of the Spark executors on the workers (their JVMs are processes of
    this machine too) every 0.2 s, and keeps the peak."""

    def __init__(self):
        self.peak_mib, self._stop = 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            total_kib = 0
            for proc in pathlib.Path("/proc").glob("[0-9]*"):
                try:
                    if b"CoarseGrainedExecutorBackend" in (proc / "cmdline").read_bytes():
                        total_kib += rss_kib(proc.name)
                except OSError:
                    continue
            self.peak_mib = max(self.peak_mib, total_kib / 1024)
            self._stop.wait(0.2)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def snapshot(folder):
    ansible.playbook("playbooks/snapshot_offsets.yml", extra_vars={"snapshot_dir": folder}).check_returncode()
    return max(folder.glob("*/*/cluster.json"), key=lambda p: p.parent.name).parent


def write_records(records):
    """A fresh topic and the canary's ledger of `records` acknowledged records; returns the state."""
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    topic = f"canary-bench-validate-{uuid.uuid4().hex[:6]}"  # the canary principal's prefix
    ensure_topic(kafka_config(), topic, partitions=12, replication_factor=3)  # made by the kit's admin
    started = time.monotonic()
    canary = Canary(kafka_config(principal="canary"), topic, WORK / "ledger", rate=10 ** 9, count=records)
    canary.start()
    while canary.running():
        time.sleep(1)
    unreported = canary.stop(flush_timeout=600)
    written = canary.summary()
    print(f"canary: {written['acked']} acknowledged ({written['failed']} failed, {unreported} unreported) in "
          f"{time.monotonic() - started:.0f}s", flush=True)
    before = snapshot(WORK / "snapshots")
    time.sleep(1)  # snapshot folders are named by the second
    state = {"topic": topic, "records": records, "acked": written["acked"], "before": str(before),
             "after": str(snapshot(WORK / "snapshots"))}
    (WORK / "state.json").write_text(json.dumps(state))
    return state


def measure(name, cmd, figure):
    """Run one contender; print and return its row."""
    out = WORK / f"{name}.out"
    with out.open("w") as handle:
        rc, seconds, mib = run_with_peak_rss(cmd, cwd=REPO, stdout=handle, stderr=subprocess.STDOUT)
    row = {"name": name, "exit": rc, "seconds": round(seconds, 1), "peak_mib": round(mib), "result": figure(out)}
    print(json.dumps(row), flush=True)
    return row


def last_json(out):
    lines = [line for line in out.read_text().splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000_000)
    parser.add_argument("--keep", action="store_true", help="keep the topic and ledger for a rerun")
    parser.add_argument("--contenders", default=",".join(CONTENDERS),
                        help=f"comma-separated, of {', '.join(CONTENDERS)} (default: all)")
    args = parser.parse_args()
    chosen = [c for c in args.contenders.split(",") if c]
    if unknown := set(chosen) - set(CONTENDERS):
        parser.error(f"unknown contenders: {', '.join(sorted(unknown))}")
    state_file = WORK / "state.json"
    state = json.loads(state_file.read_text()) if state_file.exists() else {}
    if state.get("records") != args.records:
        state = write_records(args.records)
    ledger, settings = WORK / "ledger", str(cluster_settings.PATH)
    print(f"ledger: {sum(p.stat().st_size for p in ledger.iterdir()) / 2 ** 20:.0f} MiB", flush=True)
    rows = []
    try:
        spark_job = [sys.executable, "spark/validate_recovery.py", "--before", state["before"], "--after",
                     state["after"], "--client-settings", settings]

        def lost(report):
            result = report / "result.json"
            return lambda _: json.loads(result.read_text())["lost_records_total"] if result.exists() else None
        if "local" in chosen:
            rows.append(measure("spark local", [*spark_job, "--report-dir", str(WORK / "report-local"),
                                                "--ledger", str(ledger)], lost(WORK / "report-local")))
        if "cluster" in chosen:
            subprocess.run([sys.executable, "-m", "lab", "spark-up"], cwd=REPO, check=True)
            with ExecutorMemory() as executors:
                on_cluster = measure("spark cluster", [*spark_job, "--report-dir", str(WORK / "report-cluster"),
                                                       "--ledger", ledger.as_uri(), "--master", spark.MASTER_URL,
                                                       "--conf", f"spark.driver.host={spark.driver_address()}"],
                                     lost(WORK / "report-cluster"))
            # the driver's process tree here, and the executors' on the workers
            on_cluster["peak_mib"] = round(on_cluster["peak_mib"] + executors.peak_mib)
            on_cluster["name"] += f" (driver + executors {executors.peak_mib:,.0f} MiB)"
            rows.append(on_cluster)
        if "plain" in chosen:
            rows.append(measure("plain python", [sys.executable, "bench/plain_validate.py", str(ledger), settings],
                                last_json))
        if "floor" in chosen:
            rows.append(measure("floor (read only)", [sys.executable, "bench/read_floor.py", state["topic"],
                                                      settings], last_json))
        print(f"\n{state['acked']:,} acknowledged records, one run:\n")
        print("| contender | exit | seconds | records/s | peak MiB | result |\n|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['name']} | {r['exit']} | {r['seconds']} | {state['acked'] / r['seconds']:,.0f} | "
                  f"{r['peak_mib']:,} | {r['result']} |")
    finally:
        if "cluster" in chosen:
            subprocess.run([sys.executable, "-m", "lab", "spark-down"], cwd=REPO, check=True)
        if not args.keep:
            admin = AdminClient(kafka_config())  # referenced until the result: a collected client cancels it
            admin.delete_topics([state["topic"]])[state["topic"]].result(60)
            shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
