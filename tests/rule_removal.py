"""Does each safety rule's lab test fail when the rule is removed? (`make rule-removal`)

For every rule below: take the rule out of the code (one exact text replacement in the checkout), run the lab
tests that are meant to prove it against the deployed lab, and put the code back. The test must fail; the
report shows each test's outcome and pytest's first errors, so a failure for another cause (a lab fault) can
be told apart from the rule's absence. A test that still passes cannot catch the rule's removal: the report
says A TEST STILL PASSES and the run exits non-zero.

Needs a lab that site.yml deployed (make deploy); the rules of a KRaft cluster (lab="kraft") need one deployed
with KAFKAOPS_LAB_METADATA_MODE=kraft, and run only when that is set. Each rule's log and result go to
.cache/rule-removal/; the table of every rule's last result goes to report.md there and into docs/safety-rules.md.
    python tests/rule_removal.py [RULE-KEY ...]     (make rule-removal [RULES="KEY ..."])
The preflight asserts of the roles are not here: without them a run reconfigures the lab with the bad
setting (a broker with broker.id=one never starts again), see the table in docs/safety-rules.md.
"""

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# as pytest's pythonpath (pyproject.toml): the checkout is also the collection kafkaops.toolkit under .cache/collections
sys.path[:0] = [str(REPO), str(REPO / ".cache" / "collections"), str(REPO / "tests" / "integration")]

from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource  # noqa: E402
from throttles import throttles_anywhere  # noqa: E402

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_versions  # noqa: E402
from lab import ansible, cluster_settings, config  # noqa: E402
from lab.cli import up  # noqa: E402
from lab.cluster_settings import kafka_config  # noqa: E402
from lab.machines import run_on  # noqa: E402
from plugins.module_utils.refusal import RULES as REGISTRY  # noqa: E402

OUT = REPO / ".cache" / "rule-removal"
DOC = REPO / "docs" / "safety-rules.md"
BEGIN, END = "<!-- RULE-REMOVAL:BEGIN -->", "<!-- RULE-REMOVAL:END -->"
T = "tests/integration/"
REFUSALS = T + "long_recovery_refusals.py::"
REPLACE_DOWN = REFUSALS + "TestReplaceWhileBroker2IsDown::"


@dataclass
class Rule:
    key: str                 # its id in module_utils/refusal.RULES, which gives its text
    path: str                # the file the rule lives in
    old: str                 # its text, found exactly once
    new: str                 # the text without the rule
    tests: list              # pytest node ids that must fail without it
    heal: str = ""           # what a run without the rule leaves behind and is undone after it (HEALS)
    lab: str = "zookeeper"   # the lab's kafka_metadata_mode its tests need
    quorum: str = ""         # KRaft: the quorum kind its tests need (the lab release's: static on 3.9, dynamic on 4.x)

    @property
    def rule(self):
        """The rule as the report shows it: its id and its text, from the registry."""
        return f"`{self.key}` {REGISTRY[self.key]}"


