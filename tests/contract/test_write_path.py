"""The order of an agent write's fsyncs (docs/write-path.md): the save's temp file is written while the journal
entry is recorded, and only the rename (the save becoming visible) waits for the entry to be durable.

- while the journal holds the entry, the temp file is there (hidden, beside the document) and the document's
  file still holds its old bytes;
- once the entry is recorded, that same temp file (its inode) becomes the document: nothing is written twice;
- a write refused or aborted while it is recorded leaves the file as it was and no temp file behind;
- a temp file that no longer holds what the save writes (the person typed meanwhile) is not used: the save
  writes its own text, and no temp file is left.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from tests.conftest import fail_code, make_client, ok
from tests.contract.helpers import background, doc_of, journal_gate, person_open, wait_until
from vmark.app.save_queue import SaveQueue
from vmark.app.server import RunningApp
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
        await wait_until(lambda: len(_temps(opened)) == 1, "the temp file, before the journal answers")
        (temp,) = _temps(opened)
        assert temp.read_bytes() == b"# agent\n"
        assert target.read_text("utf-8") == ORIGINAL  # journaled before applied: the file is untouched
        temp_inode = temp.stat().st_ino
        gate.release.set()
        answer = await write
    assert (answer["applied"], answer["durable"], answer["saved"], answer["journaled"]) == (True, True, True, "yes")
    assert target.read_bytes() == b"# agent\n"
    assert target.stat().st_ino == temp_inode  # that temp became the file: the bytes were written once
    assert _temps(opened) == []


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
