"""The plan of rotating a credential the kit made, without a moment in which a client that did nothing wrong is
refused (playbooks/rotate_credentials.yml; docs/design/least-privilege.md): plain functions of what the cluster and the
kit's files hold, unit-tested on hand-written states. Each kind adds the next credential before the old one goes; a
rerun reads the state again and goes on from the step it finds. A credential at rest starts a new rotation.

  scram  a SCRAM login of the kit's tools (canary, validator). Kafka keeps one credential per user and mechanism, and
         the CLIENT listener enables two (SCRAM-SHA-512, SCRAM-SHA-256): the next password is made, added under the
         mechanism not in use, the kit's files switch to it (the tools' next settings), then the old mechanism's
         credential is deleted. State: {"cluster": [mechanisms the user has], "in_use": the mechanism of the kit's
         files, "next": the mechanism a next password was made for (its file's name says it, so a switch of the
         kit's files cut off midway is taken again to the same mechanism), None without one}.
         An application's SCRAM user (kafka_scram_users) rotates the same way, two of its steps being its owner's:
         "next-password" is a next_password beside its password in the inventory, "switched" is the application
         logging in with it and the inventory then holding it as password and the other mechanism as mechanism.
  zookeeper  the brokers' and the kit's ZooKeeper login (module_utils/kafka_zookeeper_login): generation N+1's
         password is made, the members accept both generations (a gated ZooKeeper roll), the kit and the brokers
         switch to N+1 (a gated broker roll), N's password is deleted and the members accept N+1 alone (a gated
         ZooKeeper roll). State: {"generations": [kept], "current": the one in use, "accepted": [the generations each
         member accepts, None while it waits for a restart], "clients": [the generation each broker logs in with, None
         while it waits for a restart]}.
  admin  the kit's admin certificate: generation N+1 is issued, the brokers and controllers accept both (a gated
         roll), the kit switches to N+1, N is removed and they accept N+1 alone (a gated roll). State:
         {"generations": [kept on the controller], "current": the one in use, "accepted": [the generations each
         running broker and controller accepts]}.
"""

import pathlib

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_principals, kafka_zookeeper_login
from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal

MECHANISMS = ("SCRAM-SHA-512", "SCRAM-SHA-256")
STEPS = {
    "scram": ("next-password", "next-added", "switched", "old-removed"),
    "admin": ("next-made", "both-accepted", "switched", "old-dropped"),
    "zookeeper": ("next-made", "both-accepted", "switched", "old-dropped"),  # switched: a roll of the brokers
}


def other_mechanism(mechanism):
    return MECHANISMS[1 - MECHANISMS.index(mechanism)]


def scram_done(state):
    """The steps of a SCRAM login's rotation done, or None for a state no step leads to."""
    cluster, in_use, to = set(state["cluster"]), state["in_use"], state["next"]
    if to:  # a next password made for `to`: until it is dropped the switch is not done (in_use may be either)
        if cluster == {other_mechanism(to)}:
            return {"next-password"}
        if cluster == {to, other_mechanism(to)}:
            return {"next-password", "next-added"}
        return None
    if cluster == {in_use}:
        return set()
    if cluster == {in_use, other_mechanism(in_use)}:  # switched to in_use (the next password dropped): the old to go
        return {"next-password", "next-added", "switched"}
    return None


def generations_done(state):
    """The steps of a move to the next generation (the admin certificate, the ZooKeeper login) done, or None for a
    state no step leads to. state["accepted"]: the generations each accepting host accepts (brokers and controllers,
    or ZooKeeper members), None for one whose file changed and which did not restart yet (its roll is not finished);
    state["clients"], for a login: the generation each host that logs in uses, None while it waits for a restart."""
    kept, current = sorted(state["generations"]), state["current"]
    accepted = [set(a) for a in state["accepted"] if a is not None]
    pending = any(a is None for a in state["accepted"])
    clients = [c for c in state.get("clients", []) if c is not None]
    clients_pending = any(c is None for c in state.get("clients", []))
    if current not in kept or any(current not in a for a in accepted) or any(c not in kept for c in clients):
        return None
    if len(kept) == 1:
        if any(c != current for c in clients):
            return None
        if all(a == {current} for a in accepted) and not pending and not clients_pending:
            return set()
        if all(a <= {current - 1, current} for a in accepted):  # the old one removed, the last roll to finish
            return {"next-made", "both-accepted", "switched"}
        return None
    old, new = kept[0], kept[-1]
    if len(kept) != 2 or new != old + 1 or any(not a <= {old, new} for a in accepted):
        return None
    done = {"next-made"}
    if all(a == {old, new} for a in accepted) and not pending:
        done.add("both-accepted")
    if current == new:
        if "both-accepted" not in done:
            return None  # the kit on a generation not every host accepts: no step leads there
        if all(c == new for c in clients) and not clients_pending:
            done.add("switched")
    elif any(c == new for c in clients):
        return None  # a host on the next login before the kit switched
    return done


