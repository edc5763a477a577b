"""A writer's session in WYSIWYG, by real key presses: the scene of ``test_writing_*.py``.

A case is a start file, where the caret goes (after a visible text, or at the end of an empty file), the keys, and
the exact bytes the file holds after Ctrl+S: the Markdown a person would type in source mode, written out by hand
(not computed by the editor). The stage is ``lossless.py``'s: one app and one page per module.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Page

from tests.contract.helpers import wait_until
from tests.ui.lossless import Stage, assert_bytes, click_after, open_file, save, switch_mode

#: a step: text to type (``"t:..."``), a key to press (``"k:Enter"``), or a pause for the page to catch up
Step = str


@dataclass(frozen=True)
class Session:
    id: str
    #: the file before the session
    start: str
    #: the visible text the caret goes right after (None: the end of the document)
    at: str | None
    steps: tuple[Step, ...]
    #: the file after the session and Ctrl+S
    want: str


def keys(*steps: str) -> tuple[Step, ...]:
    """Steps from a compact form: ``"Enter"``, ``"Shift+Tab"`` are keys, ``"'text"`` is typed text."""
    return tuple(f"t:{s[1:]}" if s.startswith("'") else f"k:{s}" for s in steps)


async def caret_to_end(page: Page) -> None:
    """Focus the editor and put the caret at the end of the document (Ctrl+End), as a person would."""
    await page.click(".ProseMirror")
    await page.keyboard.press("Control+End")


#: milliseconds from a click to the next key
CLICK_PAUSE_MS = 300
#: milliseconds between two keys: a quick typist's pace (a page gets keys apart, never two inside one of its tasks)
KEY_GAP_MS = 25


async def play(page: Page, steps: tuple[Step, ...]) -> None:
    for step in steps:
        kind, value = step.split(":", 1)
        if kind == "t":
            await page.keyboard.type(value, delay=KEY_GAP_MS)
        else:
            await page.keyboard.press(value, delay=KEY_GAP_MS)
        await page.wait_for_timeout(KEY_GAP_MS)


async def run_session(s: Stage, session: Session, name: str | None = None) -> Path:
    """Open the start file in WYSIWYG, put the caret, press the keys, save: the path of the file."""
    path = s.write(name or f"{session.id}.md", session.start.encode())
    await open_file(s, path)
    await switch_mode(s, "wysiwyg")
    if session.at is None:
        await caret_to_end(s.page)
    else:
        await click_after(s.page, session.at)
        # A person's next key comes later than a test's: ProseMirror takes a caret moved to the document's start
        # within 200 ms of the editor's focus for the browser's reset on focus, and puts the caret back.
        await s.page.wait_for_timeout(CLICK_PAUSE_MS)
    await play(s.page, session.steps)
    await settle(s.page)
    await save(s, path)
    return path


async def settle(page: Page) -> None:
    """Wait until the page's text of the tab no longer changes between two looks (the last key is in)."""
    last: list[str | None] = [None]

    async def steady() -> bool:
        text = await page.evaluate("window.vmarkPage.editorText()")
        same = text == last[0]
        last[0] = text
        return same

    await wait_until(steady, "the editor to take the last key", timeout=10)


async def check_session(s: Stage, session: Session) -> None:
    path = await run_session(s, session)
    assert_bytes(path, session.want.encode())
    # The view and the text agree: what the page holds is what was saved.
    assert await s.page.evaluate("window.vmarkPage.editorText()") == session.want
