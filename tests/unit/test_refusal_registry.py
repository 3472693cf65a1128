"""One registry of safety rules (module_utils/refusal.RULES): every refusal the plans make and every rule that
tests/rule_removal.py takes out names one of its ids, and refusal() refuses an id it does not have."""

import pathlib
import re

import pytest

from plugins.module_utils.refusal import RULES, refusal

REPO = pathlib.Path(__file__).resolve().parent.parent.parent


def test_every_refusal_in_the_decision_layer_names_a_registered_rule():
    used = set()
    for source in (REPO / "plugins").rglob("*.py"):
        used |= set(re.findall(r'\brefusal\(\s*"([^"]+)"', source.read_text()))
    assert used, "no refusal() call found: the pattern no longer matches the code"
    assert used - RULES.keys() == set()


def test_every_rule_that_rule_removal_takes_out_is_registered():
    removed = re.findall(r'^    Rule\(\s*"([^"]+)"', (REPO / "tests" / "rule_removal.py").read_text(), re.M)
    assert len(removed) >= 20, "the pattern no longer matches tests/rule_removal.py's rules"
    assert set(removed) - RULES.keys() == set()


def test_registered_ids_are_kebab_case():
    assert [rule for rule in RULES if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule)] == []


def test_a_refusal_of_an_unregistered_rule_is_an_error():
    assert refusal("unclean-election", "m") == {"rule": "unclean-election", "message": "m"}
    with pytest.raises(KeyError):
        refusal("unclean_leader_election", "m")


def test_every_rule_removal_finds_its_rule_exactly_once_in_its_file():
    # Without it a moved or reworded rule is found missing only by a lab run of make rule-removal.
    import importlib.util
    spec = importlib.util.spec_from_file_location("rule_removal", REPO / "tests" / "rule_removal.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    misplaced = [r.key for r in module.RULES if (REPO / r.path).read_text().count(r.old) != 1]
    assert misplaced == []


def test_every_rule_is_in_the_removal_run_or_in_the_safety_rules_table_of_those_outside_it():
    removed = set(re.findall(r'^    Rule\(\s*"([^"]+)"', (REPO / "tests" / "rule_removal.py").read_text(), re.M))
    doc = (REPO / "docs" / "safety-rules.md").read_text()
    outside = doc[doc.index("## Rules outside the removal run"):doc.index("## Role preflight")]
    first_cells = [line.split("|")[1] for line in outside.splitlines() if line.startswith("| `")]
    listed = {rule for cell in first_cells for rule in re.findall(r"`([a-z0-9-]+)`", cell)}
    assert RULES.keys() - removed - listed == set()
    assert listed & removed == set()
