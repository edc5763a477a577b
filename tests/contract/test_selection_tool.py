"""``selection.get`` / ``selection.set`` through the official MCP client, with a page that shows the tab.

The page here is the Python UI client acting as a source-mode editor (its selection is set with
``select``); the browser tests in tests/ui/test_selection.py drive both modes of the real editor.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import fail, fail_code, ok
from tests.contract.helpers import (
    REVISION,
    background,
    doc_of,
    journal,
    journal_gate,
    open_tab,
    person_open,
    snapshot,
    wait_event,
)
from vmark.app.server import RunningApp
from vmark.core.document import content_hash
from vmark.storage.journal import BeforePatch
from vmark.testing.uiclient import UIClient

A = "# A\n\nalpha\n"  # the workspace's a.md; "alpha" is characters 5..10


async def _shown(person: UIClient, folder: Path, name: str = "a.md", sel: tuple[int, int] = (5, 10)) -> str:
    """The person opens ``name`` (it becomes the focused tab) and selects ``sel``."""
    tab = await person_open(person, folder / name)
    await person.select(tab, *sel)
    return tab


async def _refused(
    mcp: Client, vmark: RunningApp, tab: str, path: Path | None, code: str, **args: Any
) -> dict[str, Any]:
    before = await snapshot(vmark, doc_of(vmark, tab), path)
    envelope = await fail_code(mcp, "selection", "set", **{"content": "refused", **args})
    assert envelope["error"] == code, envelope
    assert await snapshot(vmark, doc_of(vmark, tab), path) == before
    return envelope


# --- get -----------------------------------------------------------------------------------------------
@pytest.mark.legacy_protocol
async def test_get_returns_the_excerpt_and_its_range(mcp: Client, person: UIClient, opened: Path) -> None:
    tab = await _shown(person, opened)
    got = await ok(mcp, "selection", "get")
    revision = (await ok(mcp, "document", "read", tabId=tab))["revision"]
    assert got == {
        "text": "alpha",
        "isEmpty": False,
        "range": {"from": 5, "to": 10},
        "mode": "source",
        "kind": "markdown",
        "tabId": tab,
        "revision": revision,
    }
    await person.select(tab, 3, 3)
    collapsed = await ok(mcp, "selection", "get", tabId=tab)
    assert (collapsed["text"], collapsed["isEmpty"], collapsed["range"]) == ("", True, {"from": 3, "to": 3})


async def test_get_counts_characters_not_bytes_or_utf16_units(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    (opened / "e.md").write_text("😀 é x\n", encoding="utf-8")
    tab = await _shown(person, opened, "e.md", (2, 3))
    got = await ok(mcp, "selection", "get")
    assert (got["text"], got["range"]) == ("é", {"from": 2, "to": 3})
    out = await ok(mcp, "selection", "set", content="è", expected_revision=got["revision"])
    assert out["replaced_chars"] == 1
    assert doc_of(vmark, tab).state.text == "😀 è x\n"


async def test_get_of_a_workflow_tab_says_its_kind(mcp: Client, person: UIClient, opened: Path) -> None:
    tab = await _shown(person, opened, ".github/workflows/ci.yml", (6, 8))
    got = await ok(mcp, "selection", "get")
    assert (got["text"], got["kind"], got["mode"], got["tabId"]) == ("ci", "yaml-workflow", "source", tab)


# --- set -----------------------------------------------------------------------------------------------
async def test_set_replaces_only_the_selection_and_is_journaled(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    tab = await _shown(person, opened)
    got = await ok(mcp, "selection", "get")
    out = await ok(mcp, "selection", "set", content="ALPHA!", expected_revision=got["revision"])
    assert set(out) == {"revision", "replaced_chars", "applied", "durable"}
    assert re.fullmatch(REVISION, out["revision"]) and out["revision"] != got["revision"]
    assert (out["replaced_chars"], out["applied"], out["durable"]) == (5, True, True)
    doc = doc_of(vmark, tab)
    assert (doc.state.text, doc.state.revision, doc.dirty) == ("# A\n\nALPHA!\n", out["revision"], True)
    assert (opened / "a.md").read_bytes() == A.encode()  # selection.set does not save
    entries = await journal(vmark)
    assert [(e["tool"], e["rev_before"], e["rev_after"], e["state"]) for e in entries] == [
        ("selection.set", got["revision"], out["revision"], "recorded")
    ]
    # One span changed: the entry keeps that span, enough to restore the before-text from the after-text.
    assert entries[0]["before_text"] is None
    patch = json.loads(entries[0]["before_patch"])
    assert patch == {"at": 5, "length": 6, "removed": "alpha"}
    assert BeforePatch(**patch).restore(doc.state.text) == A
    assert entries[0]["hash_before"] == content_hash(A)


async def test_empty_content_deletes_and_a_collapsed_selection_inserts(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    tab = await _shown(person, opened, sel=(4, 10))
    deleted = await ok(mcp, "selection", "set", content="")
    assert (deleted["replaced_chars"], doc_of(vmark, tab).state.text) == (6, "# A\n\n")
    await person.select(tab, 3, 3)
    inserted = await ok(mcp, "selection", "set", content=" big", expected_revision=deleted["revision"])
    assert (inserted["replaced_chars"], doc_of(vmark, tab).state.text) == (0, "# A big\n\n")


async def test_content_is_spliced_raw_in_source_mode(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    tab = await _shown(person, opened)
    await ok(mcp, "selection", "set", content="  **two**\n\n- list  ")
    assert doc_of(vmark, tab).state.text == "# A\n\n  **two**\n\n- list  \n"


async def test_a_set_that_changes_nothing_is_not_recorded(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    tab = await _shown(person, opened)
    revision = doc_of(vmark, tab).state.revision
    out = await ok(mcp, "selection", "set", content="alpha", expected_revision=revision)
    assert out == {"revision": revision, "replaced_chars": 5, "applied": False, "durable": True}
    assert await journal(vmark) == []


async def test_a_crlf_file_keeps_its_line_endings(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    (opened / "w.md").write_bytes(b"# W\r\n\r\nalpha\r\nomega\r\n")
    tab = await _shown(person, opened, "w.md", (5, 16))  # "alpha\nomega" as the editor shows it
    got = await ok(mcp, "selection", "get")
    assert got["text"] == "alpha\nomega"
    await ok(mcp, "selection", "set", content="one\ntwo")
    assert doc_of(vmark, tab).state.text == "# W\r\n\r\none\r\ntwo\r\n"


async def test_held_keystrokes_count_for_stale(mcp: Client, person: UIClient, opened: Path, vmark: RunningApp) -> None:
    """The page passes on what the person typed before the app decides: the revision has moved."""
    tab = await _shown(person, opened)
    got = await ok(mcp, "selection", "get")
    person.hold_edit(tab, A + "typed\n")
    envelope = await fail_code(mcp, "selection", "set", content="X", expected_revision=got["revision"])
    doc = doc_of(vmark, tab)
    assert envelope["error"] == "STALE" and envelope["current_revision"] == doc.state.revision
    assert doc.state.text == A + "typed\n"
    assert await journal(vmark) == []


# --- refusals --------------------------------------------------------------------------------------------
async def test_stale_returns_the_current_revision(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    tab = await _shown(person, opened)
    got = await ok(mcp, "selection", "get")
    await person.edit(tab, A + "more\n")
    envelope = await _refused(mcp, vmark, tab, opened / "a.md", "STALE", expected_revision=got["revision"])
    assert envelope["current_revision"] == doc_of(vmark, tab).state.revision != got["revision"]


async def test_tab_id_must_be_the_focused_tab(mcp: Client, person: UIClient, opened: Path, vmark: RunningApp) -> None:
    other = await open_tab(mcp, opened / "b.md")  # a background tab
    tab = await _shown(person, opened)
    for action, extra in (("get", {}), ("set", {"content": "x"})):
        envelope = await fail_code(mcp, "selection", action, tabId=other, **extra)
        assert envelope["error"] == "INVALID_TAB" and envelope["tabId"] == other, envelope
        assert tab in envelope["message"]
        unknown = await fail_code(mcp, "selection", action, tabId="tab-nope", **extra)
        assert unknown["error"] == "INVALID_TAB"
    assert doc_of(vmark, tab).state.text == A


async def test_no_editor_without_a_page_or_an_answer(mcp: Client, vmark: RunningApp, workspace: Path) -> None:
    async with UIClient(vmark.data_dir) as gone:  # the page that opened the tab is closed again
        await gone.attach("main")
        tab = await person_open(gone, workspace / "a.md")
    assert (await fail_code(mcp, "selection", "get"))["error"] == "NO_EDITOR"
    assert (await fail_code(mcp, "selection", "set", content="x"))["error"] == "NO_EDITOR"
    async with UIClient(vmark.data_dir) as page:
        await page.attach("main")
        page.shows_editor = False
        assert (await fail_code(mcp, "selection", "get", tabId=tab))["error"] == "NO_EDITOR"
        page.shows_editor = None  # the page does not answer at all
        envelope = await fail_code(mcp, "selection", "set", tabId=tab, content="x")
        assert envelope["error"] == "NO_EDITOR" and "in time" in envelope["message"]
    assert doc_of(vmark, tab).state.text == A
    assert await journal(vmark) == []


async def test_no_editor_in_an_empty_window(mcp: Client, person: UIClient) -> None:
    envelope = await fail_code(mcp, "selection", "get")
    assert envelope["error"] == "NO_EDITOR" and "no active tab" in envelope["message"]


async def test_busy_while_composing_but_get_still_answers(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = await _shown(person, opened)
    await person.call("ui.composition", tabId=tab, state="start")
    assert (await ok(mcp, "selection", "get"))["text"] == "alpha"
    await _refused(mcp, vmark, tab, opened / "a.md", "BUSY")
    # The page knows first: a composition it reports in its answer is BUSY too.
    await person.call("ui.composition", tabId=tab, state="end")
    monkeypatch.setattr("vmark.app.turns.COMPOSITION_GRACE_SECONDS", 0.0)  # the source-mode grace is over
    person.composing = True
    await _refused(mcp, vmark, tab, opened / "a.md", "BUSY")
    person.composing = False
    assert (await ok(mcp, "selection", "set", content="x"))["applied"] is True


async def test_invalid_text_and_addresses_change_nothing(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    tab = await _shown(person, opened)
    await _refused(mcp, vmark, tab, opened / "a.md", "INVALID_TEXT", content="bad \ud800")
    await _refused(mcp, vmark, tab, opened / "a.md", "INVALID_ADDRESSES", addresses=["c-1"])
    await _refused(mcp, vmark, tab, opened / "a.md", "INVALID_ADDRESSES", addresses=[f"c-{n}" for n in range(65)])


async def test_journal_unavailable_changes_nothing(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    tab = await _shown(person, opened)
    await person.call("test.fault", journal="unavailable")
    await _refused(mcp, vmark, tab, opened / "a.md", "JOURNAL_UNAVAILABLE")


async def test_a_selection_move_while_recording_aborts(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    tab = await _shown(person, opened)
    async with journal_gate(vmark) as gate:
        pending = background(fail_code(mcp, "selection", "set", content="X"))
        await gate.wait_entered()
        await person.select(tab, 0, 1)
        gate.release.set()
        envelope = await pending
    assert (envelope["error"], envelope["reason"]) == ("ABORTED", "selection")
    assert doc_of(vmark, tab).state.text == A
    assert [e["state"] for e in await journal(vmark)] == ["aborted"]


async def test_a_keystroke_while_recording_aborts(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    tab = await _shown(person, opened)
    async with journal_gate(vmark) as gate:
        pending = background(fail(mcp, "selection", "set", content="X"))
        await gate.wait_entered()
        await person.edit(tab, A + "typed\n")
        gate.release.set()
        envelope = await pending
    assert isinstance(envelope, dict) and (envelope["error"], envelope["reason"]) == ("ABORTED", "edited")
    assert doc_of(vmark, tab).state.text == A + "typed\n"


# --- what the pages are told -------------------------------------------------------------------------
async def test_pages_get_only_the_replaced_span(mcp: Client, person: UIClient, opened: Path, vmark: RunningApp) -> None:
    tab = await _shown(person, opened)
    before = doc_of(vmark, tab).state.revision
    out = await ok(mcp, "selection", "set", content="omega")
    event = await wait_event(person, "doc", lambda p: p["revision"] == out["revision"])
    assert "text" not in event
    assert event["changes"] == {"base": before, "spans": [[5, 10, "omega"]]}


async def test_a_crlf_document_gets_spans_of_the_shown_text(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    (opened / "w.md").write_bytes(b"# W\r\n\r\nalpha\r\n")
    tab = await _shown(person, opened, "w.md", (5, 10))
    before = doc_of(vmark, tab).state.revision
    out = await ok(mcp, "selection", "set", content="omega\nnext")
    event = await wait_event(person, "doc", lambda p: p["revision"] == out["revision"])
    assert "text" not in event
    assert event["changes"] == {"base": before, "spans": [[5, 10, "omega\nnext"]]}
    assert doc_of(vmark, tab).state.text == "# W\r\n\r\nomega\r\nnext\r\n"


# --- WYSIWYG: the page answers the change set its editor's replacement makes --------------------------------
async def test_a_wysiwyg_prepare_is_applied_as_its_spans_and_journaled_as_their_cover(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    (opened / "w.md").write_text("# W\n\n- one\n- two\n\nend\n", "utf-8")
    tab = await _shown(person, opened, "w.md", (7, 10))
    # The editor's replacement touches two places (say a list it renumbered); nothing else changes.
    person.wysiwyg_changes[tab] = [[7, 10, "**one**"], [13, 16, "2"]]
    got = await ok(mcp, "selection", "get")
    out = await ok(mcp, "selection", "set", content="**one**", expected_revision=got["revision"])
    assert (out["applied"], out["replaced_chars"]) == (True, 3)
    doc = doc_of(vmark, tab)
    assert doc.state.text == "# W\n\n- **one**\n- 2\n\nend\n"
    (entry,) = await journal(vmark)
    patch = json.loads(entry["before_patch"])
    assert patch == {"at": 7, "length": 11, "removed": "one\n- two"}  # from the first span to the last
    assert BeforePatch(**patch).restore(doc.state.text) == "# W\n\n- one\n- two\n\nend\n"
    event = await wait_event(person, "doc", lambda p: p["revision"] == out["revision"])
    assert event["changes"] == {"base": got["revision"], "spans": [[7, 10, "**one**"], [13, 16, "2"]]}


async def test_a_wysiwyg_prepare_in_a_crlf_file_keeps_its_line_endings(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    (opened / "w.md").write_bytes(b"# W\r\n\r\nalpha\r\nbeta\r\n")
    tab = await _shown(person, opened, "w.md", (5, 10))
    person.wysiwyg_changes[tab] = [[5, 10, "one\n\ntwo"], [15, 15, "!"]]  # offsets of the text with "\n"
    await ok(mcp, "selection", "set", content="one\n\ntwo")
    assert doc_of(vmark, tab).state.text == "# W\r\n\r\none\r\n\r\ntwo\r\nbeta!\r\n"


async def test_an_invalid_wysiwyg_change_is_internal_and_changes_nothing(
    mcp: Client, person: UIClient, opened: Path, vmark: RunningApp
) -> None:
    tab = await _shown(person, opened)
    for changes, why in [
        ([[5, 99, "x"]], "changes[0] ends at 99, past the end of the text (11)"),
        ([[6, 8, "x"], [5, 6, "y"]], "changes[1] starts at 5, before the previous span ends (8)"),
        ([[5, 10, "\ud800"]], "changes[0] inserts a lone UTF-16 surrogate"),
        (None, "changes must be a list of [from, to, insert] spans"),
    ]:
        person.wysiwyg_changes[tab] = changes
        envelope = await _refused(mcp, vmark, tab, opened / "a.md", "INTERNAL")
        assert envelope["message"] == f"The editor answered an invalid change: {why}"
    assert await journal(vmark) == []
