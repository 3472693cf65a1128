"""Certificates the lab's tests need and the pki role would never issue: from another CA, expired, not yet
valid. Made with the cryptography package (Ansible's community.crypto uses it too)."""

import datetime

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from lab import config

LAB_CA = (str(config.PKI / "ca" / "cert.pem"), str(config.PKI / "ca" / "key.pem"))  # the pki role's, lab
# Its key's passphrase (the lab inventory's kafka_pki_ca_key_passphrase); None for a CA of these tests' own
PASSPHRASES = {LAB_CA[1]: config.SECRETS / "ca-passphrase"}


def _name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _pem_key(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def another_ca(folder):
    """(cert path, key path) of a new CA the cluster does not trust."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(_name("Another CA")).issuer_name(_name("Another CA"))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "another-ca.pem", folder / "another-ca-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(_pem_key(key))
    return str(cert_path), str(key_path)


def issue(folder, stem, ca, names, valid_from_days=-1, valid_for_days=30):
    """(cert path, key path) of a new key and a certificate for the DNS names, issued by ca (cert path, key
    path), valid from now + valid_from_days for valid_for_days (both may be negative)."""
    ca_cert = x509.load_pem_x509_certificate(open(ca[0], "rb").read())
    passphrase = PASSPHRASES.get(ca[1])
    password = passphrase.read_text().strip().encode() if passphrase else None
    ca_key = serialization.load_pem_private_key(open(ca[1], "rb").read(), password=password)
    key = ec.generate_private_key(ec.SECP256R1())
    start = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=valid_from_days)
    cert = (x509.CertificateBuilder().subject_name(_name(names[0])).issuer_name(ca_cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(start + datetime.timedelta(days=valid_for_days))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    cert_path, key_path = folder / f"{stem}-cert.pem", folder / f"{stem}-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(_pem_key(key))
    return str(cert_path), str(key_path)
