"""The person's side of review comments (a page or ``vmark comments``): add, read, reply, resolve, reopen,
delete. A document is named by ``tabId`` or by ``filePath``; a file's canonical path is its identity, so a
file that no tab shows has its threads too (anchored against its text on disk)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ...core import comments as model
from ...core.comments import Thread
from ...core.kinds import kind_for_path
from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError, DomainError
from ...protocol.jsontypes import JSONObject
from ...protocol.wire_types import ThreadState
from ...storage.files import read_document
from ...storage.pathscope import PathScope, ScopeError
from ..state import canonical_or_invalid
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext


async def _document(ctx: RequestContext, args: JSONObject) -> tuple[str, str | None, str]:
    """``(key, filePath, text)`` of the document named, its anchors brought up to that text."""
    if args.get("tabId") is not None:
        doc = ctx.session.find_tab(args["tabId"])[1].doc
    elif args.get("filePath") is not None:
        real = canonical_or_invalid(args["filePath"])
        open_doc = ctx.session.doc_by_path(real)
        if open_doc is None:
            return real, real, await _disk_text(ctx, real)
        doc = open_doc
    else:
        raise ArgumentError("name the document: tabId or filePath")
    ctx.comments.sync(doc.key, doc.path, doc.state)
    return doc.key, doc.path, doc.state.text


async def _disk_text(ctx: RequestContext, real: str) -> str:
    if kind_for_path(real) is None:
        raise DomainError("INVALID_PATH", f"{real} is not a Markdown or workflow file", filePath=real)
    try:
        text, _, _ = await asyncio.to_thread(read_document, real, PathScope.of([os.path.dirname(real)]))
    except ScopeError as exc:
        raise exc.refusal(real) from exc
    ctx.comments.sync_text(real, real, None, text)
    return text


def _body(args: JSONObject) -> str:
    body: str = args["body"]
    model.check_body(body)
    return body


def _thread(ctx: RequestContext, args: JSONObject) -> Thread:
    return ctx.comments.thread(args["commentId"])


async def add(ctx: RequestContext, args: JSONObject) -> wire.CommentAdded:
    """A new thread on ``quote``, anchored at its occurrence nearest ``at`` (code points)."""
    quote = args["quote"]
    problem = model.quote_problem(quote)
    if problem is not None:
        raise ArgumentError(problem)
    body = _body(args)
    at = args.get("at")
    at = 0 if at is None else at  # no hint (a WYSIWYG selection has no text offsets): the first occurrence
    if not isinstance(at, int) or isinstance(at, bool) or at < 0:
        raise ArgumentError("argument 'at' must be a code point offset (an integer >= 0)")
    key, path, text = await _document(ctx, args)
    anchor = model.find_exact(text, quote, at)
    if anchor is None:
        raise ArgumentError("quote does not occur in the document's text")
    thread = await ctx.comments.add(key, path, quote, body, anchor)
    return {"comment": thread.id, "commentGen": thread.gen}


async def threads(ctx: RequestContext, args: JSONObject) -> wire.Threads:
    """Every live thread of the document, oldest first, with anchors in its current text."""
    key, _, _ = await _document(ctx, args)
    return {"doc": key, "threads": [t.describe() for t in ctx.comments.live(key)]}


async def person_reply(ctx: RequestContext, args: JSONObject) -> wire.CommentReplied:
    thread = _thread(ctx, args)
    reply = await ctx.comments.person_reply(thread, _body(args))
    return {"reply": reply.id, "commentGen": thread.gen}


def _state_action(
    next_state: dict[ThreadState, ThreadState], default: ThreadState | None
) -> Callable[[RequestContext, JSONObject], Awaitable[wire.ThreadStatus]]:
    """A person's state change: ``next_state`` from the current state (``default`` from any other)."""

    async def action(ctx: RequestContext, args: JSONObject) -> wire.ThreadStatus:
        thread = _thread(ctx, args)
        await ctx.comments.set_state(thread, next_state.get(thread.state, default or thread.state))
        return thread.status()

    return action


#: the document named: a tab, or a file (open or not)

ACTIONS = {
    "comments.add": PersonAction(add, checks=("quote", "body", "tabId", "filePath"), texts=("body",)),
    "comments.threads": PersonAction(threads, checks=("tabId", "filePath")),
    "comments.person_reply": PersonAction(person_reply, checks=("commentId", "body"), texts=("body",)),
    "comments.resolve": PersonAction(_state_action({}, "resolved"), checks=("commentId",)),
    "comments.reopen": PersonAction(
        _state_action({"resolved": "reopened", "addressed": "reopened", "deleted": "reopened"}, None),
        checks=("commentId",),
    ),
    "comments.delete": PersonAction(_state_action({}, "deleted"), checks=("commentId",)),
}
