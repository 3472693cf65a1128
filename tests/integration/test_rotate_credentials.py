"""rotate_credentials.yml on the lab, for the kit's tool logins: under an acks=all canary writing as the canary
principal whose login is rotated, nothing is lost and no send fails; the old password is refused afterwards and the
new one works; site.yml then changes nothing; check mode shows the plan and changes nothing; a run cut off after the
next login was added is finished by the rerun."""

import time
import uuid

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from canary import Canary, ensure_topic
from canary.ledger import read_acked
from lab import config
from lab.cluster_settings import kafka_config, load

CANARY = "kafkaops-canary"  # the connection role's kafka_canary_principal


def _logs_in(conf):
    try:
        AdminClient(conf | {"log_level": 0}).list_topics(timeout=10)
        return True
    except KafkaException:
        return False


def _canary_login():
    load.cache_clear()  # the settings file is written again: the kit's files may hold another login now
    return kafka_config(principal="canary")


def test_a_tool_login_rotates_under_its_own_canary_losing_nothing(run_playbook, tmp_path):
    old = _canary_login()
    topic, ledger = f"canary-rotate-{uuid.uuid4().hex[:6]}", tmp_path / "ledger"
    ensure_topic(kafka_config(), topic)
    checked = run_playbook("rotate_credentials.yml", "-e", "credentials=canary", "--check")
    assert checked.returncode == 0 and f"{CANARY}: {old['sasl.mechanism']} ->" in checked.output
    assert not (config.SECRETS / f"{CANARY}.next").exists()  # check mode made nothing

    canary = Canary(old, topic, ledger, rate=200).start()
    try:
        time.sleep(5)
        rotated = run_playbook("rotate_credentials.yml", "-e", "credentials=canary")
        time.sleep(5)
    finally:
        unreported = canary.stop()
    assert rotated.returncode == 0, rotated.output[-3000:]
    assert unreported == 0 and canary.failed == 0 and len(read_acked(ledger)) == canary.sent
    new = _canary_login()
    assert new["sasl.mechanism"] != old["sasl.mechanism"] and new["sasl.password"] != old["sasl.password"]
    assert _logs_in(new) and not _logs_in(old)  # the old password logs in nowhere now

    site = run_playbook("site.yml")
    assert site.returncode == 0 and all(" changed=0 " in line for line in site.stdout.splitlines() if " : ok=" in line)


def test_a_rotation_cut_off_after_the_next_login_was_added_is_finished_by_the_rerun(run_playbook, run_module):
    """The state a killed run leaves: the next password made and added under the other mechanism, the kit's files
    not switched yet. The rerun's plan takes it from there."""
    before = _canary_login()
    other = "SCRAM-SHA-256" if before["sasl.mechanism"] == "SCRAM-SHA-512" else "SCRAM-SHA-512"
    (config.SECRETS / f"{CANARY}.next").write_text(uuid.uuid4().hex)
    made = run_module("kafka_scram_user", users=[{"name": CANARY, "mechanism": other,
                                                  "password": (config.SECRETS / f"{CANARY}.next").read_text()}])
    assert made["changed"], made
    rerun = run_playbook("rotate_credentials.yml", "-e", "credentials=canary")
    assert rerun.returncode == 0, rerun.output[-3000:]
    assert "done: next-password, next-added; left: switched, old-removed" in rerun.output
    after = _canary_login()
    assert after["sasl.mechanism"] == other and _logs_in(after) and not _logs_in(before)
