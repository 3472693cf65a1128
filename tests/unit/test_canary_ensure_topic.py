"""ensure_topic as a principal that may not create topics: a topic the kit's admin just made may be missing from
this broker's metadata for a moment (its create is denied, then the topic is there); a topic that never appears
ends in TopicNotAllowed."""

from types import SimpleNamespace

import pytest
from confluent_kafka import KafkaError, KafkaException

import canary
from canary import TopicNotAllowed, ensure_topic


class DeniedFuture:
    def result(self, timeout):
        raise KafkaException(KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED))


class Admin:
    """Metadata that knows the topic from the `appears_at`-th read on (None: never); every create is denied."""

    def __init__(self, appears_at):
        self.appears_at, self.reads, self.creates = appears_at, 0, 0

    def list_topics(self, topic, timeout):
        self.reads += 1
        if self.appears_at is None or self.reads < self.appears_at:
            return SimpleNamespace(topics={})
        partition = SimpleNamespace(leader=1)
        return SimpleNamespace(topics={topic: SimpleNamespace(error=None, partitions={0: partition, 1: partition})})

    def create_topics(self, topics):
        self.creates += 1
        return {topics[0].topic: DeniedFuture()}


@pytest.fixture
def admin(monkeypatch):
    made = {}
    monkeypatch.setattr(canary, "AdminClient", lambda conf: made.setdefault("admin", made["next"]))
    monkeypatch.setattr(canary.time, "sleep", lambda s: None)
    return made


def test_a_denied_create_of_a_topic_this_broker_does_not_know_yet_waits_for_it(admin):
    admin["next"] = Admin(appears_at=3)
    assert ensure_topic({}, "canary-t") == 2
    assert admin["admin"].creates == 2


def test_a_topic_that_never_appears_is_not_allowed(admin):
    admin["next"] = Admin(appears_at=None)
    with pytest.raises(TopicNotAllowed, match="create it as the kit's admin first"):
        ensure_topic({}, "canary-t", timeout=0.05)
    assert admin["admin"].creates >= 1
