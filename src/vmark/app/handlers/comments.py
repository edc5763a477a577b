"""``comments``: an agent reads the person's review threads in pages, replies, and marks them addressed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...protocol import results
from ...protocol.jsontypes import JSONObject

if TYPE_CHECKING:
    from ..context import RequestContext


async def list_(ctx: RequestContext, args: JSONObject) -> results.CommentPage:
    _, tab = ctx.session.resolve_tab(args.get("tabId"))
    ctx.comments.sync(tab.doc.key, tab.doc.path, tab.doc.state)
    return ctx.comments.page(tab.doc.key, args.get("cursor"))


async def reply(ctx: RequestContext, args: JSONObject) -> results.Replied:
    _, tab = ctx.session.resolve_tab(args.get("tabId"))
    return await ctx.comments.agent_change(
        ctx.connection, tab, args["commentId"], "reply", args["expectedCommentGen"], args["body"]
    )


async def mark_addressed(ctx: RequestContext, args: JSONObject) -> results.Addressed:
    _, tab = ctx.session.resolve_tab(args.get("tabId"))
    return await ctx.comments.agent_change(
        ctx.connection, tab, args["commentId"], "mark_addressed", args["expectedCommentGen"]
    )


ACTIONS = {"list": list_, "reply": reply, "mark_addressed": mark_addressed}
