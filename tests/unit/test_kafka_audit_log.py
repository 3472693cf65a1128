"""The audit log's filters (module_utils/kafka_audit_log), run through each release's logging backend from the
distributions `make setup` unpacks (reload4j for 3.9.2, log4j2 for 4.4.0), on the authorizers' own lines (Kafka 3.9's
StandardAuthorizer and AclAuthorizer; 4.x has StandardAuthorizer alone)."""

import json
import pathlib
import subprocess

import pytest

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_audit_log, kafka_versions
from lab import config

REPO = pathlib.Path(__file__).resolve().parents[2]
STANDARD = ("Principal = User:{p} is {r} operation = {o} from host = 10.0.0.1 on resource = Topic:LITERAL:t for "
            "request = Produce with resourceRefCount = 1 based on rule SuperUser")
ACL = ("Principal = User:{p} is {r} Operation = {o} from host = 10.0.0.1 on resource = Topic:LITERAL:t for request = "
       "Produce with resourceRefCount = 1")


def _config(release, folder):
    """The release's audit filter in its logging syntax, on an appender that writes to stdout, and its Java runner."""
    if kafka_versions.facts(release)["logging"]["name"] == "log4j":
        (folder / "audit.properties").write_text("\n".join(kafka_audit_log.log4j_lines("audit")) + "\n")
        return folder / "audit.properties", "AuditFilter.java"
    appender = {"name": "audit", "PatternLayout": {"pattern": "%m%n"},
                "RegexFilter": kafka_audit_log.log4j2_filter("DENY")}
    log4j2_config = {"Configuration": {"Appenders": {"Console": appender}, "Loggers": {
        "Root": {"level": "OFF"},
        "Logger": [{"name": "kafka.authorizer.logger", "level": "DEBUG", "AppenderRef": {"ref": "audit"}}]}}}
    (folder / "audit.json").write_text(json.dumps(log4j2_config))  # log4j2 reads JSON with the jackson jars Kafka ships
    return folder / "audit.json", "AuditFilter2.java"


@pytest.mark.parametrize("release", kafka_versions.RELEASES)
def test_changes_and_denials_are_kept_reads_and_writes_dropped(tmp_path, release):
    libs = config.kafka_libs(release)
    assert libs.is_dir(), f"{libs} missing: run make setup"
    config_file, runner = _config(release, tmp_path)
    kept, dropped = [], []
    for template, spelled in ((STANDARD, str), (ACL, lambda op: op.title().replace("_", ""))):
        kept += [template.format(p="kafkaops-admin", r="Allowed", o=spelled(op))
                 for op in ("CREATE", "DELETE", "ALTER", "ALTER_CONFIGS")]
        kept += [template.format(p="app", r="Denied", o=spelled(op)) for op in ("READ", "WRITE", "DESCRIBE")]
        dropped += [template.format(p="kafka-cluster", r="Allowed", o=spelled(op))
                    for op in ("READ", "WRITE", "DESCRIBE", "DESCRIBE_CONFIGS", "CLUSTER_ACTION")]
    out = subprocess.run(["java", "-cp", f"{libs}/*", str(REPO / "tests/unit/java" / runner), str(config_file),
                          *kept, *dropped], capture_output=True, text=True, check=True, timeout=60).stdout
    assert out.splitlines() == kept
