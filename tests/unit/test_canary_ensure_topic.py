"""ensure_topic as a principal that may not create topics: a topic the kit's admin just made may be missing from
this broker's metadata for a moment (its create is denied, then the topic is there); a topic that never appears
ends in TopicNotAllowed. Whether the topic is there is read from every topic's metadata, never by naming it (a broker
with auto.create.topics.enable creates a topic a metadata request names, with num.partitions)."""

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
        self.appears_at, self.reads, self.creates, self.named = appears_at, 0, 0, []

    def list_topics(self, topic=None, timeout=None):
        self.reads += 1
        self.named.append(topic)
        if self.appears_at is None or self.reads < self.appears_at:
            return SimpleNamespace(topics={})
        partitions = {0: SimpleNamespace(leader=1), 1: SimpleNamespace(leader=1)}
        return SimpleNamespace(topics={"canary-t": SimpleNamespace(error=None, partitions=partitions)})

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
    assert admin["admin"].named[:2] == [None, None]  # the journey's 2.8.2 topics: named, made with 1 partition


def test_a_topic_that_never_appears_is_not_allowed(admin):
    admin["next"] = Admin(appears_at=None)
    with pytest.raises(TopicNotAllowed, match="create it as the kit's admin first"):
        ensure_topic({}, "canary-t", timeout=0.05)
    assert admin["admin"].creates >= 1
