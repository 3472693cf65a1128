"""The pki role's decisions (pure, unit-tested): which CA, which names a host's certificate covers, whether
the CA can issue, and why a host's certificate must be reissued. Certificates, requests and keys come as
community.crypto's x509_certificate_info, openssl_csr_info and openssl_privatekey_info return them (None when
there is none); times are naive UTC datetimes, as Jinja's now(utc=true) returns."""

import datetime
import ipaddress
import pathlib

SAN_TYPES = ("DNS:", "IP:", "email:", "URI:", "RID:", "dirName:", "otherName:")
# What a host's request sets besides its key and names; a certificate that differs was made for other settings.
REQUESTED = ("subject_ordered", "basic_constraints", "key_usage", "extended_key_usage")


def _asn1_time(value):
    """community.crypto's times ('20261202043912Z') as naive UTC datetimes."""
    return datetime.datetime.strptime(value, "%Y%m%d%H%M%SZ")


def ca_files(pki_dir, cert_path, key_path):
    """The CA in use, {brought, cert, key}: the one the inventory brings (cert_path and key_path, set together;
    preflight checks that), else the one the role keeps in pki_dir/ca/."""
    if cert_path:
        return {"brought": True, "cert": cert_path, "key": key_path}
    return {"brought": False, "cert": f"{pki_dir}/ca/cert.pem", "key": f"{pki_dir}/ca/key.pem"}


def sans(names):
    """The subject alternative names for a host's names, in order and without repeats: a name with a SAN type
    prefix (DNS:, IP:, ...) is kept as it is, a bare IPv4 or IPv6 address becomes IP: (written as the
    certificate will show it), any other name DNS:; blank names are dropped."""
    result = []
    for name in (str(n).strip() for n in names):
        if name and not name.startswith(SAN_TYPES):
            try:
                name = f"IP:{ipaddress.ip_address(name)}"
            except ValueError:
                name = f"DNS:{name}"
        if name and name not in result:
            result.append(name)
    return result


def key_is(key, wanted):
    """Whether a host's key.pem (key: its openssl_privatekey_info) is the kind the settings ask for (wanted:
    the role's {type, curve | size}). The role runs openssl_privatekey only when it is not (or there is none);
    that module would keep it then, so a rerun skips a module run per host."""
    public = key["public_data"]
    return key["type"] == wanted["type"] and all(
        public.get(field) == wanted[field] for field in ("curve", "size") if field in wanted)


def ca_problems(ca, ca_key, now):
    """Why the CA cannot issue the hosts' certificates, [] when it can: ca (its certificate) is not a CA
    certificate or has expired at now, or ca_key (the key the inventory brings with it; None for the key the
    role made it with) is another key."""
    problems = []
    if "CA:TRUE" not in (ca["basic_constraints"] or []):
        problems.append(f"it is not a CA certificate (basic constraints {ca['basic_constraints']})")
    if _asn1_time(ca["not_after"]) <= now:
        problems.append(f"it expired {ca['not_after']}")
    if ca_key is not None and ca_key["public_key"] != ca["public_key"]:
        problems.append("its key file holds another key")
    return problems


def renewal_due(cert, now, renew_before_days, validity_days, ca):
    """Whether a certificate (None: there is none) is renewed, with a new key: it ends within renew_before_days, and
    one issued now would end later (not when its CA ends first: that is the CA's rotation, rotate_ca.yml)."""
    return (cert is not None and ca is not None
            and _asn1_time(cert["not_after"]) - now < datetime.timedelta(days=int(renew_before_days))
            and not_after(now, validity_days, ca) > cert["not_after"])


def not_after(now, validity_days, ca):
    """When a certificate issued now ends: validity_days from now, but never after its CA (which would leave the
    host with a certificate no client can check the day the CA ends). community.crypto's ASN.1 time."""
    end = min(now + datetime.timedelta(days=int(validity_days)), _asn1_time(ca["not_after"]))
    return end.strftime("%Y%m%d%H%M%SZ")


def kept_certificates(pki_dir, brought_ca=""):
    """The certificate files the pki role keeps in pki_dir, in order: the CA in use (or the one the inventory brings,
    kafka_pki_ca_cert_path), every host's, the kit's admin certificate in use (read on the controller, where filters
    run)."""
    root = pathlib.Path(pki_dir)
    found = [pathlib.Path(brought_ca) if brought_ca else root / "ca" / "cert.pem",
             *sorted((root / "hosts").glob("*/cert.pem")), root / "admin/current/cert.pem"]
    return [str(path) for path in found if path.is_file()]


def admin_generations(pki_dir):
    """The generations of the kit's admin certificate in pki_dir/admin/g<N>/ (sorted), which the brokers and
    controllers accept; [] when there is none yet."""
    return sorted(int(path.parent.name[1:]) for path in pathlib.Path(pki_dir, "admin").glob("g*/cert.pem")
                  if path.parent.name[1:].isdigit())