RULES = [
    Rule("upgrade-node-down",
         "plugins/module_utils/kafka_upgrade.py",
         "    down = [h for h, n in nodes.items() if not n[\"running\"] and n[\"settled\"]]\n",
         "    down = []\n",
         [T + "long_upgrade_refusals.py::test_a_node_that_does_not_run_is_refused"], heal="upgrade_record"),
    Rule("upgrade-under-replicated",
         "plugins/module_utils/kafka_upgrade.py",
         "    if cluster.get(\"under_replicated\"):\n",
         "    if False:\n",
         [T + "long_upgrade_refusals.py::test_under_replicated_partitions_are_refused"]),
    Rule("rollback-upgrade-nothing-recorded",
         "plugins/module_utils/kafka_upgrade.py",
         "    if not record:\n        return dict(result, refusals=[refusal(\"rollback-upgrade-nothing-recorded\"",
         "    if False:\n        return dict(result, refusals=[refusal(\"rollback-upgrade-nothing-recorded\"",
         [T + "long_upgrade_refusals.py::test_a_rollback_with_no_upgrade_recorded_is_refused"]),
    Rule("unclean-election",
         "plugins/module_utils/kafka_recovery.py",
         '    if not state.get("unclean_election"):\n        return []\n', "    return []\n",
         [REFUSALS + "test_rebuild_refuses_while_unclean_election_is_on",
          REPLACE_DOWN + "test_refuses_while_unclean_election_is_on"]),
    Rule("rebuild-only-in-sync",
         "plugins/module_utils/kafka_recovery.py",
         '    if stop["only_in_sync_replica"]:\n', "    if False:\n",
         [REFUSALS + "test_rebuild_refuses_to_empty_the_only_in_sync_replica"], heal="throttles"),
    Rule("rebuild-below-min-isr",
         "plugins/module_utils/kafka_recovery.py",
         '    if not stop["safe"]:\n', "    if False:\n",
         [REFUSALS + "test_rebuild_refuses_a_stop_that_leaves_partitions_below_min_isr"], heal="throttles"),
    Rule("rebuild-gate-before-stop",
         "playbooks/tasks/wipe_and_start_broker.yml",
         '- name: "Gate: wait until it may stop without a partition below min ISR: {{ inventory_hostname }}"\n'
         "  kafkaops.toolkit.kafka_broker_safe_to_stop:\n",
         '- name: "The gate, removed"\n  ansible.builtin.debug:\n  when: false\n  vars:\n    _removed:\n',
         [REFUSALS + "test_rebuild_stops_the_broker_only_through_the_gate_right_before_the_stop"],
         heal="throttles"),
    Rule("unreadable-disk",
         "plugins/module_utils/kafka_identity.py",
         '        if d["status"] == UNREADABLE:\n', "        if False:\n",
         [REFUSALS + "test_rebuild_refuses_a_disk_that_cannot_be_read"], heal="throttles"),
    Rule("fence-unreachable",
         "plugins/module_utils/kafka_recovery.py",
         '    elif live_elsewhere and request["failed_host_reachable"] is False:\n',
         '    elif False:\n',
         [REFUSALS + "test_replace_refuses_to_fence_a_host_that_does_not_answer"]),
    Rule("replacement-runs-broker",
         "plugins/module_utils/kafka_recovery.py",
         '    if request["replacement_active"] and not rerun:\n', "    if False:\n",
         [REPLACE_DOWN + "test_refuses_a_replacement_that_runs_a_broker"]),
    Rule("version-newer-format",
         "plugins/module_utils/kafka_versions.py",
         "        for path, level in sorted(levels.items()) if level > highest]\n",
         "        for path, level in sorted(levels.items()) if False]\n",
         [REPLACE_DOWN + "test_refuses_a_replacement_formatted_by_a_newer_kafka_storage"]),
    Rule("tools-before-change",
         "plugins/module_utils/kafka_recovery.py",
         '    if request["tools_problem"]:\n', "    if False:\n",
         [REPLACE_DOWN + "test_refuses_without_kafka_tools_before_anything_changes"]),
    Rule("roll-safe-to-stop-gate",
         "roles/roll/tasks/broker.yml",
         '    wait_timeout: "{{ roll_broker_stop_timeout }}"\n  register: _gate\n',
         "    wait_timeout: 0  # the gate, removed: it picks the next broker only\n  register: _gate\n",
         # (not the config-change roll's test: each broker there is back in every ISR before the next stop, so no
         # stop it makes is unsafe and the gate has nothing to hold back; make rule-removal showed it passes without)
         [T + "test_rolling_restart.py::test_roll_refuses_a_stop_that_would_leave_partitions_below_min_isr"]),
    Rule("roll-healthy-gate",
         "roles/roll/tasks/broker.yml",
         '- name: "Gate: wait until it is registered and back in the ISR of every partition it hosts: '
         '{{ _broker_host }}"\n  tags: timeline\n  kafkaops.toolkit.kafka_broker_wait_healthy:\n',
         '- name: "The gate, removed"\n  ansible.builtin.debug:\n  when: false\n  vars:\n    _removed:\n',
         [T + "test_rolling_restart.py::test_roll_ends_at_a_broker_that_does_not_come_back"]),
    Rule("controller-last",
         "plugins/module_utils/kafka_state.py",
         '    others = [b for b in ordered if b != state["controller_id"]]\n', "    others = ordered\n",
         [T + "test_rolling_restart.py::test_roll_under_load_restarts_each_broker_once_loses_nothing_controller_last"]),
    Rule("zookeeper-quorum-gate",
         "roles/roll/tasks/zookeepers.yml",
         '      kafkaops.toolkit.zookeeper_ensemble_info:\n        members: "{{ zookeeper_members }}"\n'
         '        wait_timeout: "{{ roll_zookeeper_quorum_timeout }}"\n      register: _ensemble\n',
         "      ansible.builtin.debug:  # the gate, removed\n        msg: removed\n      register: _ensemble\n",
         [T + "long_rolling_restart_zookeeper.py::test_roll_refuses_to_restart_a_member_while_another_is_down"]),
    Rule("zookeeper-leader-last",
         "plugins/module_utils/zookeeper_state.py",
         '    return followers + ([state["leader"]] if state["leader"] else [])\n',
         '    return sorted(state["nodes"])\n',
         [T + "long_rolling_restart_zookeeper.py::test_roll_restarts_every_member_once_the_leader_last",
          T + "long_site_config_change.py::"
              "test_a_config_change_rolls_members_leader_last_then_brokers_through_the_gates"]),
    Rule("rerun-finishes-roll",
         "plugins/module_utils/service_restart.py",
         "    return marked_at is not None and float(marked_at) > started\n", "    return False\n",
         [T + "long_site_config_change.py::test_rolls_killed_or_failed_midway_are_finished_by_the_rerun"]),
    Rule("wait-fails-fast",
         "plugins/action/kafka_wait.py",
         '            if not result.get("retryable"):\n', "            if False:\n",
         [T + "long_throttle_records.py::test_a_wait_against_a_name_that_does_not_resolve_fails_at_once"]),
    Rule("throttle-removed-on-failure",
         "playbooks/tasks/catch_up_under_throttle.yml",
         "  always:\n    - name: Remove the replication throttle this run added",
         "  rescue:\n    - ansible.builtin.fail:\n        msg: removed\n"
         "    - name: Remove the replication throttle this run added",
         [T + "long_recovery_playbooks.py::test_a_rebuild_that_fails_still_removes_its_throttle"], heal="throttles"),
    Rule("throttle-recorded-first",
         "plugins/modules/kafka_replication_throttle.py",
         "            write_record(path, added)\n", "            pass\n",
         [T + "long_throttle_records.py::test_a_killed_rebuild_leaves_a_record_that_remove_throttles_removes_exactly"],
         heal="throttles"),
    # Runs without these rules do what the rule forbids to the lab's brokers; the heal puts them back.
    Rule("replace-registered",
         "plugins/module_utils/kafka_recovery.py",
         '    if live_elsewhere and not request["fence_failed_host"]:\n', "    if False:\n",
         [REFUSALS + "test_replace_refuses_a_broker_that_is_still_registered"], heal="kafka4"),
    Rule("replace-only-in-sync",
         "plugins/module_utils/kafka_recovery.py",
         '    if alone and not request["accept_offline_partitions"]:\n', "    if False:\n",
         [REPLACE_DOWN + "test_refuses_when_the_only_in_sync_copy_was_on_the_failed_broker"], heal="kafka4"),
    Rule("rebuild-other-broker",
         "plugins/module_utils/kafka_recovery.py",
         '    if request["identity"]:\n', "    if False:\n",
         [REFUSALS + "test_rebuild_refuses_log_dirs_of_another_broker"], heal="kafka3"),
    Rule("replacement-other-data",
         "plugins/module_utils/kafka_recovery.py",
         '    if request["replacement_identity"]:\n', "    if False:\n",
         [T + "test_recovery_playbooks.py::test_replace_a_powered_off_broker_under_load_loses_nothing"],
         heal="kafka4"),
    Rule("identity-by-advertised-name",
         "playbooks/replace_broker.yml",
         'replacement_endpoint: ["{{ kafka_advertised_host }}", "{{ kafka_admin_port }}"]',
         'replacement_endpoint: ["{{ ansible_host }}", "{{ kafka_admin_port }}"]',
         [T + "test_recovery_playbooks.py::test_replace_a_powered_off_broker_under_load_loses_nothing"],
         heal="kafka4"),
    Rule("secure-unknown-step",
         "plugins/module_utils/kafka_secure_conversion.py",
         "    if stop_after is not None and stop_after not in STEP_NAMES:\n",
         "    if False:\n",
         [T + "long_secure_cluster.py::test_a_step_that_does_not_exist_is_refused_and_nothing_changes"]),
    Rule("scram-user-is-super-user",
         "plugins/module_utils/kafka_principals.py", "        for name in sorted(set(scram_users) & supers)]",
         "        for name in []]",
         [T + "long_role_preflight.py::test_a_wrong_setting_is_refused_before_anything_changes"
          "[no SCRAM user bears a super user's name]"]),
    Rule("password-too-weak",
         "plugins/module_utils/kafka_principals.py",
         "        if password in PUBLISHED or password.startswith(PUBLISHED_PREFIX):\n",
         "        if False:\n",
         [T + "long_role_preflight.py::test_a_wrong_setting_is_refused_before_anything_changes"
          "[no published password]"]),
    Rule("kraft-lost-voter",
         "plugins/module_utils/kafka_kraft.py", "    if started and empty:\n", "    if False:\n",
         [T + "kraft_deploy.py::test_a_voter_that_lost_its_disk_is_not_formatted_and_nothing_changes"], lab="kraft"),
    Rule("kraft-controller-gate",
         "plugins/module_utils/kafka_kraft.py", "    if len(caught) < majority:\n", "    if False:\n",
         [T + "kraft_deploy.py::test_a_controller_is_not_stopped_while_the_others_are_no_caught_up_majority"],
         lab="kraft"),
    Rule("controller-host-gone",
         "roles/roll/tasks/controller.yml", "  when: _gone | length > 0\n", "  when: false\n",
         [T + "kraft_rolling_restart.py::test_a_controller_host_that_dies_mid_roll_stops_the_run_naming_it"],
         lab="kraft"),
    Rule("kraft-replace-static",
         "plugins/module_utils/kafka_kraft.py",
         '    if static_voters(voters):\n', "    if False:\n",
         [T + "kraft_replace_controller.py::test_replace_controller_refuses_a_static_quorum_and_changes_nothing"],
         lab="kraft", quorum="static"),
    Rule("migration-under-replicated",
         "plugins/module_utils/kafka_migration.py", "        if facts[name]:\n", "        if False:\n",
         [T + "migration_refusals.py::test_under_replicated_partitions_are_refused"], heal="migration"),
    Rule("rotate-unknown-phase",
         "plugins/module_utils/kafka_ca_rotation.py",
         "    if stop_after and stop_after not in PHASES:\n",
         "    if False:\n",
         [T + "long_rotate_ca_refusals.py::test_an_unknown_phase_is_refused_and_nothing_changes"]),
    # the release refusals (kafka_versions.version_refusals), by their --check runs: without the rule a run would
    # deploy the release on the lab
    Rule("version-known-bad",
         "plugins/module_utils/kafka_versions.py", "    if version in KNOWN_BAD:\n", "    if False:\n",
         [T + "long_role_preflight.py::test_a_release_refusal_stops_a_check_run_too[a known-bad release]"]),
    Rule("version-zookeeper-on-4",
         "plugins/module_utils/kafka_versions.py",
         '    if metadata_mode != "kraft" and not entry["zookeeper"]:\n', "    if False:\n",
         [T + "long_role_preflight.py::test_a_release_refusal_stops_a_check_run_too"
          "[a release without ZooKeeper mode, with a config it removed]"]),
    Rule("version-removed-config",
         "plugins/module_utils/kafka_versions.py", "    if removed:\n", "    if False:\n",
         [T + "long_role_preflight.py::test_a_release_refusal_stops_a_check_run_too"
          "[a release without ZooKeeper mode, with a config it removed]"]),
    Rule("version-java-too-old",
         "plugins/module_utils/kafka_versions.py",
         '        if output and (major is None or major < entry["java"]):\n', "        if False:\n",
         [T + "long_role_preflight.py::test_a_java_below_the_releases_on_one_host_is_refused_naming_it[check]"]),
    Rule("rotation-under-way",
         "roles/pki/tasks/preflight.yml",
         "      - kafka_pki_ca_rotation_phase | length > 0 or not _kafka_pki_rotating\n",
         "      - true\n",
         [T + "long_rotate_ca_refusals.py::test_site_yml_refuses_while_a_rotation_is_under_way_and_nothing_changes"]),
]


