"""The plan of replacing the cluster's CA without a moment in which two hosts distrust each other: plain
functions of what every host trusts and who issued its certificate, unit-tested on hand-written states.

Three phases, each followed by a gated roll of the hosts it changed:
  trust-both  every host (and the kit) trusts the old and the new CA; certificates still from the old one;
  reissue     every host gets a certificate from the new CA (trusted everywhere since the first phase);
  drop-old    every host trusts the new CA only.
A host's state is {"trusted": [CA fingerprints in its truststore], "issuer": fingerprint of the CA that
issued its certificate}; the current phase is read from the hosts on every run, so a rerun resumes.
"""

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


def rotation_plan(hosts, old, new):
    """Refusals, the phases done on every host, and each phase left with the hosts it changes (in order).

    hosts: {host: state}; old / new: the fingerprints of the CA in use and of its successor."""
    refusals = []
    if old == new:
        refusals.append(refusal("same_ca", (
            "Refusing: the new CA is the CA in use (same fingerprint); make or point to another CA first.")))
    done_by_host = {}
    for host, state in sorted(hosts.items()):
        phases = host_phases(state, old, new)
        if phases is None:
            refusals.append(refusal("unknown_trust", (
                f"Refusing: {host} trusts {sorted(state['trusted']) or 'no CA'} and presents a certificate issued "
                f"by {state['issuer']}, which is neither a step of rotating {old} to {new} nor where it starts. "
                "Bring the host back to the CA in use (site.yml) or finish by hand; changing trust now could cut "
                "it off from the others.")))
        else:
            done_by_host[host] = phases
    if not hosts:
        refusals.append(refusal("no_hosts", "Refusing: the inventory names no hosts to rotate."))
    # Every host must finish a phase before any starts the next: a host that trusts only the new CA
    # while another still presents the old one's certificate would refuse it.
    for i, phase in enumerate(PHASES[1:], start=1):
        behind = sorted(h for h, done in done_by_host.items() if PHASES[i - 1] not in done)
        ahead = sorted(h for h, done in done_by_host.items() if phase in done)
        if behind and ahead:
            refusals.append(refusal("phase_order", (
                f"Refusing: {', '.join(ahead)} already {_WHAT[phase]} while {', '.join(behind)} not yet "
                f"{_WHAT[PHASES[i - 1]]}. That is not a state this playbook makes; roll the hosts behind to "
                f"'{PHASES[i - 1]}' by hand or restore the others' files before a rerun.")))
    done = [p for p in PHASES if done_by_host and all(p in d for d in done_by_host.values())]
    todo = [{"phase": p, "hosts": sorted(h for h, d in done_by_host.items() if p not in d)}
            for p in PHASES if p not in done]
    return {"refusals": refusals, "done": done, "todo": todo}


def truststore(phase_done, old_pem, new_pem):
    """The CA certificates a host's truststore holds once phase_done (None: not started) is done."""
    if phase_done is None:
        return [old_pem]
    return [new_pem] if phase_done == "drop-old" else [old_pem, new_pem]


def presented_chain(phase_done, leaf, cross_signed_new):
    """The certificates a host presents once phase_done is done: from 'reissue' on, its certificate from the new
    CA, and until 'drop-old' also the new CA cross-signed by the old one, so that a client still trusting only
    the old CA verifies it (leaf -> new CA signed by the old -> old CA) until the last phase, as the issue asks;
    a client trusting the new CA stops at the new CA it trusts."""
    return [leaf, cross_signed_new] if phase_done == "reissue" else [leaf]


def describe(phase):
    """A phase as the plan shows it."""
    return f"{phase}: every host {_WHAT[phase]}"
