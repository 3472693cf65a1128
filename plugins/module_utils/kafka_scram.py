"""Declared SCRAM users against the credentials a cluster has (plain functions, unit-tested).

A declared user is {name, password, mechanism, iterations}, its fields checked by the kafka_scram_user
module's argument spec. What a cluster has is {user: [(mechanism, iterations), ...]}: a password cannot
be read back, so a credential that exists with the declared iterations is rewritten only when
update_password is "always" (as Ansible's user module does). Plans, diffs and errors never hold a password.
"""

# Kafka refuses other iterations with UNACCEPTABLE_CREDENTIAL ("Too few/many iterations"): Kafka 3.9's
# ScramControlManager.validateUpsertion (KRaft) and ZkAdminManager.alterUserScramCredentials (ZooKeeper).
MIN_ITERATIONS, MAX_ITERATIONS = 4096, 16384


class ScramError(ValueError):
    """A declared user that cannot be made. The message names the entry, never its password."""


def check(users, state):
    """The users, each (name, mechanism) once, in declared order. ScramError naming the entry (users[i])
    for iterations Kafka refuses, and with state present for a missing password or a user and mechanism
    declared twice differently (which one is meant cannot be told)."""
    first = {}
    for index, user in enumerate(users):
        where = f"users[{index}] ({user['name']}, {user['mechanism']})"
        if not MIN_ITERATIONS <= user["iterations"] <= MAX_ITERATIONS:
            raise ScramError(f"{where}: iterations {user['iterations']} is not from {MIN_ITERATIONS} to "
                             f"{MAX_ITERATIONS} (Kafka refuses others)")
        if state == "present" and not user["password"]:  # absent needs none: the spec cannot say so
            raise ScramError(f"{where}: a password is required with state present (from a vault variable)")
        pair = (user["name"], user["mechanism"])
        if pair in first and state == "present" and first[pair][1] != user:
            raise ScramError(f"{where} is also declared as {first[pair][0]} with another password or iterations: "
                             "declare each user and mechanism once")
        first.setdefault(pair, (f"users[{index}]", user))
    return [user for _, user in first.values()]


def plan(declared, existing, state, update_password):
    """{"upserts": [...], "deletions": [...]}, each entry {name, mechanism, iterations, reason}, in declared
    order; declared as check() returns them, existing {user: [(mechanism, iterations)]} (a user may be
    left out). present: an upsert for each credential that is missing, whose iterations differ (rewriting
    it is the only way to change them), or with update_password always; nothing is deleted. absent: a
    deletion of each declared credential that exists, whatever its iterations."""
    upserts, deletions = [], []
    for user in declared:
        name, mechanism = user["name"], user["mechanism"]
        have = dict(existing.get(name, []))
        if state == "absent":
            if mechanism in have:
                deletions.append(_entry(name, mechanism, have[mechanism], "absent"))
        elif mechanism not in have:
            upserts.append(_entry(name, mechanism, user["iterations"], "missing"))
        elif have[mechanism] != user["iterations"]:
            upserts.append(_entry(name, mechanism, user["iterations"], "iterations differ"))
        elif update_password == "always":
            upserts.append(_entry(name, mechanism, user["iterations"], "update_password=always"))
    return {"upserts": upserts, "deletions": deletions}


def _entry(name, mechanism, iterations, reason):
    return {"name": name, "mechanism": mechanism, "iterations": iterations, "reason": reason}


def _line(name, mechanism, iterations):
    return f"{name} {mechanism} ({iterations} iterations)"


def diff(existing, planned):
    """{"before": text, "after": text}: the users' credentials, and them once the plan is applied, one sorted line
    each (the text Ansible's --diff shows line by line); a credential the plan writes is marked "password set" (it
    changes even when nothing else does)."""
    have = {(name, m): i for name, pairs in existing.items() for m, i in pairs}
    after = {pair: _line(*pair, i) for pair, i in have.items()}
    for e in planned["deletions"]:
        after.pop((e["name"], e["mechanism"]), None)
    for e in planned["upserts"]:
        after[(e["name"], e["mechanism"])] = _line(e["name"], e["mechanism"], e["iterations"]) + ", password set"
    before = sorted(_line(*pair, i) for pair, i in have.items())
    return {"before": "".join(f"{line}\n" for line in before),
            "after": "".join(f"{line}\n" for line in sorted(after.values()))}
