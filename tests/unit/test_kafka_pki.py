"""The pki role's decisions (module_utils/kafka_pki) on hand-written info dicts: only the keys each function
reads, shaped as community.crypto's x509_certificate_info / openssl_csr_info / openssl_privatekey_info
return them."""

import datetime

import pytest

from ansible_collections.kafkaops.toolkit.plugins.module_utils.kafka_pki import (
    admin_generations,
    ca_files,
    ca_problems,
    expiry_report,
    kept_certificates,
    key_is,
    not_after,
    reissue_reasons,
    renewal_due,
    sans,
    tls_file_problems,
)

NOW = datetime.datetime(2025, 6, 1, 12, 0, 0)  # naive UTC, as now(utc=true)
CA = {"subject_ordered": [["commonName", "Kafka cluster CA"]], "subject_key_identifier": "aa:bb:01",
      "basic_constraints": ["CA:TRUE", "pathlen:0"], "not_after": "20350601120000Z", "public_key": "CA-KEY"}
CSR = {"public_key": "HOST-KEY", "subject_alt_name": ["DNS:kafka-a.example.test", "DNS:kafka-a", "IP:192.0.2.11"],
       "subject_ordered": [["commonName", "kafka-a.example.test"]], "basic_constraints": ["CA:FALSE"],
       "key_usage": ["Digital Signature"],
       "extended_key_usage": ["TLS Web Server Authentication", "TLS Web Client Authentication"]}
# The certificate the CA issued for that request, a year to go.
CERT = {**CSR, "not_after": "20260601120000Z", "issuer_ordered": [["commonName", "Kafka cluster CA"]],
        "authority_key_identifier": "aa:bb:01"}


# reissue_reasons

def test_a_certificate_issued_by_the_ca_for_this_request_and_far_from_its_end_is_kept():
    assert reissue_reasons(CERT, CSR, CA, NOW, 30, 365) == []


def test_a_host_without_a_certificate_gets_one_and_nothing_else_is_compared():
    assert reissue_reasons(None, CSR, CA, NOW, 30, 365) == ["no certificate yet"]
    assert reissue_reasons(None, None, None, NOW, 30, 365) == ["no certificate yet"]


def test_a_ca_still_to_be_made_means_a_new_certificate():
    assert reissue_reasons(CERT, None, None, NOW, 30, 365) == ["a new CA"]


def test_a_key_still_to_be_made_means_a_new_certificate():
    assert reissue_reasons(CERT, None, CA, NOW, 30, 365) == ["a new private key"]


def test_a_certificate_for_another_key():
    assert reissue_reasons({**CERT, "public_key": "OLD-KEY"}, CSR, CA, NOW, 30, 365) == ["its key is not key.pem"]


def test_a_certificate_within_the_renewal_window():
    expiring = {**CERT, "not_after": "20250701115959Z"}  # a second less than 30 days to go
    assert reissue_reasons(expiring, CSR, CA, NOW, 30, 365) == [
        "it expires 20250701115959Z, within kafka_pki_renew_before_days (30)"]
    assert reissue_reasons(expiring, CSR, CA, NOW, "29", 365) == []
    assert reissue_reasons({**CERT, "not_after": "20250701120000Z"}, CSR, CA, NOW, 30, 365) == []  # 30 days exactly


def test_a_renewal_is_due_within_the_window_only():
    assert renewal_due({**CERT, "not_after": "20250701115959Z"}, NOW, 30, 365, CA)
    assert not renewal_due({**CERT, "not_after": "20250701120000Z"}, NOW, 30, 365, CA)
    assert not renewal_due(None, NOW, 30, 365, CA)


def test_no_renewal_while_the_ca_ends_first_that_is_the_cas_rotation():
    ca_ending = {**CA, "not_after": "20250620000000Z"}
    capped = {**CERT, "not_after": "20250620000000Z"}  # issued up to the CA's end
    assert not renewal_due(capped, NOW, 30, 365, ca_ending)
    assert reissue_reasons(capped, CSR, ca_ending, NOW, 30, 365) == []


