"""Connection options become librdkafka settings; unset options are left out."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_connection


def _params(**overrides):
    params = {name: spec.get("default") for name, spec in kafka_connection.CONNECTION_ARGS.items()}
    params.update(bootstrap_servers="k1:9092", zookeeper_connect="zk1:2181/kafka", **overrides)
    return params


def test_plaintext_config_has_only_the_basics():
    assert kafka_connection.admin_config(_params()) == {
        "bootstrap.servers": "k1:9092", "security.protocol": "PLAINTEXT", "socket.timeout.ms": 15000}


def test_sasl_ssl_options_are_passed_through():
    conf = kafka_connection.admin_config(_params(security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512",
                                                 sasl_username="ops", sasl_password="s3cret",
                                                 ssl_ca_location="/etc/ca.pem"))
    assert conf["security.protocol"] == "SASL_SSL"
    assert conf["sasl.mechanism"] == "SCRAM-SHA-512"
    assert conf["sasl.username"] == "ops" and conf["sasl.password"] == "s3cret"
    assert conf["ssl.ca.location"] == "/etc/ca.pem"
    assert "ssl.key.location" not in conf


def test_options_of_another_protocol_are_left_out():
    # The connection role passes every client variable alike; the protocol decides which apply.
    everything = dict(sasl_mechanism="SCRAM-SHA-512", sasl_username="ops", sasl_password="s3cret",
                      ssl_ca_location="/etc/ca.pem")
    plain = kafka_connection.admin_config(_params(**everything))
    assert not any(key.startswith(("sasl.", "ssl.")) for key in plain)
    ssl_only = kafka_connection.admin_config(_params(security_protocol="SSL", **everything))
    assert ssl_only["ssl.ca.location"] == "/etc/ca.pem" and "sasl.password" not in ssl_only
    sasl_only = kafka_connection.admin_config(_params(security_protocol="SASL_PLAINTEXT", **everything))
    assert sasl_only["sasl.username"] == "ops" and "ssl.ca.location" not in sasl_only


def test_java_properties_carry_the_scram_login_and_the_pem_truststore():
    conf = kafka_connection.admin_config(_params(security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512",
                                                 sasl_username="ops", sasl_password='a"b\\c',
                                                 ssl_ca_location="/etc/ca.pem"))
    assert kafka_connection.java_client_properties(conf) == {
        "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                            'username="ops" password="a\\"b\\\\c";',
        "ssl.truststore.type": "PEM", "ssl.truststore.location": "/etc/ca.pem",
        "ssl.endpoint.identification.algorithm": "https"}
    assert kafka_connection.java_client_properties(kafka_connection.admin_config(_params())) == {
        "security.protocol": "PLAINTEXT"}


def test_java_properties_carry_a_client_certificate_as_pem_text(tmp_path):
    (tmp_path / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n")
    (tmp_path / "chain.pem").write_text("-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----\n")
    conf = kafka_connection.admin_config(_params(security_protocol="SSL", ssl_ca_location="/etc/ca.pem",
                                                 ssl_certificate_location=str(tmp_path / "chain.pem"),
                                                 ssl_key_location=str(tmp_path / "key.pem")))
    props = kafka_connection.java_client_properties(conf)
    assert props["ssl.keystore.type"] == "PEM"
    assert props["ssl.keystore.key"] == "-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----"
    assert props["ssl.keystore.certificate.chain"].startswith("-----BEGIN CERTIFICATE-----\nCERT")
    # a .properties file keeps each value on its line: Java reads the escaped line breaks back
    text = kafka_connection.properties_text(props)
    assert "ssl.keystore.key=-----BEGIN PRIVATE KEY-----\\nKEY\\n-----END PRIVATE KEY-----\n" in text
    assert len(text.splitlines()) == len(props)
    # a SASL login takes no certificate (a kit between two layouts has its password before its certificate)
    sasl = kafka_connection.admin_config(_params(security_protocol="SASL_SSL", ssl_ca_location="/etc/ca.pem",
                                                 ssl_certificate_location="/nowhere/chain.pem",
                                                 ssl_key_location="/nowhere/key.pem"))
    assert "ssl.certificate.location" not in sasl and "ssl.keystore.key" not in kafka_connection.java_client_properties(
        sasl)


def test_a_broker_without_a_plaintext_listener_is_found_at_its_first_advertised_listener():
    legacy = {"host": "k1", "port": 9092, "endpoints": ["PLAINTEXT://k1:9092"]}
    secured = {"host": None, "port": -1, "endpoints": ["CLIENT://k1.lab:9093", "BROKER://k1.lab:9094"]}
    assert kafka_connection.first_endpoint(legacy) == ("k1", 9092)
    assert kafka_connection.first_endpoint(secured) == ("k1.lab", 9093)
    assert kafka_connection.first_endpoint({"endpoints": ["CLIENT://[::1]:9093"]}) == ("::1", 9093)
    assert kafka_connection.first_endpoint({"endpoints": []}) == (None, None)


def test_a_name_that_does_not_resolve_is_permanent():
    kafka_connection.check_addresses({"bootstrap_servers": "localhost:9092,127.0.0.1:9093",
                                      "zookeeper_connect": "localhost:2181/kafka"})
    try:
        kafka_connection.check_addresses({"bootstrap_servers": "no-such-host.invalid:9092",
                                          "zookeeper_connect": "localhost:2181"})
    except kafka_connection.PermanentError as exc:
        assert "bootstrap_servers: no-such-host.invalid does not resolve" in str(exc)
        assert kafka_connection.is_permanent(exc)
    else:
        raise AssertionError("an unresolvable bootstrap server was accepted")


def test_which_client_errors_waiting_cannot_fix():
    from confluent_kafka import KafkaError, KafkaException
    assert kafka_connection.is_permanent(KafkaException(KafkaError(KafkaError._AUTHENTICATION)))
    assert not kafka_connection.is_permanent(KafkaException(KafkaError(KafkaError._TRANSPORT)))
    assert not kafka_connection.is_permanent(RuntimeError("metadata of topic t: LEADER_NOT_AVAILABLE"))


def test_an_error_without_text_is_named_by_its_type():
    import concurrent.futures
    assert kafka_connection.describe_error(concurrent.futures.TimeoutError()) == "TimeoutError"
    assert kafka_connection.describe_error(RuntimeError("broker 3 is down")) == "broker 3 is down"


class _Future:
    def __init__(self, value=None, error=None):
        self.value, self.error = value, error

    def result(self, timeout=None):
        if self.error:
            raise self.error
        return self.value


class _Entry:
    def __init__(self, value):
        self.value = value


class _Admin:
    """describe_configs as the client answers it: a future per resource; topic 'gone' was deleted."""

    def describe_configs(self, resources, request_timeout=None):
        from confluent_kafka import KafkaError, KafkaException
        answers = {}
        for r in resources:
            if r.name == "gone":
                answers[r] = _Future(error=KafkaException(KafkaError(KafkaError.UNKNOWN_TOPIC_OR_PART)))
            elif r.name == "broken":
                answers[r] = _Future(error=KafkaException(KafkaError(KafkaError._TIMED_OUT)))
            else:
                answers[r] = _Future({"min.insync.replicas": _Entry("2"),
                                      "unclean.leader.election.enable": _Entry("false")})
        return answers


def test_a_topic_deleted_since_it_was_listed_is_left_out_of_the_settings():
    assert kafka_connection.read_settings(_Admin(), ["gone", "kept"], [1], 5) == ({"kept": 2}, [])


def test_any_other_error_describing_a_topic_still_fails():
    from confluent_kafka import KafkaException
    try:
        kafka_connection.read_settings(_Admin(), ["broken", "kept"], [1], 5)
    except KafkaException:
        pass
    else:
        raise AssertionError("a timed-out describe was taken as a deleted topic")


def test_kazoo_gets_tls_with_the_client_certificate_and_the_sasl_login():
    params = _params(zookeeper_tls=True, zookeeper_ssl_ca_location="/ca.pem",
                     zookeeper_ssl_certificate_location="/c.pem", zookeeper_ssl_key_location="/k.pem",
                     zookeeper_sasl_username="kafka", zookeeper_sasl_password="pw")
    assert kafka_connection.kazoo_options(params) == {
        "use_ssl": True, "verify_certs": True, "check_hostname": True, "ca": "/ca.pem", "certfile": "/c.pem",
        "keyfile": "/k.pem", "sasl_options": {"mechanism": "DIGEST-MD5", "username": "kafka", "password": "pw"}}
    assert kafka_connection.kazoo_options(_params()) == {}  # an open ensemble


def test_the_zookeeper_login_is_a_jaas_client_section():
    jaas = kafka_connection.zookeeper_jaas(_params(zookeeper_sasl_username="kafka", zookeeper_sasl_password='p"w'))
    assert jaas == ('Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n'
                    '  username="kafka"\n  password="p\\"w";\n};\n')
    assert kafka_connection.zookeeper_jaas(_params()) is None


def test_listeners_read_names_protocols_and_ports_with_kafkas_defaults():
    server = {"listeners": "CLIENT://0.0.0.0:9093, REPLICATION://[::]:9091,PLAINTEXT://:9092",
              "listener.security.protocol.map": "CLIENT:SASL_SSL,REPLICATION:SSL"}
    assert kafka_connection.listeners(server) == {"CLIENT": ("SASL_SSL", 9093), "REPLICATION": ("SSL", 9091),
                                                  "PLAINTEXT": ("PLAINTEXT", 9092)}
    assert kafka_connection.listeners({}) == {"PLAINTEXT": ("PLAINTEXT", 9092)}  # Kafka's default listener