def _wait_healthy(broker_id):
    settings = cluster_settings.load()
    args = json.dumps(dict(settings["connection"], broker_id=broker_id, wait_timeout=900))
    waited = ansible.run(["ansible", "localhost", "-m", "kafkaops.toolkit.kafka_broker_wait_healthy", "-a", args])
    waited.check_returncode()


def kafka4_spare_again():
    """kafka4 a bare spare again; kafka2 booted, its broker enabled and restarted as broker 2."""
    run_on(config.host("kafka4"), "systemctl disable --now kafka 2>/dev/null; rm -rf /etc/kafka "
                            "/etc/systemd/system/kafka.service /var/lib/kafka/data; systemctl daemon-reload")
    up(config.load_hosts())
    run_on(config.host("kafka2"), "systemctl enable kafka && systemctl restart kafka")
    _wait_healthy(2)


def kafka3_own_data():
    """kafka3's log dir given back broker.id 3 (a run without the identity rule wrote another id)."""
    run_on(config.host("kafka3"), "sed -i 's/^broker.id=.*/broker.id=3/' /var/lib/kafka/data/meta.properties && "
                            "systemctl restart kafka")
    _wait_healthy(3)


def clear_throttles():
    """Delete every throttle config a run without its rule left on the cluster."""
    servers = cluster_settings.load()["bootstrap_servers"]
    admin = AdminClient(kafka_config(servers))
    left = throttles_anywhere(servers)
    for where, configs in left.items():
        kind, name = where.split(" ", 1)
        restype = ConfigResource.Type.TOPIC if kind == "topic" else ConfigResource.Type.BROKER
        resource = ConfigResource(restype, name, incremental_configs=[
            ConfigEntry(key, None, incremental_operation=AlterConfigOpType.DELETE) for key in configs])
        admin.incremental_alter_configs([resource])[resource].result(30)
    return left


