"""Asking the page that shows a tab: its selection, and what its editor makes of an agent's text.

The app sends the page an ``editor`` request event (answered with ``ui.reply``) with an ``op``:

- ``get``: the selection ``{from, to, text}``;
- ``prepare``: a ``selection.set`` prepared (``replaced``, and in WYSIWYG mode ``result``, the document's
  serialization after it);
- ``load``: a ``document.write`` prepared: in WYSIWYG mode ``result`` is the editor's serialization of the
  parsed content, which is what the document then holds and what gets saved.

Every answer carries ``{ok, tabId, mode, revision, composing}``; the page first passes on its unsent
keystrokes and selection move, and keeps a prepared change ready to load as exactly its steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.errors import DomainError
from ..core.limits import UI_ROUND_TRIP_SECONDS
from ..core.model import Tab
from .connection import Connection
from .writes import BUSY_COMPOSING, check_text

if TYPE_CHECKING:
    from .service import App

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


class EditorLoad:
    """``document.write`` into a tab a page shows in WYSIWYG mode: the editor's form of the content."""

    def __init__(self, app: App, tab: Tab, content: str) -> None:
        self._tab, self._content = tab, content
        self._result: str | None = None
        window = app.session.windows.get(tab.window)
        pages = app.session.pages.get(tab.window) if window is not None else None
        shown = window is not None and window.active_tab == tab.id
        wysiwyg = tab.mode == "wysiwyg" and tab.doc.kind == "markdown"
        self.page = pages[-1] if pages and shown and wysiwyg else None

    async def prepare(self) -> None:
        if self.page is None:
            return
        try:
            answer = await ask_editor(self.page, self._tab, {"op": "load", "content": self._content})
        except DomainError:
            return  # no editor after all: the content is taken as it is
        if answer.get("composing"):
            raise DomainError("BUSY", BUSY_COMPOSING)
        result = answer.get("result")
        if answer.get("mode") == "wysiwyg" and isinstance(result, str):
            check_text(result)
            self._result = result

    def edit(self, _current: str) -> str:
        return self._content if self._result is None else self._result
