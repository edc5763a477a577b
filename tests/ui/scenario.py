"""Scenes for the race and disk tests: a page on the workspace, an agent write held while it is
being recorded, an input method driven through the DevTools protocol, another program writing a file.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client
from playwright.async_api import CDPSession, Page

from tests.conftest import fail_code
from tests.contract.helpers import journal_gate, wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import open_folder, open_from_tree
from vmark.app.server import RunningApp
from vmark.core.model import Tab

A = "# A\n\nalpha\n"


async def workspace_page(pages: Pages, workspace: Path) -> Page:
    """A page on window ``main`` with ``workspace`` opened as its workspace."""
    page = await pages.open()
    await open_folder(page, workspace)
    return page


def tab_of(vmark: RunningApp, tab_id: str) -> Tab:
    return vmark.app.session.find_tab(tab_id)[1]


def has_tab(vmark: RunningApp, tab_id: str) -> bool:
    return any(t.id == tab_id for _, t in vmark.app.session.tabs())


async def open_at_end(page: Page, vmark: RunningApp, relative: str) -> str:
    """Open ``relative`` from the tree and put the cursor at the end of the source editor.

    Waits until the app knows where the cursor is, so no selection event of this setup can reach
    the app later, in the middle of a race. The click lands on the first line, never at the end:
    the page reports the selection debounced, and a click that already put the cursor at the end
    could be reported once on its own and once more after ``Control+End``.
    """
    tab_id = await open_from_tree(page, relative)
    await page.locator(".cm-line").first.click()
    await page.keyboard.press("Control+End")
    end = len(tab_of(vmark, tab_id).doc.state.text)
    await wait_until(lambda: tab_of(vmark, tab_id).selection == (end, end), "the app to know the cursor is at the end")
    return tab_id


# --- an agent write held while it is being recorded ----------------------------------------------------
async def race(
    agent: Client,
    vmark: RunningApp,
    tab_id: str,
    content: str,
    act: Callable[[], Awaitable[object]],
    acted: Callable[[], bool],
) -> dict[str, Any]:
    """The error envelope of an agent's ``document.write`` of ``content`` that the person races.

    The journal holds the write while it is being recorded; meanwhile the person does ``act`` in
    the page, and the hold lasts until the app has seen it (``acted``), so the race is decided
    by what the person did, never by the clock.
    """
    async with journal_gate(vmark) as gate:
        write = asyncio.ensure_future(fail_code(agent, "document", "write", tabId=tab_id, content=content))
        await gate.wait_entered()
        await act()
        await wait_until(acted, "the app to see what the person did")
        gate.release.set()
        return await write


# --- input methods (Chrome DevTools Protocol) -----------------------------------------------------------
@asynccontextmanager
async def cdp_session(page: Page) -> AsyncIterator[CDPSession]:
    session = await page.context.new_cdp_session(page)
    try:
        yield session
    finally:
        await session.detach()


async def compose(cdp: CDPSession, text: str) -> None:
    """An input method starts composing ``text`` (as a Japanese IME shows a reading)."""
    await cdp.send("Input.imeSetComposition", {"text": text, "selectionStart": len(text), "selectionEnd": len(text)})


async def commit(cdp: CDPSession, text: str) -> None:
    """The input method commits ``text``: the composition ends."""
    await cdp.send("Input.insertText", {"text": text})


# --- another program ---------------------------------------------------------------------------------------
def external_write(path: Path, text: str, *, atomic: bool) -> None:
    """Another program writes ``path``: in place, or as most editors do (a temp file renamed over it)."""
    if not atomic:
        path.write_bytes(text.encode("utf-8"))
        return
    temp = path.with_name(f".{path.name}.other-program")
    temp.write_bytes(text.encode("utf-8"))
    os.replace(temp, path)
