"""A Spark standalone cluster in the lab, for the recovery validator on a real cluster (`python -m lab spark-up` /
`spark-down`): a master on spark1 and one worker on each of spark2 and spark3, every one a lab host of its own
(network namespace, systemd, sshd), started with Spark's own launch classes (spark-class) from the PySpark
distribution in the checkout's venv.

What the executors need is bound into the Spark hosts read-only at the path it has here, so the validator's
settings hold everywhere: the venv (PySpark's jars and Python) and the Python it was made from, and the folder
of the kit's CA file (the Kafka source's truststore). SHARED is bound read-write at its own path: the shared
filesystem of the lab, where inputs every executor reads go (file:// URIs).

Not part of the Kafka inventory: no playbook sees these hosts."""

import json
import pathlib
import subprocess
import time
import urllib.request

from . import config, machines, network
from .shell import LabError

HOSTS = [config.Host("spark1", "10.213.7.31", ("spark_master",)),
         config.Host("spark2", "10.213.7.32", ("spark_worker",)),
         config.Host("spark3", "10.213.7.33", ("spark_worker",))]
MASTER, WORKERS = HOSTS[0], HOSTS[1:]
MASTER_URL = f"spark://{MASTER.fqdn}:7077"
MASTER_JSON = f"http://{MASTER.fqdn}:8080/json/"
SHARED = config.ROOT / "shared"
VENV = config.REPO / ".venv"
WORKER_CORES = 1        # the machine has 2 cores; one executor per worker
WORKER_MEMORY = "1g"    # what a worker offers its executors (the validator asks for spark.executor.memory)
LOCAL_DIRS = "/var/lib/spark-local"  # executors' shuffle and spill files (SPARK_LOCAL_DIRS)
DAEMON_MEMORY = "256m"  # the master's and the workers' own heaps


def driver_address():
    """This machine's address on the lab's bridge: where the executors reach a driver run here
    (spark.driver.host)."""
    return config.bridge_address(config.load_hosts()).split("/")[0]


def _spark_home():
    return pathlib.Path(subprocess.run([VENV / "bin" / "python", "-c", "import pyspark, os; "
                                        "print(os.path.dirname(pyspark.__file__))"],
                                       capture_output=True, text=True, check=True).stdout.strip())


def _binds(truststore_dir):
    base_python = subprocess.run([VENV / "bin" / "python", "-c", "import sys; print(sys.base_prefix)"],
                                 capture_output=True, text=True, check=True).stdout.strip()
    SHARED.mkdir(parents=True, exist_ok=True)
    return [f"--bind-ro={VENV}", f"--bind-ro={base_python}", f"--bind-ro={truststore_dir}", f"--bind={SHARED}"]


def _start_daemon(host, unit, spark_class, *arguments):
    """Run a Spark daemon in the foreground under a transient systemd unit of the host."""
    home = _spark_home()
    command = ["systemd-run", f"--unit={unit}", f"--setenv=SPARK_HOME={home}",
               f"--setenv=SPARK_DAEMON_MEMORY={DAEMON_MEMORY}", f"--setenv=PYSPARK_PYTHON={VENV}/bin/python",
               # Shuffle and spill files on disk: a lab host's /tmp is a small tmpfs (memory), and a 100M-record
               # ledger's shuffle outgrows it.
               f"--setenv=SPARK_LOCAL_DIRS={LOCAL_DIRS}",
               f"{home}/bin/spark-class", spark_class, *arguments]
    machines.run_on(host, " ".join(command))


def alive_workers():
    """The hosts of the workers the master lists as ALIVE (its JSON status page)."""
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # a lab address: never through a proxy
    with direct.open(MASTER_JSON, timeout=5) as response:
        status = json.load(response)
    return sorted(w["host"] for w in status["workers"] if w["state"] == "ALIVE")


def up(truststore_dir, timeout=120):
    """Boot the Spark hosts (after `lab up`: the bridge and the names are there), start the master and the
    workers, wait until both workers are ALIVE at the master."""
    to_boot = [h for h in HOSTS if machines.pid(h) is None]
    binds = _binds(truststore_dir)
    for host in to_boot:
        network.ensure_netns(host)
        machines.start(host, binds)
    machines.wait_ready(to_boot)
    if MASTER in to_boot:
        _start_daemon(MASTER, "spark-master", "org.apache.spark.deploy.master.Master",
                      "--host", MASTER.fqdn, "--port", "7077", "--webui-port", "8080")
    for worker in WORKERS:
        if worker in to_boot:
            _start_daemon(worker, "spark-worker", "org.apache.spark.deploy.worker.Worker", MASTER_URL,
                          "--host", worker.fqdn, "--cores", str(WORKER_CORES), "--memory", WORKER_MEMORY,
                          "--webui-port", "8081", "--work-dir", "/var/lib/spark-work")  # SPARK_HOME is read-only
    deadline = time.monotonic() + timeout
    while True:
        try:
            alive = alive_workers()
        except OSError:
            alive = []
        if len(alive) == len(WORKERS):
            print(f"spark is up: master {MASTER_URL}, workers {', '.join(alive)}; shared folder {SHARED}")
            return
        if time.monotonic() > deadline:
            raise LabError(f"{len(alive)} of {len(WORKERS)} Spark workers alive after {timeout}s ({MASTER_JSON}); "
                           f"see journalctl -u spark-master / spark-worker on {', '.join(h.name for h in HOSTS)}")
        time.sleep(1)


def down():
    """Stop the Spark hosts (their network namespaces go with `lab down`)."""
    stopped = machines.stop(HOSTS)
    print(f"spark is down{': stopped ' + ', '.join(stopped) if stopped else ''}")
