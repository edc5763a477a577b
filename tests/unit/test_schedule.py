"""The workers' queue (tests/schedule.py): whole modules (or a long module's shards), the longest first."""

from __future__ import annotations

from collections import Counter

import pytest

from tests import schedule

LOSSLESS = "tests/ui/test_lossless_corpus.py"


def test_a_test_belongs_to_its_module_unless_the_module_is_sharded() -> None:
    assert schedule.group_of("tests/unit/test_atomic.py::test_x[a::b]") == "tests/unit/test_atomic.py"
    ids = [f"{LOSSLESS}::test_wysiwyg_open_and_back_changes_no_byte[file-{n}]" for n in range(240)]
    shards = Counter(schedule.group_of(nodeid) for nodeid in ids)
    assert set(shards) == {f"{LOSSLESS}#{n}" for n in range(schedule.SHARDS[LOSSLESS])}
    assert min(shards.values()) >= 60  # a hash spreads them: no shard is nearly empty
    assert schedule.group_of(ids[7]) == schedule.group_of(ids[7])  # the same in every process


def test_the_longest_groups_come_first_each_kept_together_in_its_order() -> None:
    ids = [
        "tests/unit/test_a.py::one",  # 2 tests x PER_TEST_ELSEWHERE
        "tests/ui/test_b.py::one",  # 3 tests x PER_TEST["ui"]
        "tests/unit/test_a.py::two",
        "tests/e2e/test_wheel.py::built",  # named: its measured seconds
        "tests/ui/test_b.py::two",
        "tests/ui/test_b.py::three",
        "tests/text/test_c.py::one",  # as long as test_a, collected after it: stays after it
        "tests/text/test_c.py::two",
    ]
    order = [ids[i] for i in schedule.longest_first(ids)]
    assert order == [
        "tests/e2e/test_wheel.py::built",
        "tests/ui/test_b.py::one",
        "tests/ui/test_b.py::two",
        "tests/ui/test_b.py::three",
        "tests/unit/test_a.py::one",
        "tests/unit/test_a.py::two",
        "tests/text/test_c.py::one",
        "tests/text/test_c.py::two",
    ]


def test_a_sharded_module_is_estimated_by_its_share_of_tests() -> None:
    ids = [f"{LOSSLESS}::test_source_keystroke_changes_one_character[f{n}]" for n in range(30)]
    ids.append("tests/unit/test_a.py::one")
    seconds = schedule._estimates(ids)
    shards = [group for group in seconds if group.startswith(LOSSLESS)]
    assert len(shards) == 3
    assert sum(seconds[group] for group in shards) == pytest.approx(schedule.SECONDS[LOSSLESS])
    assert seconds["tests/unit/test_a.py"] == pytest.approx(schedule.PER_TEST_ELSEWHERE)
