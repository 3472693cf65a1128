"""When a running ZooKeeper member or broker must be restarted after a deploy changed its files
(service_restart.restart_pending), on hand-written marks and start times."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils.service_restart import restart_pending


def test_a_service_whose_files_changed_in_this_run_waits_for_a_restart():
    assert restart_pending(True, False, 200.0, "@100") is True
    assert restart_pending(True, False, None, "@300") is True


def test_a_service_this_run_started_reads_its_files_and_waits_for_nothing():
    assert restart_pending(True, True, 200.0, "@250") is False


def test_a_mark_newer_than_the_process_outlives_a_failed_run():
    assert restart_pending(False, False, 200.0, "@100") is True


def test_a_mark_older_than_the_process_is_done():
    assert restart_pending(False, False, 200.0, "@250") is False
    assert restart_pending(False, False, None, "@250") is False


def test_a_mark_on_a_service_that_never_ran_waits():
    assert restart_pending(False, False, 200.0, "") is True
