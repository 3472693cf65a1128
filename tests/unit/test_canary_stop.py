"""stop() ends an unpaced canary (a rate it can never reach) too, not only a paced one or a count."""

import time

from canary import Canary


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
