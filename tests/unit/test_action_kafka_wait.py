"""The ETA the waiting action plugin prints."""

import importlib.util

from lab.config import REPO

_spec = importlib.util.spec_from_file_location("kafka_wait", REPO / "plugins" / "action" / "kafka_wait.py")
kafka_wait = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kafka_wait)


def test_eta_from_the_rate_so_far():
    assert kafka_wait.eta_text([(0.0, 30), (10.0, 20)]) == ", ETA ~20s"


def test_no_eta_before_anything_moved_or_without_a_count():
    assert kafka_wait.eta_text([]) == ""
    assert kafka_wait.eta_text([(0.0, 30)]) == ""
    assert kafka_wait.eta_text([(0.0, 30), (10.0, 30)]) == ""
    assert kafka_wait.eta_text([(0.0, None), (10.0, None)]) == ""
