"""A pytest plugin for ``test_clone.py``'s run of pytest in a clone: the whole suite is collected, then only the
tests that read a shared corpus (those marked with :func:`tests.corpora.needs`) are kept; the others are
deselected. It prints how many tests each folder of ``tests/`` collected (``collected tests/unit: 123``).

Loaded by name (``-p corpus_only``) from a folder on ``PYTHONPATH``, so the clone runs this checkout's copy.
"""

from __future__ import annotations

from collections import Counter

import pytest

#: the words of the reason :func:`tests.corpora.needs` gives
CORPUS_REASON = "the shared corpus "


def _reads_a_corpus(item: pytest.Item) -> bool:
    return any(str(mark.kwargs.get("reason", "")).startswith(CORPUS_REASON) for mark in item.iter_markers("skipif"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    folders = Counter("/".join(item.nodeid.split("/")[:2]) for item in items)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    for folder, count in sorted(folders.items()):
        if reporter is not None:
            reporter.write_line(f"collected {folder}: {count}")
    keep = [item for item in items if _reads_a_corpus(item)]
    config.hook.pytest_deselected(items=[item for item in items if not _reads_a_corpus(item)])
    items[:] = keep
