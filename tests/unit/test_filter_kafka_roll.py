"""The record of one rolled broker."""

from ansible_collections.kafkaops.toolkit.plugins.filter import kafka_roll

TIMES = {"picked": "100.0", "safe": "102.5", "stopped": 110.0, "started": "111.25", "healthy": "130.0"}


def test_step_record_splits_the_time_into_gates_and_actions():
    assert kafka_roll.kafka_roll_step(TIMES, "kafka2", 2, True) == {
        "host": "kafka2", "broker_id": 2, "was_controller": True, "safe_to_stop_gate": 2.5, "stop": 7.5,
        "start": 1.2, "healthy_gate": 18.8, "total": 30.0}


def test_step_line_names_the_controller():
    line = kafka_roll.kafka_roll_step_line(kafka_roll.kafka_roll_step(TIMES, "kafka2", 2, True))
    assert line == ("kafka2 (broker 2) (controller): 30.0s = safe-to-stop gate 2.5s + stop 7.5s + start 1.2s "
                    "+ healthy gate 18.8s")
