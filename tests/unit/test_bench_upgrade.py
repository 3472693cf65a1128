"""bench/upgrade.py's reading of an upgrade run's timeline marks into the controllers' and brokers' spans."""

from bench.upgrade import step_spans


def mark(label, at, until):
    return {"at": at, "label": f"upgrade_kafka.yml: {label}", "until": until}


def test_the_spans_and_the_brokers_floor_come_from_the_service_actions_and_gates():
    marks = [mark("Restart the controller: ctrl1", 0, 10), mark("Restart the controller: ctrl2", 20, 28),
             mark("Kafka service: stop through systemd, a controlled shutdown: kafka1", 40, 45),
             mark("Kafka service: start: kafka1", 45, 47),
             mark("Gate: wait until it is registered and back in the ISR of every partition it hosts: kafka1", 47, 60),
             mark("Kafka service: stop through systemd, a controlled shutdown: kafka2", 70, 74),
             {"at": 0, "label": "upgrade_kafka.yml", "until": 80}]  # the run's own span is no phase
    assert step_spans(marks) == {"controllers": (0, 28, 18), "brokers": (40, 74, 24)}
    assert step_spans(marks[:2]) == {"controllers": (0, 28, 18)}
