"""rotate_credentials.yml on the lab, for every kind of credential the kit made (about fifteen minutes, so not in make
test: `make test-long` runs it; pytest collects long_*.py files only when named; make bench-rotation times every kind
under one canary on a fresh lab).

- The lag exporter's login: the exporter on the monitoring host switches to it before the old one is deleted.
- The kit's tool logins: under an acks=all canary writing as the canary principal whose login is rotated, nothing is
  lost and no send fails; the old password is refused afterwards and the new one works; no host's file changes and
  nothing restarts; check mode shows the plan and changes nothing; a run cut off after the next login was added is
  finished by the rerun.
- An application's user (kafka_scram_users with a next_password), under a canary of that user: the first run adds the
  next login beside the old, the application switches, the second run deletes the old one; nothing lost, no send
  failed.
- The kit's admin certificate: under a canary, its next generation is accepted, used, and the old one is deleted and
  no longer a super user.
- The ZooKeeper login (ZooKeeper lab): under a canary, through three gated rolls, the old login is refused afterwards,
  the new one works and the znodes' ACLs still name the one user.
No password on any command line meanwhile."""

import json
import os
import shutil
import time
import uuid

import pytest
from kazoo.exceptions import AuthFailedError, ConnectionLoss, SessionClosedRequireSaslError
from kazoo.handlers.threading import KazooTimeoutError
from unchanged import services_and_files

from canary import Canary, ensure_topic
from canary.ledger import read_acked
from lab import config, monitoring
from lab.cluster_settings import kafka_config, kazoo_client, load, user_config
from lab.command_lines import CommandLineWatch
from lab.traffic import creates_a_topic, logs_in

CANARY = "kafkaops-canary"  # the connection role's kafka_canary_principal
LAG_EXPORTER_PORT = 9308  # the monitoring role's monitoring_lag_exporter_port


def _principal_login(tool):
    load.cache_clear()  # the settings file is written again: the kit's files may hold another login now
    return kafka_config(principal=tool)


def _canary_login():
    return _principal_login("canary")


def test_a_tool_login_rotates_under_its_own_canary_losing_nothing(run_playbook, settings, tmp_path):
    old = _canary_login()
    hosts_before = services_and_files(settings)
    topic, ledger = f"canary-rotate-{uuid.uuid4().hex[:6]}", tmp_path / "ledger"
    ensure_topic(kafka_config(), topic)
    checked = run_playbook("rotate_credentials.yml", "-e", "credentials=canary", "--check")
    assert checked.returncode == 0 and f"{CANARY}: {old['sasl.mechanism']} ->" in checked.output
    assert not list(config.SECRETS.glob(f"{CANARY}.next*"))  # check mode made nothing

    canary = Canary(old, topic, ledger, rate=200).start()
    try:
        time.sleep(5)
        with CommandLineWatch(config.load_hosts()) as watch:
            rotated = run_playbook("rotate_credentials.yml", "-e", "credentials=canary")
        time.sleep(5)
    finally:
        unreported = canary.stop()
    assert rotated.returncode == 0, rotated.output[-3000:]
    assert watch.samples > 0 and watch.leaks == []
    assert unreported == 0 and canary.failed == 0 and len(read_acked(ledger)) == canary.sent
    new = _canary_login()
    assert new["sasl.mechanism"] != old["sasl.mechanism"] and new["sasl.password"] != old["sasl.password"]
    assert logs_in(new) and not logs_in(old)  # the old password logs in nowhere now
    assert services_and_files(settings) == hosts_before  # no config file on a host changed, nothing restarted


def test_the_lag_exporters_login_rotates_and_the_monitoring_host_switches_before_the_old_goes(run_playbook):
    """The lag exporter runs on the monitoring host: its login there switches before the old credential is deleted,
    and it reads the cluster with the new one."""
    old = _principal_login("lag_exporter")
    rotated = run_playbook("rotate_credentials.yml", "-e", "credentials=lag_exporter")
    assert rotated.returncode == 0, rotated.output[-3000:]
    new = _principal_login("lag_exporter")
    assert new["sasl.mechanism"] != old["sasl.mechanism"] and logs_in(new) and not logs_in(old)
    served = monitoring.get(LAG_EXPORTER_PORT, "/metrics")  # a scrape makes it read the cluster, with its login
    assert "kafka_consumergroup_lag_read_failed 0.0" in served, served[-2000:]


