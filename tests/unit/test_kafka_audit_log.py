"""The audit log's log4j filters (module_utils/kafka_audit_log), run through reload4j from the distribution `make
setup` unpacks, on the authorizers' own lines (Kafka 3.9's StandardAuthorizer and AclAuthorizer)."""

import pathlib
import subprocess

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_audit_log

REPO = pathlib.Path(__file__).resolve().parents[2]
KAFKA_LIBS = REPO / ".cache" / "kafka" / "current" / "libs"
STANDARD = ("Principal = User:{p} is {r} operation = {o} from host = 10.0.0.1 on resource = Topic:LITERAL:t for "
            "request = Produce with resourceRefCount = 1 based on rule SuperUser")
ACL = ("Principal = User:{p} is {r} Operation = {o} from host = 10.0.0.1 on resource = Topic:LITERAL:t for request = "
       "Produce with resourceRefCount = 1")


def test_changes_and_denials_are_kept_reads_and_writes_dropped(tmp_path):
    assert KAFKA_LIBS.is_dir(), f"{KAFKA_LIBS} missing: run make setup"
    (tmp_path / "audit.properties").write_text("\n".join(kafka_audit_log.log4j_lines("audit")) + "\n")
    kept, dropped = [], []
    for template, spelled in ((STANDARD, str), (ACL, lambda op: op.title().replace("_", ""))):
        kept += [template.format(p="kafkaops-admin", r="Allowed", o=spelled(op))
                 for op in ("CREATE", "DELETE", "ALTER", "ALTER_CONFIGS")]
        kept += [template.format(p="app", r="Denied", o=spelled(op)) for op in ("READ", "WRITE", "DESCRIBE")]
        dropped += [template.format(p="kafka-cluster", r="Allowed", o=spelled(op))
                    for op in ("READ", "WRITE", "DESCRIBE", "DESCRIBE_CONFIGS", "CLUSTER_ACTION")]
    out = subprocess.run(["java", "-cp", f"{KAFKA_LIBS}/*", str(REPO / "tests/unit/java/AuditFilter.java"),
                          str(tmp_path / "audit.properties"), *kept, *dropped],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    assert out.splitlines() == kept
