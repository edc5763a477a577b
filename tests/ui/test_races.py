"""A person in a real page races an agent's ``document.write`` on the same document.

The agent's write is held while the journal records it (:func:`tests.ui.scenario.race`); what the
person does in the page meanwhile decides it: typing, closing the tab, starting an input-method
composition or moving the selection aborts it (``ABORTED`` with that ``reason``), and the
document, the page and the file keep exactly the person's state. A composition in progress
refuses a write outright (``BUSY``) until it is committed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from playwright.async_api import Page, expect

from tests.conftest import fail_code, ok
from tests.contract.helpers import journal, wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import agent_write, doc_of, editor_text, open_from_tree, wait_doc_text, wait_editor_text
from tests.ui.scenario import A, cdp_session, commit, compose, has_tab, open_at_end, race, tab_of, workspace_page
from vmark.app.server import RunningApp

AGENT = "# written by the agent\n"


async def _assert_nothing_written(vmark: RunningApp, workspace: Path) -> None:
    """The aborted write left the file alone; its journal entry, the only one, is marked aborted."""
    assert (workspace / "a.md").read_bytes() == A.encode()
    assert [e["state"] for e in await journal(vmark)] == ["aborted"]


async def test_typing_during_the_recording_aborts_as_edited(
    mcp: Client, pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page = await workspace_page(pages, workspace)
    tab = await open_at_end(page, vmark, "a.md")
    doc = doc_of(vmark, tab)
    envelope = await race(
        mcp, vmark, tab, AGENT, lambda: page.keyboard.type("typed"), lambda: doc.state.text == A + "typed"
    )
    assert (envelope["error"], envelope["reason"]) == ("ABORTED", "edited"), envelope
    assert doc.state.text == A + "typed"
    assert await editor_text(page) == A + "typed"
    await _assert_nothing_written(vmark, workspace)


async def test_closing_the_tab_during_the_recording_aborts_as_closed(
    mcp: Client, pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page = await workspace_page(pages, workspace)
    tab = await open_at_end(page, vmark, "a.md")
    close = page.locator(f".tab[data-tab-id='{tab}'] .close")
    envelope = await race(mcp, vmark, tab, AGENT, close.click, lambda: not has_tab(vmark, tab))
    assert (envelope["error"], envelope["reason"]) == ("ABORTED", "closed"), envelope
    await expect(page.locator(".tab")).to_have_count(0)
    assert await editor_text(page) is None
    assert vmark.app.session.docs == {}
    await _assert_nothing_written(vmark, workspace)
    # Opened again, it is the file as it was.
    await open_from_tree(page, "a.md")
    assert await editor_text(page) == A


async def test_starting_a_composition_during_the_recording_aborts_as_composing(
    mcp: Client, pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page = await workspace_page(pages, workspace)
    tab = await open_at_end(page, vmark, "a.md")
    doc = doc_of(vmark, tab)
    async with cdp_session(page) as cdp:
        envelope = await race(mcp, vmark, tab, AGENT, lambda: compose(cdp, "に"), lambda: doc.composing)
        assert (envelope["error"], envelope["reason"]) == ("ABORTED", "composing"), envelope
        assert doc.state.text == A
        await commit(cdp, "日本")
    await wait_doc_text(vmark, tab, A + "日本")
    assert await editor_text(page) == A + "日本"
    await _assert_nothing_written(vmark, workspace)


#: ways the person moves the cursor away from the end of a.md, and the selection the app then holds
MOVES: dict[str, tuple[Callable[[Page], Awaitable[Any]], tuple[int, int]]] = {
    "keyboard": (lambda page: page.keyboard.press("Control+Home"), (0, 0)),
    # a double click selects the word "alpha" (code points 5 to 10)
    "mouse": (lambda page: page.get_by_text("alpha", exact=True).dblclick(), (5, 10)),
}


@pytest.mark.parametrize("how", sorted(MOVES))
async def test_moving_the_selection_during_the_recording_aborts_as_selection(
    how: str, mcp: Client, pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page = await workspace_page(pages, workspace)
    tab = await open_at_end(page, vmark, "a.md")
    move, selected = MOVES[how]
    envelope = await race(mcp, vmark, tab, AGENT, lambda: move(page), lambda: tab_of(vmark, tab).selection == selected)
    assert (envelope["error"], envelope["reason"]) == ("ABORTED", "selection"), envelope
    assert doc_of(vmark, tab).state.text == A
    assert await editor_text(page) == A
    await _assert_nothing_written(vmark, workspace)


async def test_a_composition_in_wysiwyg_makes_a_write_busy_until_it_is_committed(
    mcp: Client, pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    """(Source mode: ``test_editing.py::test_ime_composition_makes_an_agent_write_busy``.)"""
    page = await workspace_page(pages, workspace)
    tab = await open_from_tree(page, "a.md")
    doc = doc_of(vmark, tab)
    await page.click("#mode-toggle")
    await page.locator(".ProseMirror p").click()
    await page.keyboard.press("End")
    async with cdp_session(page) as cdp:
        await compose(cdp, "に")
        await wait_until(lambda: doc.composing, "the app to learn that the person is composing")
        read = await ok(mcp, "document", "read", tabId=tab)
        envelope = await fail_code(
            mcp, "document", "write", tabId=tab, content=AGENT, expected_revision=read["revision"]
        )
        assert envelope["error"] == "BUSY", envelope
        assert (doc.state.text, doc.state.revision) == (A, read["revision"])
        await commit(cdp, "日本")
    await wait_doc_text(vmark, tab, "# A\n\nalpha日本\n")
    assert not doc.composing and doc.composing_mode == "wysiwyg"
    wrote = await agent_write(mcp, tab, AGENT)  # WYSIWYG has no grace period after a composition
    assert (wrote["applied"], wrote["saved"]) == (True, True)
    await wait_editor_text(page, AGENT)
    assert doc.state.text == AGENT
    assert (workspace / "a.md").read_bytes() == AGENT.encode()
    assert [e["state"] for e in await journal(vmark)] == ["recorded"]