def test_a_certificate_never_ends_after_its_ca():
    assert not_after(NOW, 365, CA) == "20260601120000Z"
    assert not_after(NOW, 365, {**CA, "not_after": "20251224000000Z"}) == "20251224000000Z"


def test_an_expired_certificate_is_within_any_renewal_window():
    assert reissue_reasons({**CERT, "not_after": "20250101000000Z"}, CSR, CA, NOW, 0, 365) == [
        "it expires 20250101000000Z, within kafka_pki_renew_before_days (0)"]


def test_a_certificate_for_other_names():
    old = {**CERT, "subject_alt_name": ["DNS:kafka-a.example.test", "DNS:kafka-a"]}
    assert reissue_reasons(old, CSR, CA, NOW, 30, 365) == [
        "its names DNS:kafka-a.example.test, DNS:kafka-a are not DNS:kafka-a.example.test, DNS:kafka-a, IP:192.0.2.11"]
    assert reissue_reasons({**CERT, "subject_alt_name": None}, CSR, CA, NOW, 30, 365) == [
        "its names (none) are not DNS:kafka-a.example.test, DNS:kafka-a, IP:192.0.2.11"]


@pytest.mark.parametrize("field, old", [
    ("subject_ordered", [["commonName", "kafka-a"]]),
    ("basic_constraints", None),
    ("key_usage", ["Digital Signature", "Key Encipherment"]),  # made for an RSA key
    ("extended_key_usage", ["TLS Web Server Authentication"]),
])
def test_a_certificate_with_another_subject_or_usages(field, old):
    assert reissue_reasons({**CERT, field: old}, CSR, CA, NOW, 30, 365) == ["its subject or usages changed"]


def test_a_certificate_from_another_ca():
    other_name = {**CERT, "issuer_ordered": [["commonName", "Corporate Kafka CA"]]}
    assert reissue_reasons(other_name, CSR, CA, NOW, 30, 365) == ["the current CA did not issue it"]
    remade_ca = {**CERT, "authority_key_identifier": "cc:dd:02"}  # same name, another key
    assert reissue_reasons(remade_ca, CSR, CA, NOW, 30, 365) == ["the current CA did not issue it"]


def test_a_ca_without_a_key_identifier_is_known_by_its_name():
    ca = {**CA, "subject_key_identifier": None}
    assert reissue_reasons({**CERT, "authority_key_identifier": None}, CSR, ca, NOW, 30, 365) == []
    assert reissue_reasons({**CERT, "issuer_ordered": [["commonName", "Other CA"]]}, CSR, ca, NOW, 30, 365) == [
        "the current CA did not issue it"]


def test_every_reason_that_applies_is_given_in_order():
    old = {**CERT, "public_key": "OLD-KEY", "not_after": "20250610000000Z", "subject_alt_name": ["DNS:kafka-a"],
           "key_usage": None, "authority_key_identifier": "cc:dd:02"}
    assert reissue_reasons(old, CSR, CA, NOW, 30, 365) == [
        "its key is not key.pem",
        "it expires 20250610000000Z, within kafka_pki_renew_before_days (30)",
        "its names DNS:kafka-a are not DNS:kafka-a.example.test, DNS:kafka-a, IP:192.0.2.11",
        "its subject or usages changed",
        "the current CA did not issue it",
    ]


# key_is

EC_P256 = {"type": "ECC", "curve": "secp256r1", "usage": ["digitalSignature"]}
RSA_2048 = {"type": "RSA", "size": 2048, "usage": ["digitalSignature", "keyEncipherment"]}


def test_a_key_of_the_type_and_curve_asked_for_is_kept():
    assert key_is({"type": "ECC", "public_data": {"curve": "secp256r1", "exponent_size": 256}}, EC_P256)
    assert key_is({"type": "RSA", "public_data": {"size": 2048, "exponent": 65537}}, RSA_2048)


@pytest.mark.parametrize("key", [
    {"type": "ECC", "public_data": {"curve": "secp384r1", "exponent_size": 384}},
    {"type": "RSA", "public_data": {"size": 2048, "exponent": 65537}},
])
def test_a_key_of_another_curve_or_type_is_not(key):
    assert not key_is(key, EC_P256)