def migration_rolled_back():
    """The steps a migration run without its precheck took (up to the controllers step), rolled back."""
    ansible.playbook("playbooks/rollback_kraft_migration.yml").check_returncode()


def upgrade_record():
    """The upgrade record a run without its rule wrote (upgrade_kafka.yml's upgrade_record_dir), removed."""
    for record in (Path.home() / ".kafkaops" / "upgrades").glob("*.json"):
        record.unlink()


HEALS = {"throttles": clear_throttles, "kafka4": kafka4_spare_again, "kafka3": kafka3_own_data,
         "migration": migration_rolled_back, "upgrade_record": upgrade_record}


def outcomes(log, tests):
    """{test node id: 'PASSED' / 'FAILED' / 'ERROR' / 'not run'} from pytest -v's lines."""
    found = {}
    for line in log.splitlines():
        # a parametrized test's id may hold spaces: "path::test[a case] PASSED [ 50%]"
        matched = re.match(r"(\S+::.+?) (PASSED|FAILED|ERROR)\b", line)
        if matched:
            found[matched.group(1)] = "FAILED" if matched.group(2) == "ERROR" else matched.group(2)
    return {test: found.get(test, "not run") for test in tests}


def reason(log):
    """pytest's first error line (the assertion that failed), shortened."""
    first = next((line[1:].strip() for line in log.splitlines() if line.startswith("E ")), "-")
    return first if len(first) <= 150 else first[:149] + "…"