def test_a_rotation_cut_off_after_the_next_login_was_added_is_finished_by_the_rerun(run_playbook, run_module):
    """The state a killed run leaves: the next password made and added under the other mechanism, the kit's files
    not switched yet. The rerun's plan takes it from there."""
    before = _canary_login()
    other = "SCRAM-SHA-256" if before["sasl.mechanism"] == "SCRAM-SHA-512" else "SCRAM-SHA-512"
    next_file = config.SECRETS / f"{CANARY}.next-{other}"
    next_file.write_text(uuid.uuid4().hex)
    made = run_module("kafka_scram_user", users=[{"name": CANARY, "mechanism": other,
                                                  "password": next_file.read_text()}])
    assert made["changed"], made
    rerun = run_playbook("rotate_credentials.yml", "-e", "credentials=canary")
    assert rerun.returncode == 0, rerun.output[-3000:]
    assert "done: next-password, next-added; left: switched, old-removed" in rerun.output
    after = _canary_login()
    assert after["sasl.mechanism"] == other and logs_in(after) and not logs_in(before)


def _rotate(run_playbook, users, *args):
    return run_playbook("rotate_credentials.yml", "-e", json.dumps({"kafka_scram_users": users}), *args)


def test_an_application_user_rotates_under_its_own_canary_its_owner_switching(run_playbook, run_module, tmp_path):
    name, topic = f"app-rotate-{uuid.uuid4().hex[:6]}", f"app-rotate-{uuid.uuid4().hex[:6]}"
    old_password, next_password = uuid.uuid4().hex, uuid.uuid4().hex
    made = run_module("kafka_scram_user", users=[{"name": name, "password": old_password}])
    assert made["changed"], made
    acls = [{"principal": f"User:{name}", "resource_type": "topic", "resource_name": topic, "operation": op,
             "pattern_type": "literal"} for op in ("write", "describe")]
    assert not run_module("kafka_acl", acls=acls).get("failed")
    ensure_topic(kafka_config(), topic)
    old = user_config(name, old_password, "SCRAM-SHA-512")
    new = user_config(name, next_password, "SCRAM-SHA-256")
    try:
        refused = _rotate(run_playbook, [{"name": name, "password": old_password}], "-e", f"credentials={name}")
        assert refused.returncode != 0 and "no next_password" in refused.output

        canary = Canary(old, topic, tmp_path / "before", rate=200).start()
        try:
            time.sleep(5)
            added = _rotate(run_playbook, [{"name": name, "password": old_password, "next_password": next_password}],
                            "-e", f"credentials={name}")
            time.sleep(5)
        finally:
            unreported = canary.stop()
        assert added.returncode == 0, added.output[-3000:]
        assert "Give the application the next password with SCRAM-SHA-256" in added.output
        assert unreported == 0 and canary.failed == 0 and len(read_acked(tmp_path / "before")) == canary.sent
        assert logs_in(old) and logs_in(new)  # both, until the owner switched

        canary = Canary(new, topic, tmp_path / "after", rate=200).start()  # the application switched
        try:
            time.sleep(5)
            finished = _rotate(run_playbook, [{"name": name, "password": next_password, "mechanism": "SCRAM-SHA-256"}],
                               "-e", f"credentials={name}")
            time.sleep(5)
        finally:
            unreported = canary.stop()
        assert finished.returncode == 0, finished.output[-3000:]
        assert unreported == 0 and canary.failed == 0 and len(read_acked(tmp_path / "after")) == canary.sent
        assert logs_in(new) and not logs_in(old)
        # done: asked again, it has nothing to rotate to, and says so without changing anything
        again = _rotate(run_playbook, [{"name": name, "password": next_password, "mechanism": "SCRAM-SHA-256"}],
                        "-e", f"credentials={name}")
        assert again.returncode != 0 and "no next_password" in again.output
        assert logs_in(new) and not logs_in(old)
    finally:
        run_module("kafka_acl", acls=acls, state="absent")
        run_module("kafka_scram_user", users=[{"name": name}], state="absent")


