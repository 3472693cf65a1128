"""scripts/demo.py without the lab (the cluster, the canary and the playbooks stood in for): the canary's topic exists
when the before snapshot is taken, so the validator's report checks the canary's high watermarks too (it said
"Not checked: high watermarks of canary" when the canary made its topic after the snapshot)."""

import json
import pathlib
import sys

from lab.config import REPO
from scripts import demo

sys.path.insert(0, str(REPO / "spark"))
import validate_recovery  # noqa: E402


class StandInCanary:
    acked, failed = 2000, 0

    def __init__(self, conf, topic, ledger, rate):
        self.topic = topic

    def start(self):
        return self

    def stop(self):
        return 0

    def summary(self):
        return {"topic": self.topic, "acked": self.acked, "failed": self.failed}


def test_the_canary_topic_is_in_the_before_snapshot_and_every_check_runs(tmp_path, monkeypatch, capsys):
    topics, events = [], []

    def ensure_topic(conf, topic, **options):
        topics.append(topic)
        events.append(f"topic {topic}")

    def playbook(name, *args, marks=None):
        """snapshot_offsets.yml writes the topics that exist; validate_recovery.yml says what it could not check, by
        the validator's own rule, for the canary's ledger against the before snapshot."""
        events.append(name)
        extra = dict(arg.split("=", 1) for arg in args if "=" in arg)
        if name == "snapshot_offsets.yml":
            folder = pathlib.Path(extra["snapshot_dir"]) / "cluster" / "20261125T120000Z"
            folder.mkdir(parents=True)
            (folder / "cluster.json").write_text("{}")
            (folder / "partitions.jsonl").write_text("".join(json.dumps({"topic": t}) + "\n" for t in topics))
        if name == "validate_recovery.yml":
            before = {json.loads(line)["topic"] for line in
                      (pathlib.Path(extra["before_snapshot"]) / "partitions.jsonl").read_text().splitlines()}
            skipped = validate_recovery.not_checked(
                ledger_given=True, ledger_topics=[demo.CANARY_TOPIC], before_topics=before, has_timeline=True,
                failed_recorded=True, duplicates_checked=extra.get("check_duplicates") == "true")
            report = pathlib.Path(extra["report_dir"])
            report.mkdir(parents=True)
            (report / "result.json").write_text(json.dumps({
                "lost_records_total": 0, "duplicate_records_total": 0, "failed_checks": [], "not_checked": skipped,
                "timeline": {"unavailable_window_count": 0, "unavailable_s": 0}}))
        return 0

    monkeypatch.setattr(demo, "REPO", tmp_path)
    monkeypatch.setattr(demo.cluster_settings, "load", lambda: {"bootstrap_servers": "b:9093",
                                                                  "zookeeper_connect": "z:2182"})
    monkeypatch.setattr(demo, "kafka_config", dict)
    monkeypatch.setattr(demo, "ensure_topic", ensure_topic)
    monkeypatch.setattr(demo, "fill", lambda *args: None)
    monkeypatch.setattr(demo, "Canary", StandInCanary)
    monkeypatch.setattr(demo.machines, "power_off", lambda host: events.append(f"power off {host.name}"))
    monkeypatch.setattr(demo, "wait_until_deregistered", lambda *args: None)
    monkeypatch.setattr(demo, "playbook", playbook)
    monkeypatch.setattr(demo.time, "sleep", lambda seconds: None)

    def wait_for(alertname, host, status, since, timeout):
        """The lab's receiver: Alertmanager's notification of kafka2's alert, fired then resolved."""
        events.append(f"{alertname} {host} {status}")
        return {"received_at": since + 40, "annotations": {"playbook": "replace_broker.yml ..."}}

    monkeypatch.setattr(demo.receiver, "wait_for", wait_for)

    assert demo.main() == 0
    assert events.index("power off kafka2") < events.index(f"{demo.ALERT} kafka2 firing") \
        < events.index("replace_broker.yml") < events.index(f"{demo.ALERT} kafka2 resolved")
    assert events.index(f"topic {demo.CANARY_TOPIC}") < events.index("snapshot_offsets.yml") \
        < events.index("power off kafka2") < events.index("replace_broker.yml")
    assert "  not checked: nothing: every check of the report ran" in capsys.readouterr().out.splitlines()