def test_an_rsa_key_of_another_size_is_not():
    assert not key_is({"type": "RSA", "public_data": {"size": 3072, "exponent": 65537}}, RSA_2048)


# sans

def test_bare_names_become_dns_and_addresses_ip_in_order():
    assert sans(["kafka-a.example.test", "kafka-a", "192.0.2.11", "2001:DB8:0::7"]) == [
        "DNS:kafka-a.example.test", "DNS:kafka-a", "IP:192.0.2.11", "IP:2001:db8::7"]


def test_names_with_a_san_type_are_kept_as_they_are():
    assert sans(["DNS:kafka.example.test", "IP:198.51.100.7", "email:ops@example.test", "URI:https://x.test/"]) == [
        "DNS:kafka.example.test", "IP:198.51.100.7", "email:ops@example.test", "URI:https://x.test/"]


def test_what_only_looks_like_an_address_is_a_name():
    assert sans(["999.1.1.1", "10.0.0"]) == ["DNS:999.1.1.1", "DNS:10.0.0"]


def test_blank_names_and_repeats_are_dropped():
    assert sans([" kafka-a ", "", "  ", "kafka-a", "DNS:kafka-a", "192.0.2.11", "IP:192.0.2.11"]) == [
        "DNS:kafka-a", "IP:192.0.2.11"]
    assert sans([]) == []


# ca_files

def test_a_ca_the_inventory_brings_is_used():
    assert ca_files("/srv/pki", "/etc/corp/ca.crt", "/etc/corp/ca.key") == {
        "brought": True, "cert": "/etc/corp/ca.crt", "key": "/etc/corp/ca.key"}


def test_without_one_the_role_keeps_its_own_in_the_pki_directory():
    assert ca_files("/srv/pki", "", "") == {"brought": False, "cert": "/srv/pki/ca/cert.pem",
                                            "key": "/srv/pki/ca/key.pem"}


# ca_problems

def test_a_valid_ca_with_its_key_can_issue():
    assert ca_problems(CA, {"public_key": "CA-KEY"}, NOW) == []
    assert ca_problems(CA, None, NOW) == []


def test_a_certificate_that_is_not_a_ca():
    assert ca_problems({**CA, "basic_constraints": ["CA:FALSE"]}, None, NOW) == [
        "it is not a CA certificate (basic constraints ['CA:FALSE'])"]
    assert ca_problems({**CA, "basic_constraints": None}, None, NOW) == [
        "it is not a CA certificate (basic constraints None)"]


def test_an_expired_ca():
    assert ca_problems({**CA, "not_after": "20250601120000Z"}, None, NOW) == ["it expired 20250601120000Z"]
    assert ca_problems({**CA, "not_after": "20250601120001Z"}, None, NOW) == []


def test_a_ca_brought_with_another_key():
    assert ca_problems(CA, {"public_key": "OTHER-KEY"}, NOW) == ["its key file holds another key"]


def test_every_ca_problem_is_given():
    ca = {**CA, "basic_constraints": None, "not_after": "20240101000000Z"}
    assert ca_problems(ca, {"public_key": "OTHER-KEY"}, NOW) == [
        "it is not a CA certificate (basic constraints None)", "it expired 20240101000000Z",
        "its key file holds another key"]


# tls_file_problems: a host's files checked before they are installed

INSTALLED = {**CERT, "not_before": "20250101000000Z"}
KEY = {"public_key": "HOST-KEY"}


def test_files_that_fit_the_host_are_installed():
    assert tls_file_problems("kafka-a", INSTALLED, KEY, [CA], ["kafka-a.example.test", "192.0.2.11"], NOW) == []


