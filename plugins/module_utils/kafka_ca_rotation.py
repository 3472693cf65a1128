"""The plan of replacing the cluster's CA without a moment in which two hosts distrust each other: plain
functions of what every host trusts and who issued its certificate, unit-tested on hand-written states.

Three phases, each followed by a gated roll of the hosts it changed:
  trust-both  every host (and the kit) trusts the old and the new CA; certificates still from the old one;
  reissue     every host gets a certificate from the new CA (trusted everywhere since the first phase);
  drop-old    every host trusts the new CA only.
Then the next CA becomes the CA in use on the controller (promote). A host's state is {"trusted": [CA fingerprints
in its truststore], "issuer": fingerprint of the CA that issued its certificate, "restart_pending": its files
changed since it started}; the current phase is read from the hosts on every run, so a rerun resumes.
"""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_pki
from ansible_collections.kafkaops.toolkit.plugins.module_utils.refusal import refusal

PHASES = ("trust-both", "reissue", "drop-old")
_WHAT = {
    "trust-both": "trusts the old and the new CA",
    "reissue": "presents a certificate from the new CA",
    "drop-old": "trusts the new CA only",
}


def host_phases(state, old, new):
    """The phases a host has done, or None when its state is none of the rotation's."""
    trusted, issuer = set(state["trusted"]), state["issuer"]
    if issuer not in (old, new) or not trusted or not trusted <= {old, new} or issuer not in trusted:
        return None
    if trusted == {old}:
        return set()
    if trusted == {old, new}:
        return {"trust-both", "reissue"} if issuer == new else {"trust-both"}
    # The new CA only: a host can trust it alone only after it presents a certificate from it.
    return set(PHASES) if issuer == new else None


def rotation_plan(hosts, old, new, stop_after=""):
    """Refusals, the phases done on every host, each phase left with the hosts it restarts (in order), the
    phases this run takes (up to stop_after, "" for all), and whether it then promotes the next CA (every phase
    done).

    hosts: {host: state}; old / new: the fingerprints of the CA in use and of the next one (None until the
    first run that takes a phase makes it). The same fingerprint twice is a promotion cut off after the copy:
    finished when every host is on that CA alone."""
    if stop_after and stop_after not in PHASES:
        return {"refusals": [refusal("rotate-unknown-phase", (
            f"Refusing: stop_after={stop_after} is not a phase; the phases are {', '.join(PHASES)}."))],
            "done": [], "todo": [], "this_run": [], "groups": {}, "promote": False}
    if old == new:
        on_it = {"trusted": [old], "issuer": old}
        if hosts and all({k: s[k] for k in on_it} == on_it for s in hosts.values()):
            return {"refusals": [], "done": list(PHASES), "todo": [], "this_run": [], "groups": {}, "promote": True}
        return {"refusals": [refusal("rotate-same-ca", (
            "Refusing: the next CA (ca-next) is the CA in use (same fingerprint) but not every host is on it alone. "
            "Remove ca-next only if it is a copy you made; rotate_ca.yml makes the next CA itself."))],
            "done": [], "todo": [], "this_run": [], "groups": {}, "promote": False}
    refusals, installed, running = [], {}, {}
    for host, state in sorted(hosts.items()):
        phases = host_phases(state, old, new)
        if phases is None:
            refusals.append(refusal("rotate-unknown-trust", (
                f"Refusing: {host} trusts {sorted(state['trusted']) or 'no CA'} and presents a certificate issued "
                f"by {state['issuer']}, which is neither a step of rotating {old} to {new} nor where it starts. "
                "Bring the host back to the CA in use (site.yml) or finish by hand; changing trust now could cut "
                "it off from the others.")))
            continue
        installed[host] = phases
        # Files ahead of the process: it still runs the phase before its files' last one.
        running[host] = phases - {max(phases, key=PHASES.index)} if phases and state["restart_pending"] else phases
    if not hosts:
        refusals.append(refusal("rotate-no-hosts", "Refusing: the inventory names no hosts to rotate."))
    # Every host must finish a phase before any starts the next: a host that trusts only the new CA
    # while another still presents the old one's certificate would refuse it.
    for i, phase in enumerate(PHASES[1:], start=1):
        behind = sorted(h for h, done in installed.items() if PHASES[i - 1] not in done)
        ahead = sorted(h for h, done in installed.items() if phase in done)
        if behind and ahead:
            refusals.append(refusal("rotate-phase-order", (
                f"Refusing: {', '.join(ahead)} already {_WHAT[phase]} while {', '.join(behind)} not yet "
                f"{_WHAT[PHASES[i - 1]]}. That is not a state this playbook makes; roll the hosts behind to "
                f"'{PHASES[i - 1]}' by hand or restore the others' files before a rerun.")))
    done = [p for p in PHASES if running and all(p in d for d in running.values())]
    todo = [{"phase": p, "hosts": sorted(h for h, d in running.items() if p not in d)} for p in PHASES if p not in done]
    for item in todo:
        item["text"] = f"{describe(item['phase'])} (files and a restart for {', '.join(item['hosts'])})"
    left = [t["phase"] for t in todo]
    this_run = left[:left.index(stop_after) + 1] if stop_after in left else [] if stop_after else left
    # Every host and the controller take each phase of this run (rotate_ca_phase.yml's plays run on these groups).
    groups = {f"ca_rotation_phase_{i}": sorted(hosts) + ["localhost"] for i in range(len(this_run))}
    return {"refusals": refusals, "done": done, "todo": todo, "this_run": this_run, "groups": groups,
            "promote": not refusals and this_run == left}


