"""The ZooKeeper login of the brokers and the kit (SASL DIGEST-MD5), in generations a rotation moves through without a
moment in which ZooKeeper refuses a broker (docs/design/least-privilege.md): plain functions, unit-tested.

ZooKeeper's DigestLoginModule holds one password per user, and Kafka's znodes grant the user its brokers logged in as
(zookeeper.set.acl: the creator's identity). So each generation N >= 1 logs in under its own name, <user>-g<N>@KAFKAOPS,
and the ensemble maps every such name to <user> (zookeeper.security.auth_to_local, and
zookeeper.kerberos.removeRealmFromPrincipal): the znodes' ACLs name <user> whatever the generation, and an ensemble can
accept two generations at once. Generation 0 is the previous layout's login: <user> itself, its password from the
inventory (zookeeper_sasl_password); its first rotation moves it to generation 1.

The kit keeps each generation's password in kafka_credentials_dir/zookeeper-<user>-g<N> (0600) and the generation in
use in zookeeper-<user>.current.
"""

import pathlib
import re

REALM = "KAFKAOPS"


def login_name(user, generation):
    """The name generation logs in as."""
    return user if int(generation) == 0 else f"{user}-g{int(generation)}@{REALM}"


def generation_of(user, name):
    """The generation a login name belongs to, or None for a name of no generation of user."""
    if name == user:
        return 0
    found = re.fullmatch(rf"{re.escape(user)}-g([0-9]+)@{REALM}", name or "")
    return int(found.group(1)) if found else None


def auth_to_local(user):
    """zookeeper.security.auth_to_local: every generation's name is <user> to ZooKeeper's ACLs (with
    zookeeper.kerberos.removeRealmFromPrincipal=true). Checked with ZooKeeper's own KerberosName."""
    return f"RULE:[1:$1@$0]({re.escape(user)}-g[0-9]+@{REALM})s/-g[0-9]+@{REALM}$//"


def _password_file(credentials_dir, user, generation):
    return pathlib.Path(credentials_dir, f"zookeeper-{user}-g{int(generation)}")


def current_generation(credentials_dir, user, legacy):
    """The generation in use: the one zookeeper-<user>.current names; before any, 0 when the inventory gives the
    previous layout's password (legacy), else 1."""
    current = pathlib.Path(credentials_dir, f"zookeeper-{user}.current")
    text = current.read_text().strip() if current.is_file() else ""
    return int(text) if text.isdigit() else (0 if legacy else 1)


def kept_logins(credentials_dir, user, current, current_password):
    """[{generation, name, password}] of every generation kept (a password file, and the one in use with
    current_password), oldest first: the logins the ensemble accepts."""
    passwords = {}
    for path in pathlib.Path(credentials_dir).glob(f"zookeeper-{user}-g*"):
        suffix = path.name[len(f"zookeeper-{user}-g"):]
        if suffix.isdigit():
            passwords[int(suffix)] = path.read_text().strip()
    passwords[int(current)] = current_password
    return [{"generation": g, "name": login_name(user, g), "password": passwords[g]} for g in sorted(passwords)]


def accepted_generations(user, jaas_text):
    """The generations a member's jaas.conf (its Server section, as the zookeeper role writes it) accepts."""
    names = re.findall(r'^\s*"?user_([^"=\s]+)"?\s*=', jaas_text or "", re.M)
    return sorted({g for g in (generation_of(user, n) for n in names) if g is not None})


def client_generation(user, jaas_text):
    """The generation a broker's or controller's jaas.conf logs in to ZooKeeper with (its Client section), or None."""
    section = re.search(r"Client\s*\{(.*?)\};", jaas_text or "", re.S)
    name = re.search(r'username="([^"]*)"', section.group(1)) if section else None
    return generation_of(user, name.group(1)) if name else None
