"""kafka_scram_user on the lab: a credential is written once, read back with its mechanism and iterations,
rewritten only when its iterations change, and deleted with state absent; check mode writes nothing; the
password appears in no result."""

import json
import uuid

from confluent_kafka.admin import AdminClient

from lab.cluster_settings import kafka_config


def _credentials(bootstrap_servers, name):
    """[(mechanism, iterations)] of the user as the cluster has them ([] for none)."""
    admin = AdminClient(kafka_config(bootstrap_servers))
    try:
        infos = admin.describe_user_scram_credentials([name])[name].result(30).scram_credential_infos
    except Exception as exc:  # RESOURCE_NOT_FOUND: no credentials
        assert "RESOURCE_NOT_FOUND" in str(exc) or "not found" in str(exc).lower(), exc
        return []
    return sorted((info.mechanism.name, info.iterations) for info in infos)


def test_users_are_made_changed_and_removed_idempotently(run_module, bootstrap_servers):
    name, password = f"it-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    user = {"name": name, "password": password}

    def run(check=False, **args):
        return run_module("kafka_scram_user", check=check, bootstrap_servers=bootstrap_servers, **args)

    try:
        planned = run(check=True, users=[user])
        assert not planned["failed"] and planned["changed"], planned
        assert planned["plan"]["upserts"][0]["reason"] == "missing"
        assert _credentials(bootstrap_servers, name) == []  # check mode wrote nothing

        made = run(users=[user])
        assert made["changed"] and _credentials(bootstrap_servers, name) == [("SCRAM_SHA_512", 8192)]
        assert not run(users=[user])["changed"]  # a rerun changes nothing

        stronger = run(users=[dict(user, iterations=16384)])
        assert stronger["changed"] and stronger["plan"]["upserts"][0]["reason"] == "iterations differ"
        assert _credentials(bootstrap_servers, name) == [("SCRAM_SHA_512", 16384)]

        for result in (planned, made, stronger):
            assert password not in json.dumps(result)

        removed = run(users=[{"name": name}], state="absent")
        assert removed["changed"] and _credentials(bootstrap_servers, name) == []
        assert not run(users=[{"name": name}], state="absent")["changed"]
    finally:
        run(users=[{"name": name}], state="absent")