def issuing_ca_files(pki_dir, cert_path, key_path, phase):
    """The CA whose files issue the hosts' certificates while phase is applied ("": no rotation): the CA in use
    (kafka_pki.ca_files) until the reissue, the next one (pki_dir/ca-next) from then on."""
    if phase in ("reissue", "drop-old"):
        return next_ca_files(pki_dir)
    return kafka_pki.ca_files(pki_dir, cert_path, key_path)


def trusted_ca_certs(pki_dir, cert_path, key_path, phase):
    """The CA certificates a host trusts once phase ("": no rotation) is applied: both from trust-both until
    drop-old, which keeps the next CA alone."""
    old, new = kafka_pki.ca_files(pki_dir, cert_path, key_path)["cert"], next_ca_files(pki_dir)["cert"]
    return {"": [old], "trust-both": [old, new], "reissue": [old, new], "drop-old": [new]}[phase]


def chain_certs(pki_dir, phase):
    """What a host presents after its own certificate: from the reissue on, its certificate is the next CA's, and
    until drop-old it also presents the next CA cross-signed by the old one, so that a client still trusting only
    the old CA verifies it (certificate -> next CA signed by the old -> old CA) until the last phase; a client
    trusting the next CA stops at it. (A CA made with pathlen:0 forbids that path: cross_signing_works.)"""
    return [next_ca_files(pki_dir)["cross"]] if phase == "reissue" else []


def next_ca_files(pki_dir):
    """Where rotate_ca.yml makes the next CA, and its certificate cross-signed by the CA in use."""
    return {"brought": False, "cert": f"{pki_dir}/ca-next/cert.pem", "key": f"{pki_dir}/ca-next/key.pem",
            "cross": f"{pki_dir}/ca-next/cross-signed.pem"}


def cross_signing_works(ca):
    """Whether the CA in use (community.crypto's info) may have a CA below it (no pathlen:0), so that clients
    trusting only it verify the next CA's certificates through the cross-signed next CA."""
    return "pathlen:0" not in (ca["basic_constraints"] or [])


def host_state(trusted, cert, cas, restart_pending):
    """A host's state for rotation_plan from what it has installed: trusted (the infos of its truststore's
    certificates), cert (the info of the certificate it presents), cas (the infos of the CAs in play, None for
    a next CA not made yet), restart_pending (its files changed since it started: it still runs the
    ones before)."""
    issuer = next((ca["fingerprints"]["sha256"] for ca in cas if ca and kafka_pki.issued_by(cert, ca)),
                  f"a CA named {kafka_pki.distinguished_name(cert['issuer_ordered'])}")
    return {"trusted": [c["fingerprints"]["sha256"] for c in trusted], "issuer": issuer,
            "restart_pending": bool(restart_pending)}


def describe(phase):
    """A phase as the plan shows it."""
    return f"{phase}: every host {_WHAT[phase]}"
