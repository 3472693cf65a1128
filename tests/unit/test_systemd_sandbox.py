"""The service units' sandbox."""

import pytest

from ansible_collections.kafkaops.toolkit.plugins.module_utils.systemd_sandbox import unit_lines


def test_the_service_writes_only_its_own_dirs_and_the_jit_still_works():
    lines = unit_lines(["/var/lib/kafka/data", "", "/var/log/kafka"])
    assert lines[-1] == "ReadWritePaths=/var/lib/kafka/data /var/log/kafka"
    assert "ProtectSystem=strict" in lines and "CapabilityBoundingSet=" in lines
    assert not any(line.startswith("MemoryDenyWriteExecute") for line in lines)


def test_a_service_without_a_writable_dir_is_an_error():
    with pytest.raises(ValueError, match="give its data and log dirs"):
        unit_lines([""])
