"""``selection``: the focused editor's selection, read and replaced through the page that shows it.

The selection is view state: only the page knows it, and in WYSIWYG mode only the page can turn a
ProseMirror range into Markdown (and Markdown into nodes). ``get`` asks the page (``editor_link``);
``set`` asks it in the document's write turn to ``prepare`` the change, after passing on its
keystrokes (so they count for ``STALE``). Either way the write is a change set of the text as the
page shows it: in source mode the app replaces the selected code points with the raw text itself;
in WYSIWYG mode the page answers the ``changes`` its editor makes (the agent's Markdown spliced in
where the selection's source is), which the app applies: the bytes outside them never change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.changes import Span, SpanError, Spans, check_fits, parse_spans
from ...core.document import normalize_line_endings
from ...core.model import Document, Tab, Window
from ...protocol import results
from ...protocol.errors import DomainError
from ...protocol.jsontypes import JSONObject
from ...protocol.wire_types import Mode
from ..connection import Connection
from ..editor_link import ask_editor
from ..writes import BUSY_COMPOSING, WriteRequest, check_text

if TYPE_CHECKING:
    from ..context import RequestContext


def _focused_editor(ctx: RequestContext, tab_id: str | None) -> tuple[Window, Tab, Connection]:
    """The focused window's active tab and the page showing it; ``INVALID_TAB`` / ``NO_EDITOR`` otherwise."""
    window = ctx.session.window()
    active = window.tab(window.active_tab) if window.active_tab else None
    if tab_id is not None and (active is None or active.id != tab_id):
        ctx.session.find_tab(tab_id)  # an unknown id is INVALID_TAB in its own words
        focused = active.id if active is not None else "none"
        raise DomainError(
            "INVALID_TAB",
            f"{tab_id} is not the focused tab (the selection exists only there; focused: {focused})",
            tabId=tab_id,
        )
    if active is None:
        raise DomainError("NO_EDITOR", f"Window {window.label!r} has no active tab")
    pages = ctx.session.pages.get(window.label)
    if not pages:
        raise DomainError("NO_EDITOR", f"No editor shows window {window.label!r} (open it in the VMark UI)")
    return window, active, pages[-1]


def _offsets(answer: dict[str, Any]) -> tuple[int, int]:
    start, end = answer.get("from"), answer.get("to")
    if not isinstance(start, int) or not isinstance(end, int) or not 0 <= start <= end:
        raise DomainError("INTERNAL", f"The editor reported an invalid selection: {start!r}..{end!r}")
    return start, end


def _mode(said: object, tab: Tab) -> Mode:
    """The mode the page said its editor is in (the tab's, should a page not say)."""
    return "source" if said == "source" else "wysiwyg" if said == "wysiwyg" else tab.mode


async def get(ctx: RequestContext, args: JSONObject) -> results.Selection:
    _window, tab, page = _focused_editor(ctx, args.get("tabId"))
    answer = await ask_editor(page, tab, {"op": "get"})
    start, end = _offsets(answer)
    tab.basis_seq = tab.doc.write_seq  # a read, like document.read
    ctx.coherence.note_read(ctx.connection, tab.doc)
    text = str(answer.get("text", ""))
    return {
        "text": text,
        "isEmpty": start == end,
        "range": {"from": start, "to": end},
        "mode": _mode(answer.get("mode"), tab),
        "kind": tab.doc.kind,
        "tabId": tab.id,
        "revision": answer.get("revision", tab.doc.state.revision),
    }


class _Prepared:
    """What the page answered to ``prepare``, and the change set it makes."""

    def __init__(self, ctx: RequestContext, doc: Document, page: Connection, tab: Tab, content: str) -> None:
        self._ctx, self._doc, self._page, self._tab, self._content = ctx, doc, page, tab, content
        self.answer: dict[str, Any] = {}

    async def __call__(self) -> None:
        if self._ctx.turns.is_composing(self._doc):
            raise DomainError("BUSY", BUSY_COMPOSING)
        self.answer = await ask_editor(self._page, self._tab, {"op": "prepare", "content": self._content})
        if self.answer.get("composing"):
            raise DomainError("BUSY", BUSY_COMPOSING)
        _offsets(self.answer)

    @property
    def replaced_chars(self) -> int:
        return int(self.answer.get("replaced", 0))

    def spans(self) -> Spans:
        """The change of the shown text (every line break ``\n``) at the answered revision, which must be the
        current one. WYSIWYG: the editor's ``changes``; source: the selected code points become the content
        (Markdown with ``\n`` line breaks: the writer gives them the file's)."""
        if self.answer.get("revision") != self._doc.state.revision:
            raise DomainError("ABORTED", "The user edited the document while the write was prepared", reason="edited")
        length = len(self._doc.state.shown)
        if self.answer.get("mode") == "wysiwyg":
            try:
                return check_fits(parse_spans(self.answer.get("changes")), length)
            except SpanError as exc:
                raise DomainError("INTERNAL", f"The editor answered an invalid change: {exc}") from exc
        start, end = _offsets(self.answer)
        if end > length:
            raise DomainError("ABORTED", "The document changed under the selection", reason="edited")
        markdown = self._doc.kind == "markdown"
        return (Span(start, end, normalize_line_endings(self._content, "\n") if markdown else self._content),)


async def set_(ctx: RequestContext, args: JSONObject) -> results.SelectionSet:
    tab_id = args.get("tabId")
    window, tab, page = _focused_editor(ctx, tab_id)
    content: str = args["content"]
    check_text(content)
    prepared = _Prepared(ctx, tab.doc, page, tab, content)
    request = WriteRequest(
        tool="selection.set",
        expected_revision=args.get("expected_revision"),
        addresses=tuple(args.get("addresses", ())),
        implicit_tab=tab_id is None,
        skip_unchanged=True,
        prepare=prepared,
        spans=prepared.spans,
    )
    result = await ctx.writer.write(ctx.connection, window, tab, request)
    return {
        "revision": result["revision"],
        "replaced_chars": prepared.replaced_chars,
        "applied": result["applied"],
        "durable": result["durable"],
    }


ACTIONS = {"get": get, "set": set_}
