"""No task registers a result under the name of a role variable: a registered result outranks role vars and defaults
for the rest of the play, so it would silently replace the variable (the controllers' JMX stayed on after a migration
when a ZkMigrationState read registered _kafka_controller_jmx, the role var that turns JMX on)."""

import pathlib
import re

import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_no_registered_result_shadows_a_role_variable():
    role_vars = set()
    for path in [*REPO.glob("roles/*/vars/main.yml"), *REPO.glob("roles/*/defaults/main.yml")]:
        role_vars |= set(yaml.safe_load(path.read_text()) or {})
    registered = {(name, str(path.relative_to(REPO)))
                  for path in [*REPO.glob("roles/*/tasks/*.yml"), *REPO.glob("playbooks/**/*.yml")]
                  for name in re.findall(r"^\s*register:\s*(\w+)", path.read_text(), re.MULTILINE)}
    assert sorted((name, path) for name, path in registered if name in role_vars) == []
