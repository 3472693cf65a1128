"""The chaos harness's second opinion (harness.count_not_read_back) on hand-written ledgers and read-backs:
an entry is read back when its offset holds its digest, or, acknowledged without an offset, when its
partition holds its key and digest."""

from harness import count_not_read_back

READABLE = {(0, 0): ("canary-1", "aa"), (0, 1): ("canary-2", "bb"), (1, 0): ("canary-3", "cc")}


def entry(partition, offset, key, sha):
    return {"partition": partition, "offset": offset, "key": key, "sha256": sha}


def test_entries_at_their_offsets_are_read_back():
    assert count_not_read_back([entry(0, 0, "canary-1", "aa"), entry(1, 0, "canary-3", "cc")], READABLE) == 0


def test_a_missing_offset_and_a_different_digest_are_not_read_back():
    assert count_not_read_back([entry(0, 5, "canary-9", "ff"), entry(0, 1, "canary-2", "zz")], READABLE) == 2


def test_an_entry_without_offset_is_found_by_key_and_digest_in_its_partition():
    assert count_not_read_back([entry(0, None, "canary-2", "bb")], READABLE) == 0


def test_an_entry_without_offset_is_not_found_in_another_partition_or_with_another_digest():
    assert count_not_read_back([entry(1, None, "canary-2", "bb"), entry(0, None, "canary-2", "cc")],
                               READABLE) == 2
