"""What the drills share: running a command as an operator would (its output kept in the drill's log), and
reading which hosts a playbook run changed."""

import json
import pathlib
import re
import shutil
import subprocess
import sys
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
# the checkout, and the checkout as the collection kafkaops.toolkit (make setup links it under .cache/collections)
sys.path[:0] = [str(REPO), str(REPO / ".cache" / "collections")]

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_adoption  # noqa: E402
from canary import Canary, ensure_topic  # noqa: E402
from canary.availability import longest_unavailable_seconds, unavailable_seconds  # noqa: E402
from canary.ledger import read_acked, read_failed  # noqa: E402
from lab import ansible, cluster_settings, config  # noqa: E402
from lab.machines import run_on  # noqa: E402


def run(command, log_dir, cwd=REPO, env=None):
    """Run command as the operator (env: default lab.ansible.environment()); exits the drill with its output when it
    fails. Returns (process, wall seconds)."""
    print(f"$ {' '.join(command)}", flush=True)
    started = time.monotonic()
    proc = ansible.run(command, env=env, cwd=cwd)
    log_dir.mkdir(parents=True, exist_ok=True)
    with open(log_dir / "commands.log", "a", encoding="utf-8") as log:
        log.write(f"$ {' '.join(command)}\n{proc.stdout}{proc.stderr}\n")
    if proc.returncode:
        sys.exit(f"failed ({proc.returncode}): {' '.join(command)}\n{proc.stdout[-5000:]}{proc.stderr[-2000:]}")
    return proc, time.monotonic() - started


def refused(command, log, reasons, env=None):
    """Run a command that must be refused: it exits non-zero and its stdout shows every text of reasons. Its output
    goes to the file log. Returns (refused, the hosts its PLAY RECAP counts a change on)."""
    proc = ansible.run(command, env=env)
    log.write_text(proc.stdout + proc.stderr)
    return proc.returncode != 0 and all(r in proc.stdout for r in reasons), changed_hosts(proc.stdout)


def on_host(name, command):
    """A command as root on the lab host of that name (lab.machines.run_on): its stdout."""
    return run_on(config.host(name), command)


