"""When a running service must be restarted to run on files a deploy changed (pure, unit-tested)."""


def restart_pending(files_changed, started_now, marked_at, running_since):
    """Whether a running service (a ZooKeeper member, a broker) must be restarted to run on its files
    (playbooks/zookeeper.yml and playbooks/kafka.yml restart it through their gates): they changed in this
    run and this run did not start it (a first start reads them), or the mark written whenever they change
    (marked_at: its mtime, None when absent) is newer than the running process (running_since: systemctl's
    ExecMainStartTimestamp as '@<epoch seconds>', '' when it never ran). The mark outlives a failed run, so a
    rerun restarts what is still marked."""
    if files_changed and not started_now:
        return True
    started = float(running_since.lstrip("@") or 0)
    return marked_at is not None and float(marked_at) > started
