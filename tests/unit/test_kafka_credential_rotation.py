"""The credential rotation's plan (module_utils/kafka_credential_rotation) on hand-written states: each step's state
reads back as that step done, a rerun resumes, a state no step leads to is refused."""

import pytest

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_credential_rotation as rot
from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_principals as p

SHA512, SHA256 = rot.MECHANISMS
TOOLS = ["canary", "validator"]  # the connection role's kafka_tools


@pytest.mark.parametrize("state, done", [
    ({"cluster": [SHA512], "in_use": SHA512, "next": None}, []),
    ({"cluster": [SHA512], "in_use": SHA512, "next": SHA256}, ["next-password"]),
    ({"cluster": [SHA512, SHA256], "in_use": SHA512, "next": SHA256}, ["next-password", "next-added"]),
    # the kit's files switched to SHA-256, the next password not dropped yet (a run cut off): the switch again
    ({"cluster": [SHA512, SHA256], "in_use": SHA256, "next": SHA256}, ["next-password", "next-added"]),
    ({"cluster": [SHA512, SHA256], "in_use": SHA256, "next": None}, ["next-password", "next-added", "switched"]),
    ({"cluster": [SHA256], "in_use": SHA256, "next": None}, []),  # the next rotation goes back to SHA-512
])
def test_a_scram_login_moves_to_the_other_mechanism_step_by_step(state, done):
    planned = rot.plan("scram", state)
    assert planned["refusals"] == [] and planned["done"] == done
    assert planned["todo"] == [s for s in rot.STEPS["scram"] if s not in done]


@pytest.mark.parametrize("state", [
    {"cluster": [], "in_use": SHA512, "next": None},  # never made: kafka_access.yml makes it
    {"cluster": [SHA256], "in_use": SHA512, "next": None},  # the files say one mechanism, the cluster the other
    {"cluster": [SHA256], "in_use": SHA256, "next": SHA256},  # a next password for the mechanism the cluster has
])
def test_a_scram_state_no_step_leads_to_is_refused(state):
    assert [r["rule"] for r in rot.plan("scram", state)["refusals"]] == ["rotation-inconsistent-state"]


@pytest.mark.parametrize("state, done", [
    ({"generations": [3], "current": 3, "accepted": [[3], [3]]}, []),
    ({"generations": [3, 4], "current": 3, "accepted": [[3], [3]]}, ["next-made"]),
    ({"generations": [3, 4], "current": 3, "accepted": [[3, 4], [3]]}, ["next-made"]),  # the roll cut off
    ({"generations": [3, 4], "current": 3, "accepted": [[3, 4], [3, 4]]}, ["next-made", "both-accepted"]),
    ({"generations": [3, 4], "current": 4, "accepted": [[3, 4], [3, 4]]}, ["next-made", "both-accepted", "switched"]),
    ({"generations": [4], "current": 4, "accepted": [[4], [3, 4]]}, ["next-made", "both-accepted", "switched"]),
    ({"generations": [4], "current": 4, "accepted": [[4], [4]]}, []),
])
def test_the_admin_certificate_moves_to_its_next_generation_step_by_step(state, done):
    planned = rot.plan("admin", state)
    assert planned["refusals"] == [] and planned["done"] == done


@pytest.mark.parametrize("state", [
    {"generations": [3, 4], "current": 4, "accepted": [[3, 4], [3]]},  # the kit on what a broker refuses
    {"generations": [3, 5], "current": 3, "accepted": [[3], [3]]},  # a generation skipped
    {"generations": [3], "current": 3, "accepted": [[2]]},  # a broker that refuses the kit
    {"generations": [3, 4, 5], "current": 3, "accepted": [[3]]},
])
def test_an_admin_state_no_step_leads_to_is_refused(state):
    refusals = rot.plan("admin", state)["refusals"]
    assert [r["rule"] for r in refusals] == ["rotation-inconsistent-state"]
    assert "Nothing changed" in refusals[0]["message"]


def test_a_scram_plan_names_the_mechanism_it_leaves_and_the_one_it_moves_to():
    assert {k: rot.plan("scram", {"cluster": [SHA512], "in_use": SHA512, "next": None})[k]
            for k in ("from", "to")} == {"from": SHA512, "to": SHA256}
    after_switch = rot.plan("scram", {"cluster": [SHA512, SHA256], "in_use": SHA256, "next": None})
    assert (after_switch["from"], after_switch["to"], after_switch["todo"]) == (SHA512, SHA256, ["old-removed"])
    # a switch cut off after the files said SHA-256: the rerun goes on to SHA-256, and deletes SHA-512 after
    cut_off = rot.plan("scram", {"cluster": [SHA512, SHA256], "in_use": SHA256, "next": SHA256})
    assert (cut_off["from"], cut_off["to"], cut_off["todo"]) == (SHA512, SHA256, ["switched", "old-removed"])


