"""The order of an agent write's fsyncs (docs/write-path.md): the save's temp file is written while the journal
entry is recorded, and only the rename (the save becoming visible) waits for the entry to be durable.

- while the journal holds the entry, the temp file is there (hidden, beside the document) and the document's
  file still holds its old bytes;
- once the entry is recorded, that same temp file (its inode) becomes the document: nothing is written twice;
- the order that makes the answer true: the journal's commit and the temp file's fsync both return before the
  rename, and an fsync of the folder that started after the rename returns before the answer;
- a write refused or aborted while it is recorded leaves the file as it was and no temp file behind;
- a temp file that no longer holds what the save writes (the person typed meanwhile) is not used: the save
  writes its own text, and no temp file is left.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import fail_code, make_client, ok
from tests.contract.helpers import background, doc_of, journal_gate, person_open, wait_until
from vmark.app.save_queue import SaveQueue
from vmark.app.server import RunningApp
from vmark.storage import journal as journal_module
from vmark.testing.uiclient import UIClient

TEMP = re.compile(r"^\.a\.md\.[0-9a-f]{12}\.vmark-tmp$")
ORIGINAL = "# A\n\nalpha\n"


@asynccontextmanager
async def _file_queue_held(saves: SaveQueue, real: str) -> AsyncIterator[None]:
    """Hold the file's save queue: a save of ``real`` waits for its turn until the block ends."""
    lock = saves._locks.setdefault(real, asyncio.Lock())
    async with lock:
        yield


def _temps(folder: Path) -> list[Path]:
    return [folder / name for name in os.listdir(folder) if TEMP.match(name)]


async def test_the_temp_file_is_written_while_the_entry_is_recorded_and_renamed_after(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    target = opened / "a.md"
    async with make_client(vmark.data_dir) as mcp, journal_gate(vmark) as gate:
        write = background(ok(mcp, "document", "write", tabId=tab, content="# agent\n"))
        await gate.wait_entered()
        # The temp file is made (O_EXCL), then written: wait for its bytes, while the journal still holds the entry.
        await wait_until(
            lambda: [t.read_bytes() for t in _temps(opened)] == [b"# agent\n"],
            "the temp file's bytes, before the journal answers",
        )
        (temp,) = _temps(opened)
        assert target.read_text("utf-8") == ORIGINAL  # journaled before applied: the file is untouched
        temp_inode = temp.stat().st_ino
        gate.release.set()
        answer = await write
    assert (answer["applied"], answer["durable"], answer["saved"], answer["journaled"]) == (True, True, True, "yes")
    assert target.read_bytes() == b"# agent\n"
    assert target.stat().st_ino == temp_inode  # that temp became the file: the bytes were written once
    assert _temps(opened) == []


async def test_the_rename_waits_for_both_fsyncs_and_the_answer_for_the_folders(
    vmark: RunningApp, person: UIClient, opened: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = await person_open(person, opened / "a.md")
    events: list[str] = []
    real_fsync, real_rename, real_insert = os.fsync, os.rename, journal_module._insert_all

    def fsync(fd: int) -> None:
        what = "folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        events.append(f"fsync {what} starts")
        real_fsync(fd)
        events.append(f"fsync {what} returned")

    def rename(src: str, dst: str, **kwargs: Any) -> None:
        real_rename(src, dst, **kwargs)
        events.append(f"rename {os.path.basename(dst)}")

    def insert_all(*args: Any, **kwargs: Any) -> list[int]:
        ids = real_insert(*args, **kwargs)
        events.append("journal committed")
        return ids

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "rename", rename)
    monkeypatch.setattr(journal_module, "_insert_all", insert_all)
    async with make_client(vmark.data_dir) as mcp:
        answer = await ok(mcp, "document", "write", tabId=tab, content="# agent\n")
        events.append("answered")
    monkeypatch.undo()
    assert answer["saved"] is True and answer["durable"] is True
    mine = [e for e in events if "a.md" in e or "folder" in e or e in ("journal committed", "answered")]
    (temp,) = {e.split()[1] for e in mine if e.startswith("fsync ") and TEMP.match(e.split()[1])}
    renamed = mine.index("rename a.md")
    assert mine.index(f"fsync {temp} returned") < renamed
    assert mine.index("journal committed") < renamed
    after = mine[renamed:]
    folder_fsync = after.index("fsync folder starts")
    assert after.index("fsync folder returned", folder_fsync) < after.index("answered")


async def test_a_write_aborted_while_it_is_recorded_leaves_no_temp_file(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    doc = doc_of(vmark, tab)
    before = sorted(os.listdir(opened))
    async with make_client(vmark.data_dir) as mcp, journal_gate(vmark) as gate:
        write = background(fail_code(mcp, "document", "write", tabId=tab, content="# agent\n"))
        await gate.wait_entered()
        await wait_until(lambda: len(_temps(opened)) == 1, "the temp file, before the journal answers")
        await person.call("ui.edit", tabId=tab, baseRevision=doc.state.revision, changes=[[0, 0, "!"]])
        gate.release.set()
        envelope = await write
    assert (envelope["error"], envelope["reason"]) == ("ABORTED", "edited")
    assert (opened / "a.md").read_text("utf-8") == ORIGINAL
    assert sorted(os.listdir(opened)) == before


async def test_a_write_the_journal_refuses_leaves_no_temp_file(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    before = sorted(os.listdir(opened))
    await person.call("test.fault", journal="unavailable")
    async with make_client(vmark.data_dir) as mcp:
        envelope = await fail_code(mcp, "document", "write", tabId=tab, content="# agent\n")
    assert envelope["error"] == "JOURNAL_UNAVAILABLE"
    assert (opened / "a.md").read_text("utf-8") == ORIGINAL
    assert sorted(os.listdir(opened)) == before


async def test_a_temp_file_that_no_longer_fits_is_not_used(vmark: RunningApp, person: UIClient, opened: Path) -> None:
    """The person types after the agent's change applied and before its save's turn: the save writes the
    document as it is then (the person's typing included), never the agent's temp file."""
    tab = await person_open(person, opened / "a.md")
    doc = doc_of(vmark, tab)
    async with make_client(vmark.data_dir) as mcp:
        async with _file_queue_held(vmark.app.saves, os.path.realpath(opened / "a.md")):
            write = background(ok(mcp, "document", "write", tabId=tab, content="# agent\n"))
            await wait_until(lambda: doc.state.text == "# agent\n", "the agent's change, applied")
            await wait_until(lambda: len(_temps(opened)) == 1, "its temp file")
            (temp,) = _temps(opened)
            await person.call("ui.edit", tabId=tab, baseRevision=doc.state.revision, changes=[[0, 0, "!"]])
        answer = await write
    assert answer["saved"] is True
    assert (opened / "a.md").read_bytes() == b"!# agent\n"
    assert not temp.exists()
    assert _temps(opened) == []
