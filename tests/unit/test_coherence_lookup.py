"""Which tracked folder holds a document: looked up once per folder during an agent write, again after it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from vmark.app.coherence import CoherenceService, one_lookup_per_write


def _tracked_root_of(folder: Path) -> Any:
    # The service's lookup with a kernel that is just its folder (a real kernel opens the ledger).
    service = SimpleNamespace(_kernel_at=lambda root: root)
    return CoherenceService._tracking_in(service, str(folder))  # type: ignore[arg-type]


def test_the_nearest_folder_with_a_ledger_is_the_tracked_one(tmp_path: Path) -> None:
    inner = tmp_path / "ws" / "notes"
    inner.mkdir(parents=True)
    assert _tracked_root_of(inner) is None
    (tmp_path / "ws" / ".vmark" / "ledger").mkdir(parents=True)
    assert _tracked_root_of(inner) == str(tmp_path / "ws")
    (inner / ".vmark" / "ledger").mkdir(parents=True)
    assert _tracked_root_of(inner) == str(inner)


def test_a_write_looks_once_and_the_next_write_looks_again(tmp_path: Path) -> None:
    folder = tmp_path / "ws"
    folder.mkdir()
    with one_lookup_per_write():
        assert _tracked_root_of(folder) is None
        (folder / ".vmark" / "ledger").mkdir(parents=True)  # tracked from now on (coherence init)
        assert _tracked_root_of(folder) is None  # this write took its look already

        async def in_a_task() -> Any:
            return _tracked_root_of(folder)

        assert asyncio.run(in_a_task()) is None  # tasks the write starts share its look
    assert _tracked_root_of(folder) == str(folder)
    with one_lookup_per_write():
        assert _tracked_root_of(folder) == str(folder)
