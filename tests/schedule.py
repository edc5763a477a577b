"""How ``make test`` spreads the suite over pytest-xdist's workers: whole modules, the longest first.

With ``--dist loadscope`` a module's tests run on one worker (they share its browser, its app or its
build), and xdist hands the modules out in a queue. xdist's own queue puts the modules with the most
tests first, so the slowest modules, which have few tests (the wheel, the SIGKILL test, the fuzz
test), came last and one worker ran them alone for minutes. Here the queue holds the longest modules
first (longest-processing-time-first: each worker takes the next module when it runs short, so the
run ends with short modules on every worker), and a module too long for one worker's share is split
into shards (each shard a group of its own, with its own module fixtures on whichever worker runs it).

How long a module takes is estimated: :data:`SECONDS` for the long ones (measured, relative), else
its number of tests times its folder's usual seconds per test (:data:`PER_TEST`). An estimate only
orders the queue; a wrong one costs time, never a test. Only ``--dist loadscope`` runs are ordered
this way; every other run keeps pytest's order.
"""

from __future__ import annotations

import zlib
from collections import Counter
from typing import Any

import pytest

#: a module's seconds in a whole run of the suite on 3 workers on 2 cores (its tests' setup, call and teardown:
#: the units' wall times of a whole run recorded with ``VMARK_TEST_CPU``, December 2026, scaled to
#: :data:`PER_TEST`'s runs); only the order they give matters
SECONDS = {
    "tests/ui/test_lossless_corpus.py": 241,
    "tests/ui/test_writing_keys.py": 155,
    "tests/ui/test_lossless_constructs.py": 86,
    "tests/ghactions/test_corpus.py": 80,
    "tests/e2e/test_wheel.py": 74,
    "tests/export/test_cli.py": 74,
    "tests/ui/test_review_ui.py": 73,
    "tests/robustness/test_crash.py": 53,
    "tests/export/test_app.py": 48,
    "tests/ghactions/test_actionlint_parity.py": 45,
    "tests/ui/test_agents_hear.py": 39,
    "tests/browser/test_browser_runs.py": 38,
    "tests/ui/test_picker.py": 33,
    "tests/browser/test_browser_tools.py": 32,
    "tests/ui/test_keys.py": 31,
    "tests/e2e/test_cli.py": 30,
    "tests/ui/test_export_ui.py": 29,
    "tests/ui/test_links.py": 28,
    "tests/contract/test_resources.py": 28,
    "tests/ui/test_wysiwyg_open.py": 28,
    "tests/http/test_refusals.py": 11,
}
#: a folder's usual seconds per test (the same runs), for the modules :data:`SECONDS` does not name
PER_TEST = {"ui": 1.2, "browser": 0.55, "contract": 0.9, "http": 5.8, "e2e": 3.4, "export": 4.7, "robustness": 0.8}
PER_TEST_ELSEWHERE = 0.1
#: modules split into this many shards (a shard is picked by a hash of the test's id, the same in
#: every process); each shard starts its own module fixtures (one more browser and app each)
SHARDS = {"tests/ui/test_lossless_corpus.py": 3}


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def group_of(nodeid: str) -> str:
    """The work unit of a test: its module, or its module's shard."""
    module = module_of(nodeid)
    shards = SHARDS.get(module, 1)
    if shards == 1:
        return module
    return f"{module}#{zlib.crc32(nodeid.encode()) % shards}"


def _estimates(nodeids: list[str]) -> dict[str, float]:
    """Each group's estimated seconds."""
    tests = Counter(module_of(nodeid) for nodeid in nodeids)
    groups = Counter(group_of(nodeid) for nodeid in nodeids)
    seconds = {}
    for group, count in groups.items():
        module = module_of(group.split("#", 1)[0])
        folder = module.split("/")[1] if module.count("/") >= 2 else ""
        whole = SECONDS.get(module, tests[module] * PER_TEST.get(folder, PER_TEST_ELSEWHERE))
        seconds[group] = whole * count / tests[module]
    return seconds


def longest_first(nodeids: list[str]) -> list[int]:
    """The order (indices into ``nodeids``) that puts the longest groups first, each group's tests kept
    together and in their order; equal groups keep their order of collection."""
    seconds = _estimates(nodeids)
    first_seen: dict[str, int] = {}
    for index, nodeid in enumerate(nodeids):
        first_seen.setdefault(group_of(nodeid), index)

    def key(index: int) -> tuple[float, int, int]:
        group = group_of(nodeids[index])
        return (-seconds[group], first_seen[group], index)

    return sorted(range(len(nodeids)), key=key)


#: the key in a worker's ``workerinput`` that says the controller schedules with :func:`make_scheduler`
WORKER_FLAG = "vmark_longest_first"


def scheduled(config: pytest.Config) -> bool:
    """Whether this (controller) run is one this module schedules: ``--dist loadscope``."""
    return bool(config.getoption("dist", "no") == "loadscope")


def ordered(config: pytest.Config) -> bool:
    """Whether this process is a worker of such a run (its controller said so: xdist sets a worker's
    own ``dist`` option to ``no``)."""
    return bool(getattr(config, "workerinput", {}).get(WORKER_FLAG))


def order_items(items: list[pytest.Item]) -> None:
    """Reorder ``items`` in place, longest groups first (the same order in every worker)."""
    order = longest_first([item.nodeid for item in items])
    items[:] = [items[index] for index in order]


def make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist's loadscope scheduler, on :func:`group_of`'s groups, in the order the workers collected
    (:func:`order_items` put the longest first; xdist's reordering by test count is turned off)."""
    from xdist.scheduler import LoadScopeScheduling

    class GroupsLongestFirst(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    config.option.loadscopereorder = False
    return GroupsLongestFirst(config, log)
