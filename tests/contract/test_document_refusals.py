"""Every refusal of ``document.write`` and of ``document.edit``: the exact code, and nothing changed.

"Nothing changed" is checked on the document's text and revision, the bytes on disk and
the agent-edit journal (:class:`~tests.contract.helpers.Snapshot`). Each test runs with
``document.write`` (on both protocol eras) and again with every write sent as the
``document.edit`` that makes the same change (:class:`WriteAsEdit`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

import vmark.app.journaling as journaling
import vmark.app.turns as turns
from tests.conftest import fail, fail_code, make_client, ok
from tests.contract.helpers import (
    Snapshot,
    another_page,
    background,
    doc_of,
    journal,
    journal_gate,
    open_tab,
    person_open,
    snapshot,
    wait_until,
)
from vmark.app.server import RunningApp
from vmark.protocol.errors import DomainError
from vmark.testing.uiclient import UIClient

A_TEXT = b"# A\n\nalpha\n"


class WriteAsEdit:
    """The official client, with every ``document.write`` sent as the ``document.edit`` of the same change:
    one edit whose ``old`` is the tab's whole text as the app holds it at the call (``x`` for no such tab)."""

    def __init__(self, client: Client, vmark: RunningApp) -> None:
        self._client, self._vmark = client, vmark

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        if name == "document" and arguments.get("action") == "write":
            arguments = dict(arguments)
            content = arguments.pop("content")
            try:
                old = self._vmark.app.session.resolve_tab(arguments.get("tabId"))[1].doc.state.text
            except DomainError:
                old = "x"
            arguments.update(action="edit", edits=[{"old": old, "new": content}])
        return await self._client.call_tool(name, arguments)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


@pytest.fixture(params=["write", "edit"])
async def mcp(vmark: RunningApp, request: pytest.FixtureRequest) -> AsyncIterator[Client]:
    """The agent, refused through ``document.write`` and through ``document.edit`` (the legacy protocol version's
    refusals: ``tests/contract/test_smoke.py``)."""
    async with make_client(vmark.data_dir) as client:
        yield client if request.param == "write" else WriteAsEdit(client, vmark)  # type: ignore[misc]


@dataclass
class Target:
    """A tab on ``a.md`` and the state a refused write must leave alone."""

    tab: str
    path: Path
    vmark: RunningApp

    async def snapshot(self) -> Snapshot:
        return await snapshot(self.vmark, doc_of(self.vmark, self.tab), self.path)


async def _target(client: Client, vmark: RunningApp, folder: Path, name: str = "a.md") -> Target:
    return Target(await open_tab(client, folder / name), folder / name, vmark)


async def _refused(client: Client, code: str, target: Target, **args: Any) -> dict[str, Any]:
    """Write, expect the envelope ``code``, and check nothing changed."""
    before = await target.snapshot()
    envelope = await fail_code(client, "document", "write", **{"tabId": target.tab, "content": "# refused\n", **args})
    assert envelope["error"] == code, envelope
    assert isinstance(envelope["message"], str) and envelope["message"]
    assert await target.snapshot() == before
    return envelope


async def _written(client: Client, target: Target, content: str, **args: Any) -> dict[str, Any]:
    result = await ok(client, "document", "write", tabId=target.tab, content=content, **args)
    assert result["applied"] is True
    return result


