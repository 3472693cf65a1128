"""Prints the README's role variable tables from each role's defaults/main.yml (name, default, and the
line's comment; a comment line opening a group becomes the group's heading row).

README.md holds this output between the ROLE-VARIABLES markers; tests/unit/test_readme.py keeps them equal.
"""

import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parent.parent
ROLES = ("connection", "common", "kafka_distribution", "zookeeper", "kafka_controller", "kafka_broker", "kafka_access",
         "pki")
_TOP_LEVEL = re.compile(r"^([a-z][a-z0-9_]*):\s*(.*?)\s*(?:#\s*(.*))?$")


def _text(text):
    """Markdown-safe table cell text."""
    return text.replace("|", "\\|").replace("<", "&lt;")


def _default(value):
    if value in ("", ">-", "|"):
        return "(computed)" if value else "(see defaults)"
    return value.replace("|", "\\|")


def role_table(role):
    rows = [f"### {role}", "", "| variable | default | meaning |", "|---|---|---|"]
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


def tables():
    return "\n\n".join(role_table(role) for role in ROLES) + "\n"


if __name__ == "__main__":
    print(tables(), end="")
