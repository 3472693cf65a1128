"""Writes docs/variables.md, the role variable tables, from each role's defaults/main.yml (name, default, and the
line's comment; a comment line opening a group becomes the group's heading row).

Run it after changing a role's defaults: `.venv/bin/python scripts/role_variables_table.py`.
tests/unit/test_variables_doc.py fails while docs/variables.md differs from what this writes.
"""

import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parent.parent
DOCUMENT = REPO / "docs" / "variables.md"
# Every role with defaults, in the order a reader meets them (the unit test checks none is missing).
ROLES = ("connection", "common", "kafka_distribution", "jmx_exporter", "zookeeper", "kafka_controller", "kafka_broker",
         "kafka_access", "pki", "roll", "node_exporter", "monitoring")
HEADER = """# Role variables

Generated from each role's `defaults/main.yml` by `scripts/role_variables_table.py`; do not edit by hand (a unit
test keeps this file equal to the defaults). Each role's `meta/argument_specs.yml` gives the types, choices and the
variables of each entry point (`ansible-doc -t role kafkaops.toolkit.<role>`).

Required host vars: `zookeeper_id` (ZooKeeper members), `kafka_broker_id` (brokers) and `kafka_controller_node_id`
(KRaft controllers).

"""
_TOP_LEVEL = re.compile(r"^([a-z][a-z0-9_]*):\s*(.*?)\s*(?:#\s*(.*))?$")


def _text(text):
    """Markdown-safe table cell text."""
    return text.replace("|", "\\|").replace("<", "&lt;")


def _default(value):
    if value in ("", ">-", "|"):
        return "(computed)" if value else "(see defaults)"
    return value.replace("|", "\\|")


def role_table(role):
    rows = [f"## {role}", "", "| variable | default | meaning |", "|---|---|---|"]
    lines = (REPO / "roles" / role / "defaults" / "main.yml").read_text().splitlines()
    for line in lines:
        if line.startswith("# "):
            rows.append(f"| **{_text(line[2:].strip())}** | | |")
            continue
        match = _TOP_LEVEL.match(line)
        if match:
            name, value, comment = match.groups()
            rows.append(f"| `{name}` | `{_default(value)}` | {_text(comment or '')} |")
    return "\n".join(rows)


def document():
    """docs/variables.md as it should be."""
    return HEADER + "\n\n".join(role_table(role) for role in ROLES) + "\n"


if __name__ == "__main__":
    DOCUMENT.write_text(document())
    print(f"wrote {DOCUMENT.relative_to(REPO)}")