# --- BUSY: the person is composing -----------------------------------------------------------------
async def test_busy_while_the_person_composes(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    for mode, name in (("wysiwyg", "a.md"), ("source", "b.md")):
        target = await _target(mcp, vmark, opened, name)
        await person.call("ui.set_mode", tabId=target.tab, mode=mode)
        await person.call("ui.composition", tabId=target.tab, state="start")
        await _refused(mcp, "BUSY", target)
        await _refused(mcp, "BUSY", target, save=False)
        monkeypatch.setattr(turns, "COMPOSITION_GRACE_SECONDS", 60.0)  # cannot lapse mid-test
        await person.call("ui.composition", tabId=target.tab, state="end")
        if mode == "source":  # a Source editor is still composing for a short grace period
            await _refused(mcp, "BUSY", target)
            monkeypatch.setattr(turns, "COMPOSITION_GRACE_SECONDS", 0.0)  # the grace period is over
        await _written(mcp, target, f"# after composing in {mode}\n")
        assert target.path.read_bytes() == f"# after composing in {mode}\n".encode()


# --- writes held while the journal records another ------------------------------------------------------
async def test_write_busy_after_waiting_behind_another_write(
    mcp: Client, opened: Path, vmark: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "WRITE_QUEUE_WAIT_SECONDS", 0.2)  # 3 s in production
    target = await _target(mcp, vmark, opened)
    async with journal_gate(vmark) as gate:
        first = background(_written(mcp, target, "# first\n"))
        await gate.wait_entered()
        before = await target.snapshot()
        message = await fail(mcp, "document", "write", tabId=target.tab, content="# second\n")
        assert isinstance(message, str) and message.startswith("WRITE_BUSY"), message
        assert await target.snapshot() == before
        gate.release.set()
        await first
    assert target.path.read_bytes() == b"# first\n"
    assert len(await journal(vmark)) == 1


async def test_journal_busy_for_the_same_document_in_another_window(
    mcp: Client, opened: Path, vmark: RunningApp
) -> None:
    target = await _target(mcp, vmark, opened)
    async with another_page(vmark) as second:
        other = Target(await person_open(second, opened / "a.md"), opened / "a.md", vmark)
        assert doc_of(vmark, other.tab) is doc_of(vmark, target.tab)  # one shared document
        async with journal_gate(vmark) as gate:
            first = background(_written(mcp, target, "# from main\n"))
            await gate.wait_entered()
            await _refused(mcp, "JOURNAL_BUSY", other)
            gate.release.set()
            await first
        assert opened.joinpath("a.md").read_bytes() == b"# from main\n"
        assert len(await journal(vmark)) == 1


async def test_stale_parent_after_another_window_wrote(mcp: Client, opened: Path, vmark: RunningApp) -> None:
    mine = await _target(mcp, vmark, opened)
    await ok(mcp, "document", "read", tabId=mine.tab)
    await _written(mcp, mine, "# main wrote\n")
    async with another_page(vmark) as second:
        theirs = Target(await person_open(second, opened / "a.md"), opened / "a.md", vmark)
        latest = await _written(mcp, theirs, "# doc-1 wrote\n")
        envelope = await _refused(mcp, "STALE_PARENT", mine)
        assert envelope.get("current_revision", latest["revision"]) == latest["revision"]
        read = await ok(mcp, "document", "read", tabId=mine.tab)
        assert (read["content"], read["revision"]) == ("# doc-1 wrote\n", latest["revision"])
        await _written(mcp, mine, "# main again\n")
    assert opened.joinpath("a.md").read_bytes() == b"# main again\n"


# --- journal faults ------------------------------------------------------------------------------------------
async def test_journal_degraded_until_the_entry_is_saved(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    target = await _target(mcp, vmark, opened)
    # Every save attempt fails until the fault is lifted (the count outlasts the test).
    await person.call("test.fault", journal="transient:1000")
    first = await _written(mcp, target, "# not durable yet\n")
    assert first == {
        "revision": first["revision"],
        "applied": True,
        "durable": False,
        "saved": True,
        "journaled": "pending",
    }
    assert target.path.read_bytes() == b"# not durable yet\n"
    await _refused(mcp, "JOURNAL_DEGRADED", target)
    await _refused(mcp, "JOURNAL_DEGRADED", target, save=False)
    await person.call("test.fault", journal="none")
    await wait_until(lambda: not vmark.app.journal.pending_docs, "the background retry to save the entry")
    assert [e["rev_after"] for e in await journal(vmark)] == [first["revision"]]
    after = await _written(mcp, target, "# durable again\n")
    assert (after["durable"], after["journaled"]) == (True, "yes")


async def test_journal_unavailable(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = await _target(mcp, vmark, opened)
    await person.call("test.fault", journal="unavailable")
    await _refused(mcp, "JOURNAL_UNAVAILABLE", target)
    # A journal that does not answer in time (2 s in production) is just as unavailable.
    monkeypatch.setattr(journaling, "JOURNAL_ANSWER_SECONDS", 0.1)
    await person.call("test.fault", journal="slow:1")
    await _refused(mcp, "JOURNAL_UNAVAILABLE", target)
    await person.call("test.fault", journal="none")
    result = await _written(mcp, target, "# recorded\n")
    assert (result["durable"], result["journaled"]) == (True, "yes")
    assert len(await journal(vmark)) == 1


async def test_a_rejected_journal_entry_leaves_the_write_applied(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    target = await _target(mcp, vmark, opened)
    await person.call("test.fault", journal="reject:1")
    first = await _written(mcp, target, "# unrecorded\n")
    assert first == {"revision": first["revision"], "applied": True, "durable": False, "saved": True, "journaled": "no"}
    assert target.path.read_bytes() == b"# unrecorded\n"
    assert await journal(vmark) == []
    second = await _written(mcp, target, "# next\n")  # the next write proceeds normally
    assert (second["durable"], second["journaled"], second["saved"]) == (True, "yes", True)
    assert [e["rev_after"] for e in await journal(vmark)] == [second["revision"]]


# --- content, review backlog, read-only, tabs, addresses ------------------------------------------------------
async def test_invalid_text_and_addresses(mcp: Client, opened: Path, vmark: RunningApp) -> None:
    target = await _target(mcp, vmark, opened)
    for content in ("\ud800", "a\udfffb", "ok 😀 then \ud83d alone"):
        await _refused(mcp, "INVALID_TEXT", target, content=content)
    # No comment exists yet, so every id is unknown; more than 64 ids or a repeated id are refused too.
    for addresses in (["c-unknown"], [f"c-{i}" for i in range(65)], ["c-1", "c-1"]):
        await _refused(mcp, "INVALID_ADDRESSES", target, addresses=addresses)
    await _written(mcp, target, "paired 😀 is fine\n", addresses=[])


async def test_review_backlog_full(mcp: Client, opened: Path, person: UIClient, vmark: RunningApp) -> None:
    vmark.app.settings.set("review_backlog_limit", 2)
    target = await _target(mcp, vmark, opened)
    await _written(mcp, target, "one\n")
    await _written(mcp, target, "two\n")
    assert (await person.call("history.list", tabId=target.tab))["unreviewed"] == 2
    await _refused(mcp, "REVIEW_BACKLOG_FULL", target)
    await _refused(mcp, "REVIEW_BACKLOG_FULL", target, save=False)
    await person.call("history.mark_reviewed", tabId=target.tab)
    assert (await person.call("history.list", tabId=target.tab))["unreviewed"] == 0
    await _written(mcp, target, "three\n")
    assert target.path.read_bytes() == b"three\n"


async def test_read_only_and_unknown_tabs(mcp: Client, opened: Path, vmark: RunningApp) -> None:
    (opened / "a.md").chmod(0o444)
    target = await _target(mcp, vmark, opened)
    await _refused(mcp, "READ_ONLY", target)
    await _refused(mcp, "READ_ONLY", target, save=False)
    assert target.path.read_bytes() == A_TEXT
    assert await ok(mcp, "workspace", "close", tabId=target.tab) == {"closed": True}
    for args in ({"tabId": target.tab}, {"tabId": "tab-doesnotexist"}, {}):
        envelope = await fail_code(mcp, "document", "write", content="# x\n", **args)
        assert envelope["error"] == "INVALID_TAB", args
    assert target.path.read_bytes() == A_TEXT
    assert await journal(vmark) == []


# --- ABORTED: the person acts while the write is being recorded ----------------------------------------------
PersonAct = Callable[[UIClient, str], Awaitable[Any]]

PERSON_ACTS: dict[str, PersonAct] = {
    "edited": lambda person, tab: person.edit(tab, "# the person typed\n"),
    "closed": lambda person, tab: person.call("ui.close", tabId=tab),
    "composing": lambda person, tab: person.call("ui.composition", tabId=tab, state="start"),
    "selection": lambda person, tab: person.call("ui.selection", tabId=tab, **{"from": 0, "to": 3}),
}


@asynccontextmanager
async def _held_write(
    client: Client, vmark: RunningApp, target: Target, **args: Any
) -> AsyncIterator[asyncio.Task[Any]]:
    """A write of ``target`` held while it is being recorded; awaited by the caller after release."""
    async with journal_gate(vmark) as gate:
        task = background(fail_code(client, "document", "write", content="# agent\n", **args))
        await gate.wait_entered()
        yield task
        gate.release.set()


async def _aborted(client: Client, vmark: RunningApp, person: UIClient, target: Target, reason: str) -> None:
    doc = doc_of(vmark, target.tab)
    before = await snapshot(vmark, doc, target.path)
    async with _held_write(client, vmark, target, tabId=target.tab) as write:
        await PERSON_ACTS[reason](person, target.tab)
        person_state = doc.state
    envelope = await write
    assert (envelope["error"], envelope["reason"]) == ("ABORTED", reason), envelope
    after = await snapshot(vmark, doc, target.path)
    assert (after.text, after.revision) == (person_state.text, person_state.revision)  # the write changed nothing
    assert after.disk == before.disk
    # The entry recorded before the change is marked aborted; nothing else entered the journal.
    assert after.journal[:-1] == before.journal and after.journal[-1][1] == "aborted"


async def test_aborted_when_the_person_acts_during_recording(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    for reason, name in zip(sorted(PERSON_ACTS), ("a.md", "b.md", "notes/c.md", "readme.txt"), strict=True):
        await _aborted(mcp, vmark, person, await _target(mcp, vmark, opened, name), reason)


async def test_aborted_by_a_tab_switch_only_without_tab_id(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    shown = Target(await person_open(person, opened / "a.md"), opened / "a.md", vmark)
    other = await person_open(person, opened / "b.md")
    await person.call("ui.switch_tab", tabId=shown.tab)
    async with _held_write(mcp, vmark, shown) as write:  # no tabId: the routed window's active tab
        await person.call("ui.switch_tab", tabId=other)
    envelope = await write
    assert (envelope["error"], envelope["reason"]) == ("ABORTED", "selection")
    assert shown.path.read_bytes() == A_TEXT
    # With an explicit tabId, switching tabs does not concern the write.
    await person.call("ui.switch_tab", tabId=shown.tab)
    async with journal_gate(vmark) as gate:
        write_ok = background(_written(mcp, shown, "# explicit\n"))
        await gate.wait_entered()
        await person.call("ui.switch_tab", tabId=other)
        gate.release.set()
        await write_ok
    assert shown.path.read_bytes() == b"# explicit\n"


# --- INTERNAL: the editor failed ----------------------------------------------------------------------------------
async def test_internal_with_and_without_applied(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    target = await _target(mcp, vmark, opened)
    await person.call("test.fault", editor="after_apply")
    envelope = await fail_code(mcp, "document", "write", tabId=target.tab, content="# applied\n")
    assert envelope["error"] == "INTERNAL"
    assert (envelope["applied"], envelope["durable"]) == (True, True)
    read = await ok(mcp, "document", "read", tabId=target.tab)
    assert (read["content"], read["revision"]) == ("# applied\n", envelope["current_revision"])
    [entry] = await journal(vmark)  # the text the document then contained was recorded
    assert (entry["rev_after"], entry["state"]) == (envelope["current_revision"], "recorded")
    await _written(mcp, target, "# next\n", expected_revision=read["revision"])
    # Failing part-way: no "applied"; the document may have changed, so read again.
    await person.call("test.fault", editor="during_apply")
    envelope = await fail_code(mcp, "document", "write", tabId=target.tab, content="# half\n")
    assert envelope["error"] == "INTERNAL"
    assert "applied" not in envelope
    read = await ok(mcp, "document", "read", tabId=target.tab)
    await _written(mcp, target, "# whole\n", expected_revision=read["revision"])
    assert target.path.read_bytes() == b"# whole\n"
