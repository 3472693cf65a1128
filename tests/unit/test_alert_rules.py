"""The Prometheus alert rules (roles/monitoring/files/rules/) without the lab: promtool accepts them and passes their
unit tests (tests/alerts/), every alert carries what the on-call engineer needs (severity, summary, description, a
runbook section that exists, a playbook that exists), every alert is tested firing and not firing, and every metric
a rule reads is one the nodes really serve (the recordings in tests/fixtures/metrics/, scripts/record_metrics.py)."""

import functools
import pathlib
import re
import shutil
import subprocess

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
RULE_FILES = sorted((REPO / "roles" / "monitoring" / "files" / "rules").glob("*.yml"))
ALERT_TESTS = sorted((REPO / "tests" / "alerts").glob("*.test.yml"))
RECORDINGS = sorted((REPO / "tests" / "fixtures" / "metrics").glob("**/*.prom"))
SEVERITIES = {"critical", "warning"}
ANNOTATIONS = ("summary", "description", "runbook_url", "playbook")
# Metrics no recording holds, per rule file, and why (none now: the lag exporter's output is recorded too).
UNRECORDED = {}
# Every scrape yields `up`: it is in no endpoint's output.
SCRAPE_METRICS = {"up"}

# PromQL words that look like metric names: operators and modifiers (functions and aggregations are the names
# followed by a parenthesis).
KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool",
            "inf", "nan"}
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_MATCHERS = re.compile(r"\{[^}]*\}")
_LABEL_LISTS = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
_RANGES = re.compile(r"\[[^\]]*\]")
_NAME = re.compile(r"(?<![\w.:])[a-zA-Z_:][\w:]*")


def _alerts():
    """(rule file name, rule) of every alerting rule."""
    return [(path.name, rule) for path in RULE_FILES for group in yaml.safe_load(path.read_text())["groups"]
            for rule in group["rules"] if "alert" in rule]


ALERTS = _alerts()
ALERT_IDS = [rule["alert"] for _, rule in ALERTS]
CRITICAL = [(path, rule) for path, rule in ALERTS if rule.get("labels", {}).get("severity") == "critical"]


def metric_names(expr):
    """The metric names an expression reads: what is left once strings, label matchers, label lists, ranges and
    durations, numbers, keywords and the names of functions and aggregations are taken out."""
    text = _STRINGS.sub(" ", expr)
    text = _MATCHERS.sub(" ", text)
    text = _LABEL_LISTS.sub(" ", text)
    text = _RANGES.sub(" ", text)
    names = set()
    for match in _NAME.finditer(text):
        followed_by = text[match.end():].lstrip()[:1]
        if match.group() not in KEYWORDS and followed_by != "(":
            names.add(match.group())
    return names


@functools.cache
def recorded_metrics():
    """The metric names of every sample line of the recordings."""
    names = set()
    for path in RECORDINGS:
        for line in path.read_text().splitlines():
            if line and not line.startswith("#"):
                names.add(re.match(r"[a-zA-Z_:][\w:]*", line).group())
    return names