def test_the_tools_logins_are_planned_from_the_cluster_the_kit_files_and_a_next_password(tmp_path):
    (tmp_path / f"kafkaops-canary.next-{SHA256}").write_text("next")
    existing = {"kafkaops-canary": [{"mechanism": SHA512, "iterations": 8192}],
                "kafkaops-validator": [{"mechanism": SHA512, "iterations": 8192}]}
    logins = {"kafkaops-canary": {"mechanism": SHA512}, "kafkaops-validator": {"mechanism": SHA512}}
    plans = rot.scram_plans(["kafkaops-canary", "kafkaops-validator"], existing, logins, str(tmp_path))
    assert plans["kafkaops-canary"]["done"] == ["next-password"]
    assert plans["kafkaops-canary"]["next_file"] == f"{tmp_path}/kafkaops-canary.next-{SHA256}"
    assert plans["kafkaops-validator"]["done"] == [] and plans["kafkaops-validator"]["to"] == SHA256
    (tmp_path / f"kafkaops-canary.next-{SHA512}").write_text("next")  # two: not a state the rotation makes
    refused = rot.scram_plans(["kafkaops-canary"], existing, logins, str(tmp_path))["kafkaops-canary"]
    assert [r["rule"] for r in refused["refusals"]] == ["rotation-inconsistent-state"]


def _user(name, mechanism=None, **passwords):
    return {"name": name, "password": "the-password-in-use-1", **({"mechanism": mechanism} if mechanism else {}),
            **passwords}


def test_an_application_user_rotates_through_its_owner_steps():
    existing = {"app": [{"mechanism": SHA512}]}
    # the owner put a next_password in the inventory: the kit adds it under the other mechanism
    started = rot.application_plans([_user("app", next_password="the-next-password-22")], existing, [])
    assert (started["app"]["done"], started["app"]["to"]) == (["next-password"], SHA256)
    # added: the application's switch is its owner's
    existing = {"app": [{"mechanism": SHA512}, {"mechanism": SHA256}]}
    added = rot.application_plans([_user("app", next_password="the-next-password-22")], existing, [])
    assert added["app"]["todo"] == ["switched", "old-removed"]
    # the owner switched and wrote the next password as the password, with its mechanism: the old one goes
    switched = rot.application_plans([_user("app", SHA256)], existing, [])
    assert (switched["app"]["todo"], switched["app"]["from"]) == (["old-removed"], SHA512)
    switched = rot.application_plans([_user("app", SHA256, next_password="the-password-in-use-1")], existing, [])
    assert switched["app"]["todo"] == ["old-removed"]


def test_application_users_at_rest_are_left_out_unless_asked_for_and_then_refused():
    users = [_user("quiet"), _user("asked")]
    existing = {"quiet": [{"mechanism": SHA512}], "asked": [{"mechanism": SHA512}]}
    plans = rot.application_plans(users, existing, ["asked"])
    assert sorted(plans) == ["asked"]
    assert [r["rule"] for r in plans["asked"]["refusals"]] == ["rotation-inconsistent-state"]
    assert "no next_password" in plans["asked"]["refusals"][0]["message"]


def test_a_name_that_is_no_credential_is_refused_naming_those_that_are():
    assert rot.unknown_credentials(["admin", "canary", "app"], [{"name": "app", "password": "x"}], TOOLS) == []
    refusals = rot.unknown_credentials(["nosuch"], [{"name": "app", "password": "x"}], TOOLS)
    assert [r["rule"] for r in refusals] == ["rotation-inconsistent-state"]
    assert "credentials=nosuch: name one or more of admin, zookeeper, canary, validator, app" in refusals[0]["message"]


def _host(accepted, pending=False, cluster="prod"):
    rules = p.mapping_rules(cluster, "kafka-cluster", "kafkaops-admin", accepted)
    return {"config": {"ssl.principal.mapping.rules": rules}, "restart_pending": pending}


