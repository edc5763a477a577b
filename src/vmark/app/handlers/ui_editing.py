"""The person's typing: edits (spans or the whole text, on a base revision), compositions, selections."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ...core.changes import SpanError, Spans, check_fits, parse_spans, replaced_state, splice_state, wire
from ...core.document import DocState, normalize_line_endings
from ...core.model import Document
from ...core.transaction import Transaction
from ...protocol import wire_types
from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject
from ...protocol.strings import has_lone_surrogate
from .args import tab_of
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext


async def edit(ctx: RequestContext, args: JSONObject) -> wire_types.EditResult:
    """The person's edit: ``changes`` (spans ``[[from, to, insert], ...]``, code points of the shown text at
    ``baseRevision``, sorted and non-overlapping) or the full ``text``. With ``baseRevision`` it applies only on
    top of that revision: otherwise nothing changes and the page gets what happened since, to rebase on
    (``changes`` when the document still knows them, else its ``text``)."""
    _window, tab = tab_of(ctx, args)
    doc = tab.doc
    base = args.get("baseRevision")
    as_changes = args.get("changes") is not None
    if (args.get("text") is not None) == as_changes:
        raise ArgumentError("ui.edit takes either text or changes")
    if as_changes:
        spans = _spans_arg(args["changes"])
        if base is None:
            raise ArgumentError("changes need the baseRevision they were made on")

        def change() -> DocState:
            return splice_state(doc.state, _fitting(spans, len(doc.state.shown)), doc.line_ending)
    else:
        text = args["text"]
        if has_lone_surrogate(text):
            raise ArgumentError("text holds a lone UTF-16 surrogate")

        def change() -> DocState:
            return replaced_state(doc.state, normalize_line_endings(text, doc.line_ending))

    if base is not None and base != doc.state.revision:
        return _stale(doc, base, as_changes)
    state = change()
    if state.text != doc.state.text:
        # The page that typed it does not get its own change back; every other page does, and an agent write
        # being recorded right now is aborted (the writer observes the transaction).
        await ctx.session.apply(Transaction(doc, state, "person", ctx.connection.actor))
    return {"revision": doc.state.revision, "applied": True}


def _spans_arg(raw: object) -> Spans:
    try:
        return parse_spans(raw)
    except SpanError as exc:
        raise ArgumentError(str(exc)) from exc


def _fitting(spans: Spans, length: int) -> Spans:
    try:
        return check_fits(spans, length)
    except SpanError as exc:
        raise ArgumentError(str(exc)) from exc


def _stale(doc: Document, base: str, as_changes: bool) -> wire_types.EditResult:
    """A page's base is not the current revision: what it needs to rebase its edit on."""
    answer: wire_types.EditResult = {"applied": False, "revision": doc.state.revision}
    spans = doc.recent.since(base, doc.state) if as_changes else None
    if spans is None:
        answer["text"] = doc.state.text
    else:
        answer["changes"] = wire(spans)
    return answer


async def composition(ctx: RequestContext, args: JSONObject) -> wire_types.CompositionResult:
    _, tab = tab_of(ctx, args)
    doc = tab.doc
    state = args["state"]
    if state == "start":
        doc.composing = True
        doc.composing_mode = args.get("mode", tab.mode)
        ctx.turns.person_event(doc, "composing")
    else:
        doc.composing = False
        doc.composition_ended_at = time.monotonic()
    return {"composing": doc.composing}


async def selection(ctx: RequestContext, args: JSONObject) -> wire_types.SelectionResult:
    window, tab = tab_of(ctx, args)
    start, end = args.get("from"), args.get("to")
    if not isinstance(start, int) or not isinstance(end, int) or not 0 <= start <= end:
        raise ArgumentError("from and to must be integers with 0 <= from <= to")
    ctx.session.selection_rested(window, tab, start, end)
    ctx.turns.person_event(tab.doc, "selection")
    return {"selection": (start, end)}


ACTIONS = {
    # ``changes`` is checked span by span by core.changes (its own messages name the span at fault)
    "ui.edit": PersonAction(edit, checks=("tabId", "baseRevision", "text"), texts=("text",)),
    "ui.composition": PersonAction(composition, checks=("tabId", "state", "mode")),
    "ui.selection": PersonAction(selection, checks=("tabId",)),
}
