"""Asking the page that shows a tab: its selection, and what its editor makes of an agent's text.

The app sends the page an ``editor`` request event (answered with ``ui.reply``) with an ``op``:

- ``get``: the selection ``{from, to, text}``;
- ``prepare``: a ``selection.set`` prepared: the selection ``{from, to}`` and ``replaced`` (code points), and
  in WYSIWYG mode ``changes``, the spans ``[[from, to, insert], ...]`` (code points of the text at
  ``revision``) its editor's replacement makes; the app applies them (in source mode it replaces the
  selected code points itself).

Every answer carries ``{ok, tabId, mode, revision, composing}``; the page first passes on its unsent
keystrokes and selection move (``revision`` is null while some are still unsent). A ``document.write``
asks no editor: the document holds exactly the agent's text, which the pages then display.
"""

from __future__ import annotations

from typing import Any

from ..core.model import Tab
from ..protocol.errors import DomainError
from ..protocol.limits import UI_ROUND_TRIP_SECONDS
from .connection import Connection


async def ask_editor(page: Connection, tab: Tab, request: dict[str, Any]) -> dict[str, Any]:
    """The page's answer about ``tab``; ``NO_EDITOR`` when it has none, shows another tab or is silent."""
    answer = await page.ask("editor", {"tabId": tab.id, **request}, UI_ROUND_TRIP_SECONDS)
    if answer is None:
        raise DomainError("NO_EDITOR", "The editor did not answer in time")
    if not answer.get("ok"):
        raise DomainError("NO_EDITOR", str(answer.get("reason") or f"{tab.id} has no active editor"))
    if answer.get("tabId") != tab.id:
        raise DomainError("NO_EDITOR", f"The editor shows {answer.get('tabId')}, not the focused tab {tab.id}")
    return answer