def check(rule):
    """Run the rule's tests without it; its result, also saved as <key>.json beside the log."""
    path = REPO / rule.path
    original = path.read_text()
    assert original.count(rule.old) == 1, f"{rule.key}: the rule's text is not found exactly once in {rule.path}"
    started = time.monotonic()
    path.write_text(original.replace(rule.old, rule.new))
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfE", "-v", *rule.tests],
                              cwd=REPO, capture_output=True, text=True)
    finally:
        path.write_text(original)
    log = proc.stdout + proc.stderr
    (OUT / f"{rule.key}.log").write_text(log)
    left = HEALS[rule.heal]() if rule.heal else None
    result = {"key": rule.key, "at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": _commit(),
              "seconds": round(time.monotonic() - started),
              "throttles_left": len(left) if rule.heal == "throttles" else None}
    (OUT / f"{rule.key}.json").write_text(json.dumps(result))
    return result


def _commit():
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                          text=True).stdout.strip()


def row(rule, result, log):
    """The rule's line: every test must fail without it."""
    tests = outcomes(log, rule.tests)
    caught = all(outcome == "FAILED" for outcome in tests.values())
    verdict = "every test fails without it" if caught else "**A TEST STILL PASSES**"
    listed = "<br>".join(f"{test.split('::')[-1]}: {outcome}" for test, outcome in tests.items())
    why = reason(log).replace("|", "\\|")
    healed = f"; left {result['throttles_left']} throttle(s), removed" if result["throttles_left"] else \
        f"; lab put back ({rule.heal})" if rule.heal in ("kafka3", "kafka4") else ""
    return caught, (f"| {rule.rule} | `{rule.path}` | {listed} | {verdict}{healed} | {result['commit']}, "
                    f"{result['at']}, {result['seconds']} s | `{why}` |")


