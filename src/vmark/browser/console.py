"""``browser_read.console`` / ``browser.console_clear``: the page's console, captured in the page.

:func:`install_console` adds an init script (``js/console.js``) that runs in the PAGE world of
the main frame of every document the page loads from then on: it wraps ``console.log/info/
warn/error/debug`` and listens for uncaught errors (``Uncaught ...``) and unhandled rejections
(``Unhandled rejection: ...``), keeping the last 200 entries (2,000 characters of text each) as
a JSON array in a hidden ``<template>`` element whose id is random per page. The driver reads
and clears that element from its isolated world: the page never gets a channel into VMark.
The buffer is page-controlled (a page can write anything into it): untrusted, like a read.
"""

from __future__ import annotations

import json
import secrets
import weakref
from typing import TYPE_CHECKING, Any

from vmark.browser.isolated import page_script, world_for
from vmark.protocol.browser_results import ConsoleEntries, ConsoleEntry
from vmark.protocol.limits import CONSOLE_LEVEL_CHARS, CONSOLE_RING_ENTRIES, CONSOLE_TEXT_CHARS

if TYPE_CHECKING:
    from playwright.async_api import Page

_BUFFERS: weakref.WeakKeyDictionary[Page, str] = weakref.WeakKeyDictionary()


async def install_console(page: Page) -> str:
    """Capture the console of every later document of ``page``; the buffer id (idempotent)."""
    buffer_id = _BUFFERS.get(page)
    if buffer_id is None:
        buffer_id = "vmark-console-" + secrets.token_hex(8)
        await page.add_init_script(page_script("console.js").replace("__BUFFER_ID__", buffer_id))
        _BUFFERS[page] = buffer_id
    return buffer_id


_READ = """(id) => {
  const buffer = document.getElementById(id);
  return buffer ? buffer.textContent : null;
}"""

_CLEAR = """(id) => {
  const buffer = document.getElementById(id);
  if (!buffer) return null;
  const held = buffer.textContent;
  buffer.textContent = '[]';
  return held;
}"""


async def read_console(page: Page) -> ConsoleEntries:
    """``{entries: [{level, text}]}`` captured in the current document (oldest first)."""
    return await _entries(page, _READ)


async def clear_console(page: Page) -> ConsoleEntries:
    """Like :func:`read_console`, and empties the buffer so the next read sees only new output."""
    return await _entries(page, _CLEAR)


async def _entries(page: Page, script: str) -> ConsoleEntries:
    buffer_id = _BUFFERS.get(page)
    if buffer_id is None:
        return {"entries": []}
    text = await world_for(page).evaluate(script, buffer_id)
    return {"entries": _parse(text)}


def _parse(text: Any) -> list[ConsoleEntry]:
    """The buffer's entries, shape-checked: the page can write anything there."""
    try:
        raw = json.loads(text) if isinstance(text, str) else []
    except ValueError:
        return []
    entries: list[ConsoleEntry] = []
    for item in raw[-CONSOLE_RING_ENTRIES:] if isinstance(raw, list) else []:
        if isinstance(item, dict) and isinstance(item.get("level"), str) and isinstance(item.get("text"), str):
            entries.append({"level": item["level"][:CONSOLE_LEVEL_CHARS], "text": item["text"][:CONSOLE_TEXT_CHARS]})
    return entries
