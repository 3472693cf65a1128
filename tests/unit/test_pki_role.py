"""The pki role, run by ansible-playbook on this machine without the lab: two fake hosts (ansible_connection
local), the PKI in tmp_path, and what it made read back with the cryptography package."""

import datetime
import json
import os
import pathlib
import stat

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from cryptography.x509.verification import PolicyBuilder, Store, VerificationError

from lab import ansible
from lab.config import REPO, ROOT

HOSTS = {
    "kafka-a": {"ansible_host": "192.0.2.11", "kafka_advertised_host": "kafka-a.example.test"},
    "kafka-b": {"ansible_host": "192.0.2.12", "kafka_advertised_host": "kafka-b.example.test"},
}
CA_PASSPHRASE = "a-passphrase-for-the-test-ca"
PLAYBOOK = """\
- name: Issue the PKI on the controller
  hosts: all
  gather_facts: false
  roles:
    - role: kafkaops.toolkit.pki
"""


NEXT_CA_PLAYBOOK = """\
- name: Make the next CA as rotate_ca.yml does
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Make it
      ansible.builtin.include_role:
        name: kafkaops.toolkit.pki
        tasks_from: next_ca
"""


def run_role(tmp_path, *, check=False, host_vars=None, playbook=PLAYBOOK, fails=False, groups=None, localhost=False,
             **role_vars):
    """ansible-playbook with the role on HOSTS (plus host_vars per host; groups: {group: [host]}; localhost: the
    controller machine too, as the plays that configure a cluster have it) and role_vars as extra vars.
    Returns the recap's changed count per host and what the role showed per host (with fails, the output of
    the run, which must fail)."""
    hosts = {host: {"ansible_connection": "local", **names, **(host_vars or {}).get(host, {})}
             for host, names in HOSTS.items()}
    if localhost:
        hosts["localhost"] = {"ansible_connection": "local",
                              "ansible_python_interpreter": "{{ ansible_playbook_python }}"}
    inventory = {"all": {"hosts": hosts,
                         "children": {group: {"hosts": {h: {} for h in members}}
                                      for group, members in (groups or {}).items()}}}
    (tmp_path / "inventory.yml").write_text(json.dumps(inventory))  # JSON is YAML
    (tmp_path / "play.yml").write_text(playbook)
    (tmp_path / "vars.json").write_text(json.dumps({"kafka_pki_dir": str(tmp_path / "pki"),
                                                    "kafka_pki_ca_key_passphrase": CA_PASSPHRASE, **role_vars}))
    # Not the caller's ANSIBLE_* settings: the run reads the JSON callback's output.
    env = ansible.environment({k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")},
                              ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_NOCOLOR="1")
    proc = ansible.playbook("play.yml", "-i", "inventory.yml", "-e", "@vars.json", check=check, env=env, cwd=tmp_path,
                            timeout=300)
    if fails:
        assert proc.returncode != 0
        return proc.stdout + proc.stderr
    assert proc.returncode == 0, f"failed: {failures(proc.stdout) or proc.stdout[-3000:]}\n{proc.stderr}"
    result = json.loads(proc.stdout)
    shown = {host: outcome["msg"] for play in result["plays"] for task in play["tasks"]
             if task["task"]["name"].endswith(" : Show what was issued") for host, outcome in task["hosts"].items()}
    changed = {host: counts["changed"] for host, counts in result["stats"].items()}
    return changed, shown, proc.stdout + proc.stderr


def failures(stdout):
    """The failed tasks of a run, with their messages (censored where the task had no_log)."""
    try:
        plays = json.loads(stdout)["plays"]
    except (ValueError, KeyError):
        return []
    return [(task["task"]["name"], host, outcome.get("msg") or outcome.get("censored"))
            for play in plays for task in play["tasks"] for host, outcome in task["hosts"].items()
            if outcome.get("failed")]


def cert(path):
    return x509.load_pem_x509_certificate(path.read_bytes())


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def sans(certificate):
    names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return sorted([f"DNS:{n}" for n in names.get_values_for_type(x509.DNSName)]
                  + [f"IP:{a}" for a in names.get_values_for_type(x509.IPAddress)])


def lifetime(certificate):
    return certificate.not_valid_after_utc - certificate.not_valid_before_utc


def days(n):
    """A lifetime of n days, give or take the time between the two timestamps the module takes (3 s seen on a loaded
    machine; a minute is still far from any other validity)."""
    return lambda span: abs(span - datetime.timedelta(days=n)) <= datetime.timedelta(seconds=60)


def files(directory):
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def verifies(chain_pem, trusted, host):
    """Whether a TLS client trusting only the CA certificates `trusted` accepts the chain a host presents
    (cryptography's verifier, which enforces path length constraints as OpenSSL does)."""
    chain = x509.load_pem_x509_certificates(chain_pem)
    verifier = PolicyBuilder().store(Store(trusted)).build_server_verifier(
        x509.DNSName(HOSTS[host]["kafka_advertised_host"]))
    try:
        verifier.verify(chain[0], chain[1:])
        return True
    except VerificationError:
        return False


def make_user_ca(directory, passphrase):
    """A CA made elsewhere: EC P-256, its key encrypted with passphrase."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Corporate Kafka CA")])
    now = datetime.datetime.now(datetime.timezone.utc)
    ca = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
          .serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=900))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
          .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .sign(key, hashes.SHA256()))
    directory.mkdir()
    (directory / "ca.crt").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (directory / "ca.key").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(passphrase.encode())))
    os.chmod(directory / "ca.key", 0o600)
    return ca


def expected_sans(host, *extra):
    names = HOSTS[host]
    return sorted([f"DNS:{names['kafka_advertised_host']}", f"DNS:{host}", f"IP:{names['ansible_host']}", *extra])


def test_the_role_makes_a_ca_and_a_certificate_per_host_and_a_second_run_changes_nothing(tmp_path):
    pki = tmp_path / "pki"
    changed, shown, _ = run_role(tmp_path, kafka_pki_ca_validity_days=800, kafka_pki_host_validity_days=90)

    ca = cert(pki / "ca" / "cert.pem")
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is True
    assert ca.subject == ca.issuer and days(800)(lifetime(ca))
    assert mode(pki / "ca" / "key.pem") == 0o600 and mode(pki / "ca" / "cert.pem") == 0o644
    ca_key = (pki / "ca" / "key.pem").read_bytes()
    assert b"ENCRYPTED" in ca_key  # with kafka_pki_ca_key_passphrase
    assert serialization.load_pem_private_key(ca_key, CA_PASSPHRASE.encode()).public_key() == ca.public_key()
    for host in HOSTS:
        host_dir = pki / "hosts" / host
        issued = cert(host_dir / "cert.pem")
        issued.verify_directly_issued_by(ca)
        assert sans(issued) == expected_sans(host)
        assert issued.subject.rfc4514_string() == f"CN={HOSTS[host]['kafka_advertised_host']}"
        assert days(90)(lifetime(issued))
        key = serialization.load_pem_private_key((host_dir / "key.pem").read_bytes(), None)
        assert key.public_key() == issued.public_key()
        assert (host_dir / "key.pem").read_text().startswith("-----BEGIN PRIVATE KEY-----")  # PKCS#8
        assert mode(host_dir / "key.pem") == 0o600 and mode(host_dir / "cert.pem") == 0o644
        assert (host_dir / "ca.pem").read_bytes() == (pki / "ca" / "cert.pem").read_bytes()
        assert shown[host].startswith(f"issued {host_dir}/cert.pem") and shown[host].endswith("no certificate yet")
        assert changed[host] > 0
    before = files(pki)

    changed, shown, _ = run_role(tmp_path, kafka_pki_ca_validity_days=800, kafka_pki_host_validity_days=90)
    assert changed == {"kafka-a": 0, "kafka-b": 0}
    assert files(pki) == before
    assert all(shown[host].startswith(f"kept {pki}/hosts/{host}/cert.pem") for host in HOSTS)


def test_members_carry_the_marker_and_the_controller_machine_gets_the_admin_certificate(tmp_path):
    """A broker's certificate carries the member marker, any other host's its name alone; the controller machine's
    run issues the kit's admin certificate of generation 1, linked as admin/current; a rerun changes nothing."""
    pki = tmp_path / "pki"
    run_role(tmp_path, groups={"kafka_broker": ["kafka-a"]}, localhost=True, kafka_cluster_name="prod")
    assert cert(pki / "hosts/kafka-a/cert.pem").subject.rfc4514_string() == \
        "CN=kafka-a.example.test,OU=kafkaops-member,O=prod"
    assert cert(pki / "hosts/kafka-b/cert.pem").subject.rfc4514_string() == "CN=kafka-b.example.test"
    admin = cert(pki / "admin/current/cert.pem")
    assert (pki / "admin/current").resolve() == pki / "admin/g1"
    assert admin.subject.rfc4514_string() == "CN=kafkaops-admin,OU=kafkaops-admin-g1,O=prod"
    admin.verify_directly_issued_by(cert(pki / "ca/cert.pem"))
    key = serialization.load_pem_private_key((pki / "admin/g1/key.pem").read_bytes(), None)
    assert key.public_key() == admin.public_key() and mode(pki / "admin/g1/key.pem") == 0o600
    before = files(pki)

    changed, _, _ = run_role(tmp_path, groups={"kafka_broker": ["kafka-a"]}, localhost=True, kafka_cluster_name="prod")
    assert changed == {"kafka-a": 0, "kafka-b": 0, "localhost": 0}
    assert files(pki) == before


def test_check_mode_shows_what_it_would_issue_and_writes_nothing(tmp_path):
    """Nothing but the kit's own passwords, which ansible.builtin.password makes whenever they are read (the
    connection role's argument spec reads them), check mode or not."""
    changed, shown, _ = run_role(tmp_path, check=True)
    assert [p.name for p in (tmp_path / "pki").iterdir()] == ["credentials"]
    for host in HOSTS:
        assert shown[host].startswith(f"would issue {tmp_path}/pki/hosts/{host}/cert.pem for DNS:")
        assert shown[host].endswith(": no certificate yet")
        assert changed[host] > 0


def test_a_certificate_near_its_end_is_reissued_by_the_same_ca_with_a_new_key(tmp_path):
    pki = tmp_path / "pki"
    run_role(tmp_path, kafka_pki_host_validity_days=10, kafka_pki_renew_before_days=5, kafka_pki_ca_validity_days=800)
    assert days(10)(lifetime(cert(pki / "hosts" / "kafka-a" / "cert.pem")))
    ca_files, keys = files(pki / "ca"), {host: (pki / "hosts" / host / "key.pem").read_bytes() for host in HOSTS}

    # 10 days left, renewal 30 days ahead (the default). Other CA settings change nothing: the CA is kept.
    changed, shown, _ = run_role(tmp_path, kafka_pki_ca_common_name="Another name", kafka_pki_ca_validity_days=20)
    assert files(pki / "ca") == ca_files
    for host in HOSTS:
        issued = cert(pki / "hosts" / host / "cert.pem")
        assert days(365)(lifetime(issued))
        issued.verify_directly_issued_by(cert(pki / "ca" / "cert.pem"))
        assert (pki / "hosts" / host / "key.pem").read_bytes() != keys[host]  # a renewal comes with a new key
        key = serialization.load_pem_private_key((pki / "hosts" / host / "key.pem").read_bytes(), None)
        assert key.public_key() == issued.public_key()
        assert "within kafka_pki_renew_before_days (30)" in shown[host] and changed[host] > 0


def test_the_ca_the_role_makes_needs_a_passphrase_and_an_earlier_plain_key_is_encrypted_in_place(tmp_path):
    output = run_role(tmp_path, fails=True, kafka_pki_ca_key_passphrase="")
    assert "keeps its key encrypted with kafka_pki_ca_key_passphrase, at least 16 characters" in output
    assert not (tmp_path / "pki" / "ca").exists()

    # The CA an earlier version made: its key in clear
    pki = tmp_path / "pki"
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Kafka cluster CA")])
    now = datetime.datetime.now(datetime.timezone.utc)
    ca = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=900))
          .add_extension(x509.BasicConstraints(ca=True, path_length=1), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
          .sign(key, hashes.SHA256()))
    (pki / "ca").mkdir(parents=True)
    (pki / "ca" / "cert.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (pki / "ca" / "key.pem").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    run_role(tmp_path)
    encrypted = (pki / "ca" / "key.pem").read_bytes()
    assert serialization.load_pem_private_key(encrypted, CA_PASSPHRASE.encode()).public_key() == key.public_key()
    assert mode(pki / "ca" / "key.pem") == 0o600
    for host in HOSTS:
        cert(pki / "hosts" / host / "cert.pem").verify_directly_issued_by(ca)


EXPIRY_PLAYBOOK = """\
- name: Check the certificates as cluster_summary.yml does
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Check them
      ansible.builtin.include_role:
        name: kafkaops.toolkit.pki
        tasks_from: expiry
"""


def test_the_expiry_check_warns_within_the_window_and_fails_on_an_ended_certificate(tmp_path):
    pki = tmp_path / "pki"
    run_role(tmp_path, kafka_pki_host_validity_days=20, kafka_pki_renew_before_days=5)
    _, _, output = run_role(tmp_path, playbook=EXPIRY_PLAYBOOK, localhost=True, kafka_pki_renew_before_days=5)
    assert "Certificates ending within" not in output  # 20 days left
    _, _, output = run_role(tmp_path, playbook=EXPIRY_PLAYBOOK, localhost=True, kafka_pki_renew_before_days=30)
    assert "Certificates ending within kafka_pki_renew_before_days (30)" in output
    assert f"{pki}/hosts/kafka-a/cert.pem ends " in output and "ca/cert.pem" not in output.split("Certificates")[1]

    ended = certificates_ended(pki / "ca")
    (pki / "hosts" / "kafka-b" / "cert.pem").write_bytes(ended)
    output = run_role(tmp_path, playbook=EXPIRY_PLAYBOOK, localhost=True, fails=True)
    assert f"Certificates that have ended, which clients refuse: {pki}/hosts/kafka-b/cert.pem expired" in output


def certificates_ended(ca_dir):
    """A certificate from the CA in ca_dir that ended yesterday (PEM)."""
    ca = cert(ca_dir / "cert.pem")
    ca_key = serialization.load_pem_private_key((ca_dir / "key.pem").read_bytes(), CA_PASSPHRASE.encode())
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    ended = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ended")]))
             .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - datetime.timedelta(days=10)).not_valid_after(now - datetime.timedelta(days=1))
             .sign(ca_key, hashes.SHA256()))
    return ended.public_bytes(serialization.Encoding.PEM)