def report(lab, quorum):
    """The table of every rule's last saved result (rules never checked say so), in report.md and in
    docs/safety-rules.md between its markers; whether every rule of the lab's mode was caught."""
    lines = ["| rule | removed from | lab tests without it | result | run (commit, time, s) | pytest's first error |",
             "|---|---|---|---|---|---|"]
    all_caught = True
    doc = DOC.read_text()
    begin, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    published = {line.split(" | ")[0]: line for line in doc[begin:end].splitlines() if line.startswith("| ")}
    for rule in RULES:
        saved, log = OUT / f"{rule.key}.json", OUT / f"{rule.key}.log"
        if not saved.exists():  # not run from this checkout: the row the doc has (another run's), if any
            lines.append(published.get(f"| {rule.rule}", f"| {rule.rule} | `{rule.path}` | - | not checked "
                                                         f"({rule.lab} {rule.quorum} lab) | - | - |"))
            all_caught = all_caught and (not _runs_on(rule, lab, quorum) or f"| {rule.rule}" in published)
            continue
        caught, line = row(rule, json.loads(saved.read_text()), log.read_text())
        all_caught = all_caught and (caught or not _runs_on(rule, lab, quorum))
        lines.append(line)
    table = "\n".join(lines) + "\n"
    (OUT / "report.md").write_text(table)
    DOC.write_text(doc[:begin] + "\n" + table + doc[end:])
    return all_caught


def _runs_on(rule, lab, quorum):
    """Whether the rule's tests run on this lab: its metadata mode, and a KRaft rule's quorum kind if it names one."""
    return rule.lab == lab and rule.quorum in ("", quorum)


def main(keys):
    OUT.mkdir(parents=True, exist_ok=True)
    unknown = set(keys) - {r.key for r in RULES}
    assert not unknown, f"no such rule: {sorted(unknown)}; the keys: {[r.key for r in RULES]}"
    lab = os.environ.get("KAFKAOPS_LAB_METADATA_MODE") or "zookeeper"  # as inventories/lab reads it
    quorum = kafka_versions.facts(config.KAFKA_VERSION)["quorum"]  # a KRaft lab's, by its release
    other = [r.key for r in RULES if r.key in keys and not _runs_on(r, lab, quorum)]
    assert not other, (f"{other}: their tests need a lab in another mode than {lab} (KAFKAOPS_LAB_METADATA_MODE) or "
                       f"another quorum than {quorum} (KAFKAOPS_LAB_KAFKA_VERSION)")
    for rule in (r for r in RULES if (r.key in keys or not keys) and _runs_on(r, lab, quorum)):
        print(f"== {rule.key}: removing it from {rule.path}", flush=True)
        result = check(rule)
        print(row(rule, result, (OUT / f"{rule.key}.log").read_text())[1], flush=True)
    all_caught = report(lab, quorum)
    print(f"wrote {OUT / 'report.md'}: " + ("every rule's tests fail without it" if all_caught
                                            else "a rule was not checked, or a test passes without its rule"))
    return 0 if all_caught else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