def heading_anchors(markdown):
    """GitHub's anchors of a document's headings: lower case, punctuation dropped, spaces to hyphens. A `#` line in a
    fenced block is a shell comment, not a heading."""
    anchors, fenced = set(), False
    for line in markdown.splitlines():
        fenced ^= line.lstrip().startswith("```")
        heading = re.match(r"#{1,6}\s+(.*)", line)
        if heading and not fenced:
            anchors.add(re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-"))
    return anchors


@functools.cache
def _cases(firing):
    """Alert names with an alert_rule_test case in the alerts' tests that expects them to fire (or not)."""
    names = set()
    for path in ALERT_TESTS:
        for test in yaml.safe_load(path.read_text())["tests"]:
            for case in test.get("alert_rule_test", []):
                if bool(case.get("exp_alerts")) == firing:
                    names.add(case["alertname"])
    return names


@pytest.fixture(scope="module")
def promtool():
    """promtool from the host's packages (`make setup` installs Debian's prometheus): missing is a failure, not a
    skip, since the rules would go untested."""
    path = shutil.which("promtool")
    assert path, "promtool not on PATH: run `make setup` (scripts/install_host_packages.sh installs it)"
    return path


def test_the_rules_and_their_tests_are_found():
    assert RULE_FILES and ALERT_TESTS and RECORDINGS
    assert len(ALERTS) >= 20


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_promtool_accepts_the_rule_file(promtool, path):
    proc = subprocess.run([promtool, "check", "rules", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, f"promtool check rules {path.name}:\n{proc.stdout}{proc.stderr}"


def test_the_alerts_unit_tests_pass(promtool):
    proc = subprocess.run([promtool, "test", "rules", *map(str, ALERT_TESTS)], capture_output=True, text=True)
    assert proc.returncode == 0, f"promtool test rules:\n{proc.stdout}{proc.stderr}"


@pytest.mark.parametrize("rule_file, rule", ALERTS, ids=ALERT_IDS)
def test_the_alert_has_a_severity_and_annotations(rule_file, rule):
    severity = rule.get("labels", {}).get("severity")
    assert severity in SEVERITIES, f"{rule['alert']} ({rule_file}): severity {severity!r}, not one of {SEVERITIES}"
    missing = [name for name in ANNOTATIONS if not str(rule.get("annotations", {}).get(name, "")).strip()]
    assert not missing, f"{rule['alert']} ({rule_file}) lacks the annotation(s) {missing}"


@pytest.mark.parametrize("rule_file, rule", CRITICAL, ids=[rule["alert"] for _, rule in CRITICAL])
def test_a_critical_alert_can_notify_within_a_minute(rule_file, rule):
    """Scrape 10 s + evaluation 10 s + `for` + Alertmanager's group_wait 10 s: `for` 30 s at most."""
    units = {"s": 1, "m": 60, "h": 3600}
    waits = sum(int(n) * units[unit] for n, unit in re.findall(r"(\d+)([smh])", rule.get("for", "0s")))
    assert waits <= 30, f"{rule['alert']} is critical but waits {rule['for']}: it would notify later than 60 s"


@pytest.mark.parametrize("rule_file, rule", ALERTS, ids=ALERT_IDS)
def test_the_runbook_url_names_a_heading_of_an_existing_runbook(rule_file, rule):
    url = rule.get("annotations", {}).get("runbook_url", "")
    path, _, anchor = url.partition("#")
    document = REPO / path
    assert path and document.is_file(), f"{rule['alert']}: runbook_url {url!r} names no file of the repository"
    assert anchor in heading_anchors(document.read_text()), f"{rule['alert']}: {path} has no heading #{anchor}"


@pytest.mark.parametrize("rule_file, rule", ALERTS, ids=ALERT_IDS)
def test_the_playbook_annotation_names_an_existing_playbook(rule_file, rule):
    command = rule.get("annotations", {}).get("playbook", "")
    playbooks = re.findall(r"playbooks/([\w-]+\.yml)", command)
    assert playbooks, f"{rule['alert']}: its playbook annotation {command!r} names no playbooks/<name>.yml"
    missing = [name for name in playbooks if not (REPO / "playbooks" / name).is_file()]
    assert not missing, f"{rule['alert']}: its playbook annotation names playbooks that do not exist: {missing}"


@pytest.mark.parametrize("rule_file, rule", ALERTS, ids=ALERT_IDS)
def test_the_alert_has_a_firing_case(rule_file, rule):
    assert rule["alert"] in _cases(firing=True), f"{rule['alert']}: no case in tests/alerts/ where it fires"


@pytest.mark.parametrize("rule_file, rule", ALERTS, ids=ALERT_IDS)
def test_the_alert_has_a_case_where_it_does_not_fire(rule_file, rule):
    assert rule["alert"] in _cases(firing=False), f"{rule['alert']}: no case in tests/alerts/ where it stays quiet"


@pytest.mark.parametrize("rule_file, rule", ALERTS, ids=ALERT_IDS)
def test_every_metric_the_alert_reads_is_recorded(rule_file, rule):
    names = metric_names(rule["expr"])
    assert names, f"{rule['alert']}: no metric found in its expression"
    unknown = names - recorded_metrics() - SCRAPE_METRICS - UNRECORDED.get(rule_file, set())
    assert not unknown, (f"{rule['alert']} ({rule_file}) reads metrics no recording in tests/fixtures/metrics/ "
                         f"holds: {sorted(unknown)}")


@pytest.mark.parametrize("expr, names", [
    ('sum by (job) (rate(a_total{job="x", l=~"a|b"}[5m])) > 0.2', {"a_total"}),
    ("max(b) - on () group_right c > 1e3", {"b", "c"}),
    ('x - time() < 30 * 86400 and on (host) up{job="node"} unless ignoring (i) y offset 5m', {"x", "up", "y"}),
    ("count(z) > 0 unless on () w == 1 or v:recorded", {"z", "w", "v:recorded"}),
])
def test_metric_names_are_read_from_an_expression(expr, names):
    assert metric_names(expr) == names


def test_heading_anchors_are_githubs_and_skip_code():
    markdown = "# Runbook: the alerts\n## KafkaBrokerDown\n```sh\n# a comment\n```\n### Under min ISR (acks=all)\n"
    assert heading_anchors(markdown) == {"runbook-the-alerts", "kafkabrokerdown", "under-min-isr-acksall"}