def test_a_host_certificate_never_outlives_its_ca(tmp_path):
    pki = tmp_path / "pki"
    run_role(tmp_path, kafka_pki_ca_validity_days=100, kafka_pki_host_validity_days=365)
    ca = cert(pki / "ca" / "cert.pem")
    for host in HOSTS:
        assert cert(pki / "hosts" / host / "cert.pem").not_valid_after_utc == ca.not_valid_after_utc


def test_a_certificate_whose_names_changed_is_reissued_with_exactly_the_new_names(tmp_path):
    pki = tmp_path / "pki"
    run_role(tmp_path)
    kept = (pki / "hosts" / "kafka-b" / "cert.pem").read_bytes()

    extra = {"kafka-a": {"kafka_pki_extra_sans": ["kafka.example.test", "198.51.100.7", "2001:db8::7"]}}
    changed, shown, _ = run_role(tmp_path, host_vars=extra)
    issued = cert(pki / "hosts" / "kafka-a" / "cert.pem")
    assert sans(issued) == expected_sans("kafka-a", "DNS:kafka.example.test", "IP:198.51.100.7", "IP:2001:db8::7")
    issued.verify_directly_issued_by(cert(pki / "ca" / "cert.pem"))
    assert "its names" in shown["kafka-a"] and changed["kafka-a"] > 0
    assert (pki / "hosts" / "kafka-b" / "cert.pem").read_bytes() == kept and changed["kafka-b"] == 0