def plan(kind, state):
    """{"refusals", "done", "todo"}: the steps of one credential's rotation done and left, in order; for a SCRAM login
    also "from" and "to", the mechanism it leaves and the one it moves to (the kit's files hold "to" once switched)."""
    done = scram_done(state) if kind == "scram" else generations_done(state)
    if done is None:
        return _refused(f"Refusing to rotate the {kind} credential: what the cluster and the kit's files hold "
                        f"({state}) is no state a step of the rotation leads to. Nothing changed; "
                        "docs/runbooks/credentials.md says how to look.")
    steps = STEPS[kind]
    planned = {"refusals": [], "done": [s for s in steps if s in done], "todo": [s for s in steps if s not in done]}
    if kind == "scram":
        to = state["next"] or (state["in_use"] if "switched" in done else other_mechanism(state["in_use"]))
        planned.update({"from": other_mechanism(to), "to": to})
    return planned


DEFAULT_MECHANISM = MECHANISMS[0]


def application_plans(users, existing, asked):
    """{user: plan("scram", its state)} for the application users asked for by name, and for every other one whose
    rotation is under way (a next_password declared, or a credential under both mechanisms): users are
    kafka_scram_users ({name, password, mechanism?, next_password?}), existing kafka_scram_user's `existing`. A next
    password equal to the password is the one switched to. A user asked for that has nothing to rotate to (no
    next_password and one mechanism) is refused."""
    declared = {u["name"]: u for u in users}
    plans = {}
    for name, user in sorted(declared.items()):
        in_use = user.get("mechanism") or DEFAULT_MECHANISM
        state = {"cluster": [c["mechanism"] for c in existing.get(name, [])], "in_use": in_use,
                 "next": (other_mechanism(in_use) if user.get("next_password", user["password"]) != user["password"]
                          else None)}
        under_way = state["next"] or len(state["cluster"]) > 1
        if name in asked and not under_way:
            plans[name] = _refused(
                f"Refusing to rotate {name}: kafka_scram_users gives it no next_password. Add one beside its password "
                "(from your vault), then run this again. Nothing changed.")
        elif under_way:
            plans[name] = plan("scram", state)
    return plans


def unknown_credentials(asked, users, tools):
    """Refuse a name in credentials= that is neither a credential of the kit (admin, zookeeper, or one of its tools:
    the connection role's kafka_tools) nor a user of kafka_scram_users (users), before anything is read."""
    known = ["admin", "zookeeper"] + list(tools) + [u["name"] for u in users]
    unknown = [name for name in asked if name not in known]
    return [refusal("rotation-inconsistent-state", (
        f"credentials={','.join(asked)}: name one or more of {', '.join(known)} (comma-separated), or leave it out "
        f"for all; {', '.join(unknown)} is none of them. Nothing changed."))] if unknown else []


def _refused(message):
    return {"refusals": [refusal("rotation-inconsistent-state", message)], "done": [], "todo": []}


def admin_plan(generations, current, hosts):
    """plan("admin", ...) from the generations kept on the controller (kafka_pki_dir/admin/g<N>), the one in use
    (admin/current; None before the first) and what each broker and controller runs (hosts: {host: running_config's
    {"config": {"ssl.principal.mapping.rules": ...}, "restart_pending": bool}}); also "old" and "new", the generations
    it leaves and moves to."""
    by_host = {host: None if h["restart_pending"] else
               kafka_principals.accepted_admin_generations(h["config"].get("ssl.principal.mapping.rules"))
               for host, h in hosts.items()}
    planned = plan("admin", {"generations": generations, "current": current, "accepted": list(by_host.values())})
    kept = sorted(generations)
    rotating = len(kept) == 2 or (planned["done"] and planned["todo"])
    old = (kept[0] if len(kept) == 2 else (current or 1) - 1) if rotating else current
    return planned | {"old": old, "new": old + 1 if old is not None else None,
                      "hosts": {host: "restart pending" if a is None else a for host, a in by_host.items()}}


def roll_groups(admin, zookeeper, members, zookeepers):
    """The hosts of each gated roll this run takes ({"accept_both", "switch", "drop_old"}: [hosts], localhost added to
    a roll that has hosts: it restarts them, configure_and_roll.yml): the brokers and controllers (members) accept both
    admin generations and drop the old one; the ZooKeeper members (zookeepers) accept both logins and drop the old
    one; the members switch to the next ZooKeeper login (those that log in to ZooKeeper change). admin, zookeeper: the
    plans (None when not rotated)."""
    admin_todo, zookeeper_todo = (admin or {}).get("todo", []), (zookeeper or {}).get("todo", [])

    def hosts(step, for_admin, for_zookeeper):
        found = (for_admin if step in admin_todo else []) + (for_zookeeper if step in zookeeper_todo else [])
        return list(dict.fromkeys(found)) + (["localhost"] if found else [])
    return {"accept_both": hosts("both-accepted", members, zookeepers),
            "switch": hosts("switched", [], members),
            "drop_old": hosts("old-dropped", members, zookeepers)}


