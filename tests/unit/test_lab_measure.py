"""The copy window a rebuild's size samples give."""

from lab.measure import copy_window


def test_copy_window_runs_from_the_last_low_sample_to_the_end_of_the_catch_up():
    samples = [(0, 500), (1, 500), (2, 0), (3, 0), (4, 100), (5, 200), (6, 300), (7, 300), (8, 301), (9, 302)]
    # from t=3 (last sample at 0 bytes) to t=6, the first at >= 98% of the growth to 302
    assert copy_window(samples) == (300, 3)


def test_copy_window_without_a_wipe_counts_from_the_smallest_sample():
    assert copy_window([(0, 10), (2, 50), (4, 90)], done_fraction=1.0) == (80, 4)