def test_a_key_of_another_type_than_asked_for_is_made_again_and_its_certificate_reissued(tmp_path):
    # A rerun skips the key module for a key of the kind asked for; one of another kind must still be remade.
    pki = tmp_path / "pki"
    run_role(tmp_path)
    old_key = (pki / "hosts" / "kafka-a" / "key.pem").read_bytes()

    changed, shown, _ = run_role(tmp_path, kafka_pki_key_type="rsa-2048")
    for host in HOSTS:
        key = serialization.load_pem_private_key((pki / "hosts" / host / "key.pem").read_bytes(), None)
        assert key.key_size == 2048 and key.public_key() == cert(pki / "hosts" / host / "cert.pem").public_key()
        assert "its key is not key.pem" in shown[host] and changed[host] > 0
    assert (pki / "hosts" / "kafka-a" / "key.pem").read_bytes() != old_key


def test_a_ca_the_user_brings_is_used_and_never_replaced(tmp_path):
    pki = tmp_path / "pki"
    run_role(tmp_path)  # first with a CA the role made
    made_ca = files(pki / "ca")
    passphrase = "correct horse battery staple"
    user_ca = make_user_ca(tmp_path / "corporate", passphrase)
    brought = files(tmp_path / "corporate")

    changed, shown, output = run_role(tmp_path, kafka_pki_ca_cert_path=str(tmp_path / "corporate" / "ca.crt"),
                                      kafka_pki_ca_key_path=str(tmp_path / "corporate" / "ca.key"),
                                      kafka_pki_ca_key_passphrase=passphrase)
    assert files(tmp_path / "corporate") == brought and mode(tmp_path / "corporate" / "ca.key") == 0o600
    assert files(pki / "ca") == made_ca  # the role's own CA is neither used nor touched
    for host in HOSTS:
        issued = cert(pki / "hosts" / host / "cert.pem")
        issued.verify_directly_issued_by(user_ca)
        assert sans(issued) == expected_sans(host)
        assert (pki / "hosts" / host / "ca.pem").read_bytes() == brought["ca.crt"]
        assert "did not issue it" in shown[host] and changed[host] > 0
    assert passphrase not in output


