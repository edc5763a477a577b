"""``document``: read and write whole documents."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from ...core.edits import Edit, apply_edits, parse_edits
from ...core.text_pages import page
from ...protocol import results
from ...protocol.errors import ArgumentError, DomainError
from ...protocol.jsontypes import JSONObject
from ...text import SETTING_KEYS, CjkRules
from ..writes import WriteRequest, check_text

if TYPE_CHECKING:
    from ..context import RequestContext


def user_cjk_rules(ctx: RequestContext) -> CjkRules:
    """The person's CJK rules, as the settings say now (``document.transform`` and format selection)."""
    return CjkRules.from_settings({key: ctx.settings.get(key) for key in SETTING_KEYS})


async def cjk_engine() -> Callable[[str, str, CjkRules], str]:
    """The CJK engine's transform. The engine (Markdown parsing, the rules' regular expressions: about 100 ms of
    CPU) is imported by the first transform, on a worker thread, not as the app starts."""

    loaded = sys.modules.get("vmark.text.transform")
    if loaded is not None:  # every later transform: no hop to a worker thread
        return cast("Callable[[str, str, CjkRules], str]", loaded.transform)

    def load() -> Callable[[str, str, CjkRules], str]:
        from ...text.transform import transform

        return transform

    return await asyncio.to_thread(load)


async def read(ctx: RequestContext, args: JSONObject) -> results.DocumentPage:
    """The content, or the page of it from ``offset`` that fits one answer (``nextOffset`` while more remains).

    A later page names the first page's revision as ``expected_revision``, so all pages are of one text.
    """
    _window, tab = ctx.session.resolve_tab(args.get("tabId"))
    doc = tab.doc
    state = doc.state
    expected = args.get("expected_revision")
    if expected is not None and expected != state.revision:
        raise DomainError("STALE", current_revision=state.revision)
    tab.basis_seq = doc.write_seq
    ctx.coherence.note_read(ctx.connection, doc)
    fields: results.DocumentFields = {
        "revision": state.revision,
        "filePath": doc.path,
        "kind": doc.kind,
        "dirty": doc.dirty,
    }
    return page(state.text, args.get("offset", 0), args.get("limit"), fields)


async def write(ctx: RequestContext, args: JSONObject) -> results.Written:
    tab_id = args.get("tabId")
    window, tab = ctx.session.resolve_tab(tab_id)
    content: str = args["content"]
    check_text(content)  # before anything else: nothing may change
    # In either mode the document holds and saves exactly the agent's text; an editor only displays it.
    request = WriteRequest(
        tool="document.write",
        edit=lambda _current: content,
        whole_text=True,
        expected_revision=args.get("expected_revision"),
        addresses=tuple(args.get("addresses", ())),
        save=args.get("save", True),
        implicit_tab=tab_id is None,
    )
    return await ctx.writer.write(ctx.connection, window, tab, request)


class _EditPlan:
    """``document.edit``'s edits, applied to the text as it is in the document's write turn (the writer
    finds the span they replaced: views get only that)."""

    def __init__(self, edits: tuple[Edit, ...]) -> None:
        self._edits = edits

    def edit(self, current: str) -> str:
        return apply_edits(current, self._edits).text


async def edit(ctx: RequestContext, args: JSONObject) -> results.Written:
    """Exact-match edits as one revision: journaled, checked, saved and answered like ``write``.

    The text is computed from the document's text in its write turn; a page shows the result (in
    WYSIWYG too, no editor round trip: every byte outside the edits stays as it was).
    """
    tab_id = args.get("tabId")
    window, tab = ctx.session.resolve_tab(tab_id)
    edits = parse_edits(args["edits"])
    for item in edits:  # before anything else: nothing may change
        check_text(item.old)
        check_text(item.new)
    plan = _EditPlan(edits)
    request = WriteRequest(
        tool="document.edit",
        edit=plan.edit,
        expected_revision=args.get("expected_revision"),
        addresses=tuple(args.get("addresses", ())),
        save=args.get("save", True),
        implicit_tab=tab_id is None,
    )
    return await ctx.writer.write(ctx.connection, window, tab, request)


async def transform(ctx: RequestContext, args: JSONObject) -> results.Written:
    cjk_transform = await cjk_engine()  # before the tab is looked up: nothing awaits between that and the write
    tab_id = args.get("tabId")
    window, tab = ctx.session.resolve_tab(tab_id)
    if tab.doc.kind != "markdown":
        raise ArgumentError(f"document.transform works on Markdown tabs; {tab.id} is {tab.doc.kind}")
    rules = user_cjk_rules(ctx)
    kind: str = args["kind"]
    request = WriteRequest(
        tool="document.transform",
        edit=lambda text: cjk_transform(text, kind, rules),
        expected_revision=args.get("expected_revision"),
        addresses=tuple(args.get("addresses", ())),
        implicit_tab=tab_id is None,
        skip_unchanged=True,
    )
    return await ctx.writer.write(ctx.connection, window, tab, request)


ACTIONS = {"read": read, "write": write, "edit": edit, "transform": transform}