@pytest.mark.parametrize("generations, current, hosts, todo, old_new", [
    ([3], 3, {"b1": _host([3]), "c1": _host([3])}, list(rot.STEPS["admin"]), (3, 4)),
    ([3, 4], 3, {"b1": _host([3, 4]), "c1": _host([3])}, ["both-accepted", "switched", "old-dropped"], (3, 4)),
    # a host whose file says both but that did not restart: the roll is not finished
    ([3, 4], 3, {"b1": _host([3, 4]), "c1": _host([3, 4], pending=True)},
     ["both-accepted", "switched", "old-dropped"], (3, 4)),
    ([3, 4], 3, {"b1": _host([3, 4]), "c1": _host([3, 4])}, ["switched", "old-dropped"], (3, 4)),
    ([3, 4], 4, {"b1": _host([3, 4]), "c1": _host([3, 4])}, ["old-dropped"], (3, 4)),
    ([4], 4, {"b1": _host([4]), "c1": _host([4], pending=True)}, ["old-dropped"], (3, 4)),
    ([4], 4, {"b1": _host([4]), "c1": _host([4])}, list(rot.STEPS["admin"]), (4, 5)),
])
def test_the_admin_plan_reads_the_generations_each_broker_and_controller_accepts(generations, current, hosts, todo,
                                                                                  old_new):
    planned = rot.admin_plan(generations, current, hosts)
    assert planned["refusals"] == [] and planned["todo"] == todo and (planned["old"], planned["new"]) == old_new


def test_no_admin_certificate_yet_is_refused():
    assert [r["rule"] for r in rot.admin_plan([], None, {"b1": _host([])})["refusals"]] == [
        "rotation-inconsistent-state"]


def test_the_generation_in_use_is_the_one_admin_current_links_to(tmp_path):
    from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_pki
    assert kafka_pki.admin_current(str(tmp_path)) is None
    (tmp_path / "admin" / "g2").mkdir(parents=True)
    (tmp_path / "admin" / "current").symlink_to("g2")
    assert kafka_pki.admin_current(str(tmp_path)) == 2


def test_a_roll_that_did_not_take_stops_the_run_before_the_switch():
    not_restarted = rot.admin_plan([3, 4], 3, {"b1": _host([3, 4]), "c1": _host([3, 4], pending=True)})
    taken = rot.admin_plan([3, 4], 3, {"b1": _host([3, 4]), "c1": _host([3, 4])})
    refusals = rot.rolls_not_taken({"admin certificate": not_restarted, "ZooKeeper login": None}, "both-accepted")
    assert [r["rule"] for r in refusals] == ["rotation-inconsistent-state"] and "admin certificate" in refusals[0][
        "message"]
    assert rot.rolls_not_taken({"admin certificate": taken, "ZooKeeper login": None}, "both-accepted") == []


def test_each_roll_restarts_the_hosts_whose_files_its_step_changes_and_localhost():
    members, zookeepers = ["kafka1", "ctrl1"], ["zk1"]
    admin = {"todo": ["both-accepted", "switched", "old-dropped"]}
    zookeeper = {"todo": ["switched", "old-dropped"]}
    assert rot.roll_groups(admin, zookeeper, members, zookeepers) == {
        "accept_both": ["kafka1", "ctrl1", "localhost"],
        "switch": ["kafka1", "ctrl1", "localhost"],  # the ZooKeeper login's: the hosts that log in change
        "drop_old": ["kafka1", "ctrl1", "zk1", "localhost"]}
    assert rot.roll_groups(None, None, members, zookeepers) == {"accept_both": [], "switch": [], "drop_old": []}
    assert rot.roll_groups(admin, None, members, zookeepers)["switch"] == []  # the kit switches: nothing restarts


def test_the_plan_shows_a_line_per_credential():
    tools = {"kafkaops-canary": rot.plan("scram", {"cluster": [SHA512], "in_use": SHA512, "next": None})}
    admin = {"old": 1, "new": 2, "done": ["next-made"], "todo": ["both-accepted", "switched", "old-dropped"]}
    assert rot.describe(tools, {}, admin, None) == [
        "kafkaops-canary: SCRAM-SHA-512 -> SCRAM-SHA-256, left: next-password, next-added, switched, old-removed",
        "admin certificate: g1 -> g2, done: next-made; left: both-accepted, switched, old-dropped (both-accepted and "
        "old-dropped: a gated roll of the brokers and controllers each)",
        "ZooKeeper login: not asked for (or none: KRaft, an open ensemble)"]