def admin_current(pki_dir):
    """The generation admin/current links to (the one the kit's clients use), or None."""
    link = pathlib.Path(pki_dir, "admin", "current")
    name = link.resolve().name if link.is_symlink() else ""
    return int(name[1:]) if name[:1] == "g" and name[1:].isdigit() else None


def expiry_report(certs, now, renew_before_days):
    """What an operator must act on, from certs {label: certificate info}: {"expired": [...], "due": [...]}, one line
    each, soonest first. Due: within renew_before_days (site.yml renews a host's; a CA's needs rotate_ca.yml)."""
    report = {"expired": [], "due": []}
    for label, cert in sorted(certs.items(), key=lambda item: item[1]["not_after"]):
        left = _asn1_time(cert["not_after"]) - now
        if left <= datetime.timedelta(0):
            report["expired"].append(f"{label} expired {cert['not_after']}")
        elif left < datetime.timedelta(days=int(renew_before_days)):
            report["due"].append(f"{label} ends {cert['not_after']}, in {left.days} days")
    return report


def reissue_reasons(cert, csr, ca, now, renew_before_days, validity_days):
    """Why this host's certificate must be (re)issued, [] when it is kept. cert: its cert.pem, None when there
    is none; csr: the request made from its key.pem and the current settings, None when check mode could not
    make one (the key is still to be made or changes); ca: the CA's certificate, None when check mode has yet
    to make the CA. Without a certificate, a CA or a request there is nothing to compare: that is the reason."""
    if cert is None:
        return ["no certificate yet"]
    if ca is None:
        return ["a new CA"]
    if csr is None:
        return ["a new private key"]
    reasons = []
    if cert["public_key"] != csr["public_key"]:
        reasons.append("its key is not key.pem")
    if renewal_due(cert, now, renew_before_days, validity_days, ca):
        reasons.append(f"it expires {cert['not_after']}, within kafka_pki_renew_before_days ({renew_before_days})")
    if cert["subject_alt_name"] != csr["subject_alt_name"]:
        reasons.append(f"its names {', '.join(cert['subject_alt_name'] or ['(none)'])} are not "
                       f"{', '.join(csr['subject_alt_name'] or ['(none)'])}")
    if any(cert[field] != csr[field] for field in REQUESTED):
        reasons.append("its subject or usages changed")
    if not issued_by(cert, ca):
        reasons.append("the current CA did not issue it")
    return reasons


def issued_by(cert, ca):
    """Whether ca issued cert: the issuer's name, and its key identifier when the CA has one (a CA remade under
    the same name differs there)."""
    return cert["issuer_ordered"] == ca["subject_ordered"] and (
        not ca["subject_key_identifier"] or cert["authority_key_identifier"] == ca["subject_key_identifier"])


def _covers(san, name):
    """Whether a SAN (DNS:*.example.com, DNS:host, IP:10.0.0.1) covers a name given as the host's SANs would be."""
    if san == name:
        return True
    kind, _, pattern = san.partition(":")
    name_kind, _, host = name.partition(":")
    return (kind == name_kind == "DNS" and pattern.startswith("*.") and "." in host
            and host.split(".", 1)[1].lower() == pattern[2:].lower())


def tls_file_problems(host, cert, key, cas, names, now):
    """Why a host's TLS files (cert: its certificate, key: its private key, cas: the CAs of the truststore, as
    community.crypto's info filters read them) must not be installed, [] when they may: names (what clients
    reach it by: its advertised name, its address) not all covered by the certificate's SANs, a certificate
    not valid at now, a key that is not the certificate's, a certificate no CA of the truststore issued (during
    a CA rotation the truststore holds two)."""
    problems = []
    own = cert["subject_alt_name"] or []
    missing = [name for name in sans(names) if not any(_covers(san, name) for san in own)]
    if missing:
        problems.append(f"the certificate of {host} does not cover {', '.join(missing)} "
                        f"(its names: {', '.join(own) or 'none'})")
    if _asn1_time(cert["not_before"]) > now:
        problems.append(f"the certificate of {host} is not valid before {cert['not_before']}")
    if _asn1_time(cert["not_after"]) <= now:
        problems.append(f"the certificate of {host} expired {cert['not_after']}")
    if key["public_key"] != cert["public_key"]:
        problems.append(f"the private key of {host} is not the key of its certificate")
    if not any(issued_by(cert, ca) for ca in cas):
        problems.append(f"the certificate of {host} was not issued by the CA of its truststore "
                        f"({'; '.join(distinguished_name(ca['subject_ordered']) for ca in cas) or 'none'}; "
                        f"issuer: {distinguished_name(cert['issuer_ordered'])})")
    return problems


def distinguished_name(ordered):
    return ",".join(f"{k}={v}" for k, v in ordered or []) or "(empty)"