def fresh_lab(work):
    """An empty work dir (its logs/ the commands' log) and a lab just booted, nothing deployed."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    run([sys.executable, "-m", "lab", "down"], work / "logs")
    run([sys.executable, "-m", "lab", "up"], work / "logs")


def deploy_roles_of(commit, work, log_dir):
    """site.yml of the roles at an earlier commit (a cluster as they deployed it), from their own checkout under work
    (its collection link points at itself). Returns the wall seconds."""
    old = work / f"roles-{commit}"
    shutil.rmtree(old, ignore_errors=True)
    old.mkdir(parents=True)
    subprocess.run(f"git -C {REPO} archive {commit} | tar -x -C {old}", shell=True, check=True)
    (old / ".cache").mkdir()
    (old / ".cache" / "kafka").symlink_to(REPO / ".cache" / "kafka")
    link = old / ".cache" / "collections" / "ansible_collections" / "kafkaops" / "toolkit"
    link.parent.mkdir(parents=True)
    link.symlink_to(old)
    _, seconds = run(["ansible-playbook", "playbooks/site.yml"], log_dir, cwd=old,
                     env=ansible.environment(ANSIBLE_CONFIG=str(old / "ansible.cfg")))
    return seconds


def canary_with_snapshot(work, name, rate):
    """An acks=all canary writing at rate records/s to a new topic (name-<random>, 6 partitions, RF 3) with its ledger
    under work, and a snapshot (snapshot_offsets.yml) once every partition holds data. Returns (canary, ledger,
    snapshots, before): what validate() takes."""
    secured = cluster_settings.kafka_config()
    topic = f"{name}-{uuid.uuid4().hex[:6]}"
    ensure_topic(secured, topic, partitions=6, replication_factor=3)
    ledger, snapshots = work / "ledger", work / "snapshots"
    canary = Canary(secured, topic, ledger, rate=rate).start()
    try:
        time.sleep(10)  # data in every partition before the snapshot
        run(["ansible-playbook", "playbooks/snapshot_offsets.yml", "-e", f"snapshot_dir={snapshots}"], work / "logs")
    except BaseException:
        canary.stop()
        raise
    return canary, ledger, snapshots, max(snapshots.glob("*/*/cluster.json")).parent


def client_config(path, log_dir, *extra):
    """librdkafka settings the connection role derives (client_settings.yml with extra's -e arguments), kept at path."""
    run(["ansible-playbook", "playbooks/client_settings.yml", "-e", f"client_settings_path={path}", *extra], log_dir)
    return json.loads(path.read_text())["kafka"]


def run_twice(command, label, log_dir):
    """A playbook run, then the same command again, which must change nothing. Returns {run: label, seconds}."""
    _, seconds = run(command, log_dir)
    print(f"{label}: {seconds:.0f} s", flush=True)
    rerun, _ = run(command, log_dir)
    changed = changed_hosts(rerun.stdout)
    assert not changed, f"{label}: the rerun changed {changed}"
    return {"run": label, "seconds": round(seconds)}


def changed_hosts(output):
    """Hosts whose PLAY RECAP counts a change."""
    return [m.group(1) for m in re.finditer(r"^(\S+)\s+: ok=\d+\s+changed=(\d+)", output, re.M) if m.group(2) != "0"]


def validate(before, ledger, snapshots, report, canaries, env=None):
    """validate_recovery.yml (the Spark validator) over the canaries' ledger against the before snapshot. Returns
    the figures (acknowledged and failed sends of every canary, lost records, verdict, the playbook's exit code)
    and the problems among them. env: the playbook's environment (default: lab.ansible.environment())."""
    proc = ansible.playbook("playbooks/validate_recovery.yml", env=env, extra_vars={
        "before_snapshot": before, "ledger": ledger, "snapshot_dir": snapshots, "report_dir": report})
    result = json.loads((report / "result.json").read_text())
    figures = {"acked": sum(c["acked"] for c in canaries), "failed": sum(c["failed"] for c in canaries),
               "lost": result["lost_records_total"], "verdict": result["verdict"], "validator_exit": proc.returncode}
    problems = [f"{figures['failed']} failed sends"] if figures["failed"] else []
    problems += ["the canaries had no send acknowledged: nothing was proven"] if not figures["acked"] else []
    problems += [f"{figures['lost']} lost records (validator: {result['verdict']})"] if figures["lost"] else []
    problems += [f"validate_recovery.yml exited {proc.returncode}"] if proc.returncode else []
    return figures, problems


def validate_canary(canary, figures, before, ledger, snapshots, report, started, env=None):
    """The end of a drill with one canary, stopped by then: its summary (figures["canary"]) and the validator's figures
    (validate) into figures, with the drill's wall time since started (time.monotonic()). Returns the problems."""
    figures["canary"] = canary.summary()
    losses, problems = validate(before, ledger, snapshots, report, [figures["canary"]], env)
    figures.update(losses, drill_s=round(time.monotonic() - started))
    return problems


def mismatches(figures, expected):
    """A problem for each figure that is not what the drill expects."""
    return [f"{key}: {figures[key]}, not {value}" for key, value in expected.items() if figures[key] != value]


def finish(name, figures, problems, passed):
    """Write the figures to .cache/drills/<name>.json and print them; exit 1 naming the problems, if any."""
    (REPO / ".cache" / "drills" / f"{name}.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    if problems:
        sys.exit("drill failed: " + "; ".join(problems))
    print(f"drill passed: {passed}")


def window(ledger, start, end):
    """Acknowledged and failed sends of the ledger sent in [start, end], and the canary's unavailable seconds, in all
    and its longest outage (of the canary's records: another writer's, without sent_at, are not counted)."""
    def sent_then(entry):
        return entry.get("sent_at") is not None and start <= entry["sent_at"] <= end
    entries = [e for e in read_acked(ledger) if sent_then(e)]
    failures = [f for f in read_failed(ledger) if sent_then(f)]
    return {"acked": len(entries), "failed": len(failures), "unavailable_s": unavailable_seconds(entries, failures),
            "longest_unavailable_s": longest_unavailable_seconds(entries, failures),
            "failure_errors": sorted({f["error"] for f in failures})}


# the `pgrep -a` line of the broker or controller process, then where its open files' links point
_PROCESS = ("line=$(pgrep -f -a 'kafka[.]Kafka ' | head -1); echo \"$line\"; "
            "[ -z \"$line\" ] || for f in /proc/${line%% *}/fd/*; do readlink \"$f\"; done; true")


def _kafka_processes(kinds):
    """{host: (`pgrep -a` line of its broker or controller process, its open files), ("", []) where none runs} on the
    hosts of kinds' groups."""
    found = {}
    for host in config.load_hosts():
        if set(kinds) & set(host.groups):
            line, *targets = on_host(host.name, _PROCESS).splitlines() or [""]
            found[host.name] = line.strip(), targets
    return found


def kafka_pids(kinds=("kafka_broker", "kafka_controller")):
    """{host: the pid of its broker or controller process, None where none runs}: a changed pid is a restart."""
    return {host: int(line.split()[0]) if line else None for host, (line, _) in _kafka_processes(kinds).items()}


def releases(kinds=("kafka_broker", "kafka_controller")):
    """{host: the Kafka release its broker or controller process runs} (kafka_adoption's read of /proc there: the jars
    it holds open) on the lab hosts of kinds' groups; None where none runs."""
    found = {}
    for name, (line, targets) in _kafka_processes(kinds).items():
        argv = line.split(maxsplit=1)[1].split() if line else []
        jars = lambda path, h=name: on_host(h, f"ls {path} 2>/dev/null").split()  # noqa: E731
        open_jars = kafka_adoption.open_jar_names(targets)
        found[name] = kafka_adoption.read_java_process(argv, jars, open_jars).get("release") if argv else None
    return found


def killed_at(command, log, line):
    """Run command as the operator and kill it with SIGKILL once its output (the file log) shows line
    (lab.ansible.killed_at). Returns its output."""
    print(f"$ {' '.join(command)}  (killed at {line!r})", flush=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    return ansible.killed_at(command, log, line, timeout=1800)
