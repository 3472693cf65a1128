"""README.md's role variable tables are the ones the roles' defaults give."""

import re

from scripts.role_variables_table import REPO, tables


def test_readme_variable_tables_match_role_defaults():
    readme = (REPO / "README.md").read_text()
    section = re.search(r"<!-- ROLE-VARIABLES:BEGIN -->\n(.*)<!-- ROLE-VARIABLES:END -->", readme, re.S)
    assert section, "README.md lost its ROLE-VARIABLES markers"
    assert section.group(1) == tables(), "stale README variables: rerun scripts/role_variables_table.py"
