"""Figures for the lab and the deploy: `lab up` cold (base image built) and warm (base cached),
site.yml first run and three reruns with nothing to change (each with its changed count, and their median: the
figure), and the peak memory (RSS) of the
running lab cluster while the end-to-end test produces and consumes 10,000 messages.

Run: make bench-deploy   (or: .venv/bin/python bench/lab_deploy.py [--cold])
It takes the lab down first and leaves it up, deployed.
"""

import argparse
import os
import pathlib
import re
import shutil
import statistics
import sys
import threading
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lab import ansible, config, machines, measure  # noqa: E402


def timed(cmd):
    started = time.monotonic()
    proc = ansible.run(cmd)  # as the operator: `python -m lab ...`, `ansible-playbook ...`
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return time.monotonic() - started, proc.stdout


def changed_total(recap):
    return sum(int(n) for n in re.findall(r"changed=(\d+)", recap.split("PLAY RECAP")[-1]))


def lab_rss_mib():
    """Resident memory of every process of every lab host (the nspawn process and all below it)."""
    tree, per_host = measure.process_children(), {}
    for host in config.load_hosts():
        nspawn = machines.pid(host)
        per_host[host.name] = (measure.tree_rss_kib(nspawn, tree) if nspawn else 0) / 1024
    return per_host


def peak_memory_during(cmd):
    peak, stop = {"total": 0.0, "hosts": {}}, threading.Event()

    def sample():
        while not stop.is_set():
            hosts = lab_rss_mib()
            if sum(hosts.values()) > peak["total"]:
                peak.update(total=sum(hosts.values()), hosts=hosts)
            time.sleep(0.5)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        seconds, _ = timed(cmd)
    finally:
        stop.set()
        sampler.join()
    return peak, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", action="store_true", help="also delete the cached base image first")
    args = parser.parse_args()
    python = sys.executable
    timed([python, "-m", "lab", "down"])
    if args.cold:
        shutil.rmtree(config.BASE, ignore_errors=True)
    up_seconds, _ = timed([python, "-m", "lab", "up"])
    first_seconds, _ = timed(["ansible-playbook", "playbooks/site.yml"])
    reruns = [timed(["ansible-playbook", "playbooks/site.yml"]) for _ in range(3)]
    peak, e2e_seconds = peak_memory_during([python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                            "tests/integration/test_cluster_e2e.py"])
    print(f"lab up ({'cold: base image built' if args.cold else 'warm: base image cached'}): "
          f"{up_seconds:.1f} s")
    print(f"site.yml first run: {first_seconds:.1f} s")
    for n, (seconds, recap) in enumerate(reruns, start=2):
        print(f"site.yml run {n}: {seconds:.1f} s, changed={changed_total(recap)}")
    print(f"site.yml rerun with nothing to change, median of 3: {statistics.median(s for s, _ in reruns):.1f} s")
    print(f"peak RSS of the lab cluster during the 10,000-message end-to-end test ({e2e_seconds:.0f} s): "
          f"{peak['total']:.0f} MiB")
    for name, mib in peak["hosts"].items():
        print(f"  {name:<8} {mib:7.0f} MiB")
    print(f"machine memory: {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.1f} GiB")


if __name__ == "__main__":
    main()
