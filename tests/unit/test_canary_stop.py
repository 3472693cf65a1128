"""stop() ends an unpaced canary (a rate it can never reach) too, not only a paced one or a count; a send the
client refuses at once is a failed send, and the canary goes on writing."""

import time

from confluent_kafka import KafkaError, KafkaException

from canary import Canary
from canary.ledger import read_failed


class Producer:
    """Takes every record at once; nothing is ever delivered."""

    def produce(self, *args, **kwargs):
        pass

    def poll(self, timeout):
        return 0

    def flush(self, timeout):
        return 0


def test_stop_ends_an_unpaced_canary(tmp_path):
    canary = Canary({"bootstrap.servers": "127.0.0.1:1"}, "t", tmp_path / "ledger", rate=10 ** 9)
    canary.producer = Producer()
    canary.start()
    time.sleep(0.2)
    canary._stop.set()  # what stop() does first; joined with a bound here, so a canary that never ends fails
    canary._thread.join(timeout=2)
    assert not canary.running()
    assert canary.stop() == 0 and canary.sent > 0


class RefusingProducer(Producer):
    """Refuses the first records at once, as librdkafka does for a topic a broker has just called unknown."""

    def __init__(self, refused):
        self.refused, self.taken = refused, 0

    def produce(self, *args, **kwargs):
        if self.refused:
            self.refused -= 1
            raise KafkaException(KafkaError(KafkaError._UNKNOWN_TOPIC))
        self.taken += 1


def test_a_send_refused_at_once_is_a_failed_send_and_the_canary_goes_on(tmp_path):
    # the journey's 2.8.2 path: one refused produce() ended the canary's thread, every later record unsent
    canary = Canary({"bootstrap.servers": "127.0.0.1:1"}, "t", tmp_path / "ledger", rate=1000, count=50)
    canary.producer = RefusingProducer(refused=3)
    canary.start()
    canary._thread.join(timeout=5)
    assert canary.stop() == 0
    assert (canary.sent, canary.failed, canary.producer.taken) == (50, 3, 47)
    failed = list(read_failed(tmp_path / "ledger"))
    assert [f["key"] for f in failed] == ["canary-0", "canary-1", "canary-2"] and "UNKNOWN_TOPIC" in failed[0]["error"]