def test_a_certificate_must_cover_every_name_the_host_is_reached_by():
    names = ["kafka-b.example.test", "192.0.2.11", "10.0.0.1"]
    assert tls_file_problems("kafka-a", INSTALLED, KEY, [CA], names, NOW) == [
        "the certificate of kafka-a does not cover DNS:kafka-b.example.test, IP:10.0.0.1 (its names: "
        "DNS:kafka-a.example.test, DNS:kafka-a, IP:192.0.2.11)"]
    wildcard = {**INSTALLED, "subject_alt_name": ["DNS:*.example.test"]}
    assert tls_file_problems("kafka-a", wildcard, KEY, [CA], ["kafka-b.example.test"], NOW) == []
    assert tls_file_problems("kafka-a", wildcard, KEY, [CA], ["a.b.example.test"], NOW)  # one label only


def test_a_certificate_outside_its_validity_is_refused():
    assert tls_file_problems("h", {**INSTALLED, "not_before": "20250601120001Z"}, KEY, [CA], [], NOW) == [
        "the certificate of h is not valid before 20250601120001Z"]
    assert tls_file_problems("h", {**INSTALLED, "not_after": "20250601120000Z"}, KEY, [CA], [], NOW) == [
        "the certificate of h expired 20250601120000Z"]


def test_a_key_that_is_not_the_certificates_is_refused():
    assert tls_file_problems("h", INSTALLED, {"public_key": "OTHER"}, [CA], [], NOW) == [
        "the private key of h is not the key of its certificate"]


def test_a_certificate_from_another_ca_than_the_truststores_is_refused():
    other = {**CA, "subject_ordered": [["commonName", "Other CA"]], "subject_key_identifier": "cc:dd"}
    assert tls_file_problems("h", INSTALLED, KEY, [other], [], NOW) == [
        "the certificate of h was not issued by the CA of its truststore (commonName=Other CA; "
        "issuer: commonName=Kafka cluster CA)"]
    same_name = {**CA, "subject_key_identifier": "cc:dd"}  # a CA remade under the same name
    assert tls_file_problems("h", INSTALLED, KEY, [same_name], [], NOW)


def test_during_a_ca_rotation_a_certificate_from_either_ca_of_the_truststore_is_installed():
    other = {**CA, "subject_ordered": [["commonName", "Next CA"]], "subject_key_identifier": "cc:dd"}
    assert tls_file_problems("h", INSTALLED, KEY, [other, CA], [], NOW) == []
    assert tls_file_problems("h", INSTALLED, KEY, [other], [], NOW)


def test_the_expiry_report_names_what_ended_and_what_ends_soon_first():
    certs = {"ca": {"not_after": "20250620000000Z"}, "kafka1": {"not_after": "20250101000000Z"},
             "kafka2": {"not_after": "20260101000000Z"}, "kafka3": {"not_after": "20250610000000Z"}}
    assert expiry_report(certs, NOW, 30) == {
        "expired": ["kafka1 expired 20250101000000Z"],
        "due": ["kafka3 ends 20250610000000Z, in 8 days", "ca ends 20250620000000Z, in 18 days"]}
    assert expiry_report({"kafka2": certs["kafka2"]}, NOW, 30) == {"expired": [], "due": []}


def test_the_kept_certificates_and_admin_generations_are_read_from_the_pki_dir(tmp_path):
    for path in ("ca/cert.pem", "hosts/kafka1/cert.pem", "hosts/zk1/cert.pem", "hosts/zk2/key.pem",
                 "admin/g1/cert.pem", "admin/g2/cert.pem", "admin/gx/cert.pem", "admin/g3/key.pem"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    (tmp_path / "admin/current").symlink_to("g2")
    assert kept_certificates(str(tmp_path)) == [str(tmp_path / p) for p in (
        "ca/cert.pem", "hosts/kafka1/cert.pem", "hosts/zk1/cert.pem", "admin/current/cert.pem")]
    assert admin_generations(str(tmp_path)) == [1, 2]
    assert admin_generations(str(tmp_path / "nothing")) == [] and kept_certificates(str(tmp_path / "none")) == []
    brought = tmp_path / "corporate-ca.pem"
    brought.write_text("x")
    assert kept_certificates(str(tmp_path), str(brought))[0] == str(brought)  # the inventory's CA, not ca/'s
