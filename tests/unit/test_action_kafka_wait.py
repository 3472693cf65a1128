"""The waiting action plugin: its ETA, and the loop's pacing and failure rules on a fake clock."""

from ansible_collections.kafkaops.toolkit.plugins.action import kafka_wait


def test_eta_from_the_rate_so_far():
    assert kafka_wait.eta_text([(0.0, 30), (10.0, 20)]) == ", ETA ~20s"


def test_no_eta_before_anything_moved_or_without_a_count():
    assert kafka_wait.eta_text([]) == ""
    assert kafka_wait.eta_text([(0.0, 30)]) == ""
    assert kafka_wait.eta_text([(0.0, 30), (10.0, 30)]) == ""
    assert kafka_wait.eta_text([(0.0, None), (10.0, None)]) == ""


class Clock:
    """Fake time: sleep() moves it on, nothing else does."""

    def __init__(self):
        self.t = 0.0

    def now(self):
        return self.t

    def sleep(self, seconds):
        self.t += seconds


class Module:
    """A scripted module: answer(t, call) gives its result at fake time t; records (t, call) for each run."""

    def __init__(self, clock, answer):
        self.clock, self.answer, self.calls = clock, answer, []

    def __call__(self, call):
        assert len(self.calls) < 1000, "still polling after 1000 checks"
        self.calls.append((self.clock.t, call))
        return dict(self.answer(self.clock.t, call))

    def times(self):
        return [t for t, _ in self.calls]


def run_wait(answer, **args):
    clock = Clock()
    module = Module(clock, answer)
    result = kafka_wait.wait(module, args, "kafka_broker_wait_healthy", now=clock.now, sleep=clock.sleep)
    return result, module


NOT_DONE = dict(done=False, remaining=2, progress="broker 2: 2 partition(s) still catching up",
                timeout_msg="broker 2 is still out of the ISR of 2 partition(s)")
DONE = dict(done=True, remaining=0, progress="broker 2: 0 partition(s) still catching up")
REFUSED = dict(failed=True, retryable=True, msg="cannot read the cluster state: connection refused")


def test_a_failure_waiting_cannot_fix_ends_the_wait_at_the_first_poll():
    error = dict(failed=True, msg="cannot read the cluster state: broker-9: name does not resolve")
    result, module = run_wait(lambda t, call: error, wait_timeout=600, poll_interval=5)
    assert module.times() == [0]
    assert result["failed"]
    assert result["msg"] == "cannot read the cluster state: broker-9: name does not resolve"


def test_retryable_failures_are_retried_until_they_have_lasted_longer_than_the_grace():
    result, module = run_wait(lambda t, call: REFUSED, wait_timeout=600, poll_interval=5)
    # Failing since 0 s: retried every 5 s; at 65 s the failures have lasted more than 60 s.
    assert module.times() == list(range(0, 70, 5))
    assert result["failed"]
    assert result["msg"] == "still failing after 60s: cannot read the cluster state: connection refused"


def test_a_module_process_that_died_is_checked_again_within_the_grace():
    died = dict(failed=True, module_stderr="rdkafka_admin.c:960: rd_kafka_admin_response_parse: Assertion\nAborted\n",
                msg="MODULE FAILURE")
    result, module = run_wait(lambda t, call: died if t < 10 else DONE, wait_timeout=600, poll_interval=5)
    assert module.times() == [0, 5, 10] and not result.get("failed")
    result, _ = run_wait(lambda t, call: died, wait_timeout=600, poll_interval=5)
    assert result["failed"] and result["msg"] == "still failing after 60s: the module's process died (Aborted)"


def test_a_success_within_the_grace_resets_it_and_the_wait_finishes():
    def answer(t, call):
        if t < 55 or 60 <= t < 120:  # failing 0-50 s, and again 60-115 s: each run under 60 s
            return REFUSED
        return NOT_DONE if t < 120 else DONE

    result, module = run_wait(answer, wait_timeout=600, poll_interval=5)
    assert not result.get("failed")
    assert result["done"]
    assert result["waited"] == 120
    assert module.times() == list(range(0, 125, 5))


def test_kafka_tools_home_at_most_every_15s_and_the_last_bytes_carried_between_readings(monkeypatch):
    printed = []
    monkeypatch.setattr(kafka_wait.display, "display", printed.append)

    def answer(t, call):
        result = dict(NOT_DONE, done=t >= 44)
        if "kafka_tools_home" in call:  # as the module does: the bytes become the count for the ETA
            missing = 1000 - 10 * int(t)
            result.update(remaining=missing, bytes_missing=missing, copy_progress=f"; {missing} B still to copy")
        return result

    result, module = run_wait(answer, wait_timeout=600, poll_interval=4, kafka_tools_home="/opt/kafka")
    assert module.times() == list(range(0, 48, 4))
    assert [t for t, call in module.calls if "kafka_tools_home" in call] == [0, 16, 32]
    # Done at 44 s, between readings: the result carries the reading of 32 s.
    assert result["done"] and result["waited"] == 44
    assert result["bytes_missing"] == 680
    assert result["remaining"] == 680
    assert result["copy_progress"] == "; 680 B still to copy"
    # Each progress line, between readings too, shows the last bytes figure.
    assert printed and all("B still to copy" in line for line in printed)


def test_kafka_tools_home_is_passed_at_each_poll_until_the_module_reads_bytes():
    # The module reads the sizes only once the broker registered (at 8 s here); the 15 s count from then.
    def answer(t, call):
        result = dict(NOT_DONE, done=t >= 28)
        if "kafka_tools_home" in call and t >= 8:
            result.update(bytes_missing=100, copy_progress="; 100 B still to copy")
        return result

    _, module = run_wait(answer, wait_timeout=600, poll_interval=4, kafka_tools_home="/opt/kafka")
    assert [t for t, call in module.calls if "kafka_tools_home" in call] == [0, 4, 8, 24]


def test_done_ends_the_wait_and_reports_how_long_it_waited():
    result, module = run_wait(lambda t, call: NOT_DONE if t < 6 else DONE, wait_timeout=600, poll_interval=3)
    assert module.times() == [0, 3, 6]
    assert not result.get("failed")
    assert result["done"]
    assert result["waited"] == 6
    # Each poll is one check: the module itself does not wait, and does not get poll_interval.
    assert all(call == {"wait_timeout": 0} for _, call in module.calls)


def test_timeout_fails_with_the_modules_timeout_msg():
    result, module = run_wait(lambda t, call: NOT_DONE, wait_timeout=10, poll_interval=3)
    assert module.times() == [0, 3, 6, 9, 12]
    assert result["failed"]
    assert result["waited"] == 12
    assert result["msg"] == "broker 2 is still out of the ISR of 2 partition(s)"


def test_without_a_wait_timeout_the_module_runs_once():
    result, module = run_wait(lambda t, call: NOT_DONE, poll_interval=3)
    assert module.times() == [0]
    assert result == NOT_DONE
