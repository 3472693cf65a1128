"""The recovery validator at scale: a ledger of 10 million acknowledged records (written by the canary
into a 12-partition RF 3 topic on the lab) checked against the topic read back, in the same run

- by spark/validate_recovery.py (local[*], driver memory 6g; its time includes the JVM start and the
  snapshot checks), and
- by bench/plain_validate.py, a plain single-process Python implementation (dict of the ledger, a
  confluent-kafka consumer, hashlib);

each timed, with the peak resident memory of its process tree (sampled every 0.2 s), and the ratio.

Run: make bench-validator   (the lab must be up and deployed: make deploy; about 15 minutes, 3 GB of disk)
"""

import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from confluent_kafka.admin import AdminClient  # noqa: E402

from canary import Canary, ensure_topic  # noqa: E402
from lab import cluster_settings  # noqa: E402
from lab.cluster_settings import kafka_config  # noqa: E402
from lab.measure import run_with_peak_rss  # noqa: E402

WORK = REPO / ".cache" / "bench-validator"


def snapshot(folder):
    subprocess.run(["ansible-playbook", "playbooks/snapshot_offsets.yml", "-e", f"snapshot_dir={folder}"],
                   cwd=REPO, check=True, capture_output=True)
    return max(folder.glob("*/*/cluster.json"), key=lambda p: p.parent.name).parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000_000)
    args = parser.parse_args()
    bootstrap = cluster_settings.load()["bootstrap_servers"]
    topic = f"bench-validate-{uuid.uuid4().hex[:6]}"
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    ledger = WORK / "ledger.jsonl"
    ensure_topic(kafka_config(), topic, partitions=12, replication_factor=3)
    try:
        started = time.monotonic()
        canary = Canary(kafka_config(), topic, ledger, WORK / "failed.jsonl", rate=10 ** 9, count=args.records)
        canary.start()
        while canary.running():
            time.sleep(1)
        unreported = canary.stop(flush_timeout=600)
        written = canary.summary()
        ledger_mib = ledger.stat().st_size / 2 ** 20
        print(f"canary: {written['acked']} acknowledged ({written['failed']} failed, {unreported} "
              f"unreported) in {time.monotonic() - started:.0f}s; ledger {ledger_mib:.0f} MiB", flush=True)
        before = snapshot(WORK / "snapshots")
        time.sleep(1)  # snapshot folders are named by the second
        after = snapshot(WORK / "snapshots")

        spark_cmd = [sys.executable, "spark/validate_recovery.py", "--before", str(before),
                     "--after", str(after), "--ledger", str(ledger), "--client-settings", str(cluster_settings.PATH),
                     "--report-dir", str(WORK / "report"), "--conf", "spark.driver.memory=6g"]
        rc, spark_s, spark_mib = run_with_peak_rss(spark_cmd, cwd=REPO, stdout=subprocess.DEVNULL,
                                                   stderr=subprocess.DEVNULL)
        result = json.loads((WORK / "report" / "result.json").read_text()) if rc in (0, 1) else {}
        print(f"spark (local[*]): exit {rc}, lost {result.get('lost_records_total')}, {spark_s:.1f}s = "
              f"{written['acked'] / spark_s:,.0f} records/s, peak RSS {spark_mib:,.0f} MiB", flush=True)

        plain_out = WORK / "plain.json"
        with plain_out.open("w") as out:
            plain_cmd = [sys.executable, "bench/plain_validate.py", str(ledger), str(cluster_settings.PATH)]
            rc, plain_s, plain_mib = run_with_peak_rss(plain_cmd, cwd=REPO, stdout=out)
        plain = json.loads(plain_out.read_text() or "{}") if rc == 0 else {}
        print(f"plain python: exit {rc}{' (out of memory?)' if rc < 0 else ''}, lost {plain.get('lost')}, "
              f"{plain_s:.1f}s = {written['acked'] / plain_s:,.0f} records/s, peak RSS {plain_mib:,.0f} MiB")
        print(f"ratio plain / spark: time {plain_s / spark_s:.2f}, peak memory {plain_mib / spark_mib:.2f}")
    finally:
        admin = AdminClient(kafka_config(bootstrap))  # referenced until the result
        admin.delete_topics([topic])[topic].result(60)
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