def test_a_ca_rotation_changes_trust_then_certificates_then_trust_and_the_chain_bridges_old_clients(tmp_path):
    pki = tmp_path / "pki"
    run_role(tmp_path)
    old = cert(pki / "ca" / "cert.pem")
    assert old.extensions.get_extension_for_class(x509.BasicConstraints).value.path_length == 1
    before = {host: (pki / "hosts" / host / "cert.pem").read_bytes() for host in HOSTS}

    run_role(tmp_path, playbook=NEXT_CA_PLAYBOOK)
    new, cross = cert(pki / "ca-next" / "cert.pem"), cert(pki / "ca-next" / "cross-signed.pem")
    assert new.subject != old.subject and new.subject == new.issuer  # its own name, self-signed
    cross.verify_directly_issued_by(old)  # the next CA's name and key, signed by the old CA
    assert cross.subject == new.subject and cross.public_key() == new.public_key()
    made = files(pki / "ca-next")
    run_role(tmp_path, playbook=NEXT_CA_PLAYBOOK)
    assert files(pki / "ca-next") == made  # kept once made

    # While ca-next exists, only a rotation's phase may issue or set trust.
    assert "A CA rotation is under way" in run_role(tmp_path, fails=True)

    pem = {name: (pki / name / "cert.pem").read_bytes() for name in ("ca", "ca-next")}
    run_role(tmp_path, kafka_pki_ca_rotation_phase="trust-both")
    for host in HOSTS:
        host_dir = pki / "hosts" / host
        assert (host_dir / "ca.pem").read_bytes() == pem["ca"] + pem["ca-next"]
        assert (host_dir / "cert.pem").read_bytes() == before[host] == (host_dir / "chain.pem").read_bytes()

    changed, shown, _ = run_role(tmp_path, kafka_pki_ca_rotation_phase="reissue")
    for host in HOSTS:
        host_dir = pki / "hosts" / host
        issued = cert(host_dir / "cert.pem")
        issued.verify_directly_issued_by(new)
        assert "the current CA did not issue it" in shown[host]
        assert (host_dir / "chain.pem").read_bytes() == (host_dir / "cert.pem").read_bytes() + cross.public_bytes(
            serialization.Encoding.PEM)
        assert (host_dir / "ca.pem").read_bytes() == pem["ca"] + pem["ca-next"]
        # A client that trusts only the old CA still accepts the host (through the cross-signed next CA).
        assert verifies((host_dir / "chain.pem").read_bytes(), [old], host)
        assert verifies((host_dir / "chain.pem").read_bytes(), [new], host)
    reissued = {host: (pki / "hosts" / host / "cert.pem").read_bytes() for host in HOSTS}

    changed, _, _ = run_role(tmp_path, kafka_pki_ca_rotation_phase="drop-old")
    for host in HOSTS:
        host_dir = pki / "hosts" / host
        assert (host_dir / "ca.pem").read_bytes() == pem["ca-next"]
        assert (host_dir / "cert.pem").read_bytes() == reissued[host] == (host_dir / "chain.pem").read_bytes()
        assert verifies((host_dir / "chain.pem").read_bytes(), [new], host)
        assert not verifies((host_dir / "chain.pem").read_bytes(), [old], host)  # the old CA is gone


def test_the_lab_keeps_its_pki_under_the_lab_root():
    group_vars = yaml.safe_load((REPO / "inventories" / "lab" / "group_vars" / "all.yml").read_text())
    assert pathlib.Path(group_vars["kafka_pki_dir"]).is_relative_to(ROOT)