def test_the_admin_certificate_rotates_under_a_canary_and_the_old_one_is_no_super_user(run_playbook, tmp_path):
    current = config.PKI / "admin" / "current"
    before = int(os.readlink(current).removeprefix("g"))
    old = tmp_path / "old"
    shutil.copytree(current.resolve(), old)  # what someone who kept the old key holds
    old_conf = kafka_config() | {"ssl.certificate.location": str(old / "chain.pem"),
                                 "ssl.key.location": str(old / "key.pem")}
    assert creates_a_topic(old_conf) is None
    checked = run_playbook("rotate_credentials.yml", "-e", "credentials=admin", "--check")
    assert checked.returncode == 0 and f"admin certificate: g{before} -> g{before + 1}" in checked.output
    assert not (config.PKI / "admin" / f"g{before + 1}").exists()  # check mode made nothing

    topic, ledger = f"canary-admin-{uuid.uuid4().hex[:6]}", tmp_path / "ledger"
    ensure_topic(kafka_config(), topic)
    canary = Canary(_canary_login(), topic, ledger, rate=200).start()
    try:
        rotated = run_playbook("rotate_credentials.yml", "-e", "credentials=admin")
    finally:
        unreported = canary.stop()
    assert rotated.returncode == 0, rotated.output[-3000:]
    assert unreported == 0 and canary.failed == 0 and len(read_acked(ledger)) == canary.sent
    assert os.readlink(current) == f"g{before + 1}" and not (config.PKI / "admin" / f"g{before}").exists()
    load.cache_clear()
    assert creates_a_topic(kafka_config()) is None
    assert creates_a_topic(old_conf) in ("TOPIC_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED")

    site = run_playbook("site.yml")
    assert site.returncode == 0 and all(" changed=0 " in line for line in site.stdout.splitlines() if " : ok=" in line)


def _zookeeper_answers(sasl_options):
    """The ACLs of /brokers/ids as a client with this login reads them, or None when ZooKeeper refuses the login (it
    closes the session of a failed SASL login: the start times out, or the first request loses its connection; the
    same call with the new login must answer, which tells a refusal from a network fault)."""
    zk = kazoo_client(sasl_options=sasl_options)
    try:
        zk.start(timeout=15)  # its chroot check is the first request
        return zk.get_acls("/brokers/ids")[0]
    except (KazooTimeoutError, ConnectionLoss, SessionClosedRequireSaslError, AuthFailedError):
        return None
    finally:
        zk.stop()
        zk.close()


@pytest.mark.zookeeper
def test_the_zookeeper_login_rotates_under_a_canary_the_acls_naming_the_same_user(run_playbook, tmp_path):
    old = load()["kazoo"]["sasl_options"]
    acls_before = _zookeeper_answers(old)
    assert acls_before and any(acl.id.scheme == "sasl" for acl in acls_before)
    checked = run_playbook("rotate_credentials.yml", "-e", "credentials=zookeeper", "--check")
    assert checked.returncode == 0 and "ZooKeeper login: g" in checked.output, checked.output[-3000:]

    topic, ledger = f"canary-zk-login-{uuid.uuid4().hex[:6]}", tmp_path / "ledger"
    ensure_topic(kafka_config(), topic)
    canary = Canary(_canary_login(), topic, ledger, rate=200).start()
    try:
        with CommandLineWatch(config.load_hosts()) as watch:  # the lab's passwords, the next one as it is made
            rotated = run_playbook("rotate_credentials.yml", "-e", "credentials=zookeeper")
    finally:
        unreported = canary.stop()
    assert rotated.returncode == 0, rotated.output[-3000:]
    assert watch.samples > 0 and watch.leaks == []
    assert unreported == 0 and canary.failed == 0 and len(read_acked(ledger)) == canary.sent
    load.cache_clear()
    new = load()["kazoo"]["sasl_options"]
    assert new["username"] != old["username"] and new["password"] != old["password"]
    assert _zookeeper_answers(old) is None  # the old login is refused
    acls_after = _zookeeper_answers(new)
    assert {(a.id.scheme, a.id.id) for a in acls_after} == {(a.id.scheme, a.id.id) for a in acls_before}

    site = run_playbook("site.yml")
    assert site.returncode == 0 and all(" changed=0 " in line for line in site.stdout.splitlines() if " : ok=" in line)
