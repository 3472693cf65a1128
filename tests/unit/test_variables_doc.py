"""docs/variables.md is what scripts/role_variables_table.py writes from the roles' defaults, for every role that
has defaults."""

from scripts.role_variables_table import DOCUMENT, REPO, ROLES, document


def test_every_role_with_defaults_has_a_table():
    with_defaults = {path.parent.parent.name for path in (REPO / "roles").glob("*/defaults/main.yml")}
    assert sorted(ROLES) == sorted(with_defaults)


def test_the_variable_tables_are_the_role_defaults():
    assert DOCUMENT.read_text() == document(), "stale docs/variables.md: run scripts/role_variables_table.py"