def describe(tools, applications, admin, zookeeper):
    """The plan as the run shows it, one line per credential: tools and applications {login: plan}, admin and
    zookeeper a plan or None (not asked for, or none: KRaft, an open ensemble)."""
    def steps(plan):
        return ("done: " + ", ".join(plan["done"]) + "; " if plan["done"] else "") + \
            "left: " + (", ".join(plan["todo"]) or "nothing")
    lines = [f"{login}: {plan.get('from', '')} -> {plan.get('to', '')}, {steps(plan)}"
             for login, plan in {**tools, **applications}.items()]
    lines.append(f"admin certificate: g{admin['old']} -> g{admin['new']}, {steps(admin)} (both-accepted and "
                 "old-dropped: a gated roll of the brokers and controllers each)" if admin
                 else "admin certificate: not asked for")
    lines.append(f"ZooKeeper login: g{zookeeper['old']} -> g{zookeeper['new']}, {steps(zookeeper)} (both-accepted "
                 "and old-dropped: a gated roll of the ZooKeeper members each; switched: of the brokers)" if zookeeper
                 else "ZooKeeper login: not asked for (or none: KRaft, an open ensemble)")
    return lines


def rolls_not_taken(plans, step):
    """After the roll that takes `step`, plans made again from what the hosts run now ({what: plan or None}): a
    refusal for each that still has the step to do (a host did not restart onto its new files) or a refusal of its
    own. The run stops there, before the kit switches or deletes anything the hosts still need."""
    refusals = []
    for what, planned in sorted(plans.items()):
        if planned is None:
            continue
        refusals += planned["refusals"]
        if step in planned["todo"]:
            refusals.append(refusal("rotation-inconsistent-state", (
                f"Refusing to go on with the {what}: after the roll that takes '{step}', not every host runs it "
                "(one did not restart onto its new files, or waits for a restart). Nothing after that roll changed; "
                "rerun rotate_credentials.yml, which takes the roll again.")))
    return refusals


def zookeeper_plan(user, credentials_dir, current, members, clients):
    """plan("zookeeper", ...) from the kit's files (the generations whose password is kept in credentials_dir, and the
    one in use), what each ZooKeeper member accepts and what each broker (and migrating controller) logs in with
    (members: {host: {"accepted": [generations], "restart_pending": bool}}, clients: {host: {"generation": int or
    None for no login, "restart_pending": bool}}); also "old" and "new", the generations it leaves and moves to."""
    logins = kafka_zookeeper_login.kept_logins(credentials_dir, user, current, "")
    kept = sorted({login["generation"] for login in logins})
    state = {"generations": kept, "current": current,
             "accepted": [None if m["restart_pending"] else m["accepted"] for m in members.values()],
             "clients": [None if c["restart_pending"] else c["generation"] for c in clients.values()
                         if c["restart_pending"] or c["generation"] is not None]}
    planned = plan("zookeeper", state)
    old = kept[0] if len(kept) == 2 else (current - 1 if planned["done"] and planned["todo"] else current)
    seen = {**{host: "restart pending" if m["restart_pending"] else m["accepted"] for host, m in members.items()},
            **{host: "restart pending" if c["restart_pending"] else c["generation"] for host, c in clients.items()}}
    return planned | {"old": old, "new": old + 1, "hosts": seen}


def scram_plans(principals, existing, logins, credentials_dir):
    """{principal: plan("scram", its state)} for the tools' logins: existing is kafka_scram_user's `existing` (user ->
    [{mechanism}]), logins the kit's (kafka_tool_logins: {password, mechanism} in use), and a next password is made
    for mechanism M when credentials_dir/<principal>.next-M exists (read on the controller, where filters run). Each
    plan also says where its next password is kept until the kit's files switch to it ("next_file")."""
    plans = {}
    for p in principals:
        made = [m for m in MECHANISMS if pathlib.Path(_next_file(credentials_dir, p, m)).is_file()]
        state = {"cluster": [c["mechanism"] for c in existing.get(p, [])], "in_use": logins[p]["mechanism"],
                 "next": made[0] if len(made) == 1 else None}
        if len(made) > 1:
            plans[p] = _refused(f"Refusing to rotate {p}: next passwords for both mechanisms ({', '.join(made)}) in "
                                f"{credentials_dir}. Nothing changed.")
        else:
            plans[p] = plan("scram", state)
            if "to" in plans[p]:
                plans[p]["next_file"] = _next_file(credentials_dir, p, plans[p]["to"])
    return plans


def _next_file(credentials_dir, principal, mechanism):
    return f"{credentials_dir}/{principal}.next-{mechanism}"
