"""kafka_leader_election's reading of elect_leaders' per-partition results: a partition whose preferred
replica already leads is no error, whether confluent-kafka gives a KafkaError or a KafkaException."""

from confluent_kafka import KafkaError, KafkaException, TopicPartition

from ansible_collections.kafkaops.toolkit.plugins.modules import kafka_leader_election


class FakeAdmin:
    def __init__(self, results):
        self.results = results

    def elect_leaders(self, election_type, partitions):
        return self

    def result(self, timeout):
        return self.results


def elect(monkeypatch, results):
    monkeypatch.setattr(kafka_leader_election, "admin_client", lambda params: FakeAdmin(results))
    return kafka_leader_election.elect({"request_timeout": 1}, ["t-0", "t-1", "t-2"])


def test_election_not_needed_is_no_error_in_either_form(monkeypatch):
    results = {TopicPartition("t", 0): None,
               TopicPartition("t", 1): KafkaError(KafkaError.ELECTION_NOT_NEEDED),
               TopicPartition("t", 2): KafkaException(KafkaError(KafkaError.ELECTION_NOT_NEEDED))}
    assert elect(monkeypatch, results) == {}


def test_other_errors_are_reported_per_partition(monkeypatch):
    results = {TopicPartition("t", 0): KafkaError(KafkaError.PREFERRED_LEADER_NOT_AVAILABLE),
               TopicPartition("t", 1): KafkaException(KafkaError(KafkaError.NOT_CONTROLLER)),
               TopicPartition("t", 2): None}
    assert sorted(elect(monkeypatch, results)) == ["t-0", "t-1"]
