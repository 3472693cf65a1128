"""A monitoring host that cannot be reached leaves the cluster's playbooks working: a rolling restart with the
monitoring host refusing SSH (as a hung machine does) restarts every broker, says once that its planned work is not
silenced, and ends 0 (in make test-long: a full roll)."""

from lab_hosts import ssh_run

from lab import config, faults

WARNING = "its planned work is not silenced"  # roles/monitoring/tasks/unanswered.yml


def _broker_pids():
    return {host.name: ssh_run(host, "systemctl show -p MainPID --value kafka").strip()
            for host in config.load_hosts() if "kafka_broker" in host.groups}


def test_a_roll_with_the_monitoring_host_unreachable_restarts_every_broker_and_warns_once(run_playbook):
    monitoring = [host for host in config.load_hosts() if "monitoring" in host.groups]
    assert monitoring, "the lab inventory has no monitoring host"
    before = _broker_pids()
    for host in monitoring:
        faults.refuse_ssh(host)
    try:
        rolled = run_playbook("rolling_restart.yml")
    finally:
        for host in monitoring:
            faults.connect(host)
    assert rolled.returncode == 0, rolled.output[-3000:]
    after = _broker_pids()
    assert all(after[name] != pid and after[name] != "0" for name, pid in before.items()), (before, after)
    assert rolled.output.count(WARNING) == 1, rolled.output[-3000:]
