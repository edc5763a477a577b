"""``browser.workflow_record``, ``session_save`` and ``session_load`` on AI-owned tabs: thin adapters over
the recordings (:mod:`vmark.browser.recording`) and the saved sessions (:mod:`vmark.browser.saved_sessions`),
which ask the person for each one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...protocol import browser_results
from ...protocol.jsontypes import JSONObject

if TYPE_CHECKING:
    from ..context import RequestContext


async def workflow_record(ctx: RequestContext, args: JSONObject) -> browser_results.Recording:
    tab = ctx.browser.tab(args.get("tabId"), ai_only=True)
    if args["recordOp"] == "stop":
        return await ctx.browser_recordings.stop(tab, args.get("site"))
    return await ctx.browser_recordings.start(ctx.connection, tab, args.get("site"))


async def session_save(ctx: RequestContext, args: JSONObject) -> browser_results.SessionSaved:
    tab = ctx.browser.tab(args.get("tabId"), ai_only=True)
    return await ctx.browser_sessions.save(ctx.connection, tab, args["handle"])


async def session_load(ctx: RequestContext, args: JSONObject) -> browser_results.SessionLoaded:
    tab = ctx.browser.tab(args.get("tabId"), ai_only=True)
    return await ctx.browser_sessions.load(ctx.connection, tab, args["handle"])


ACTIONS = {
    "workflow_record": workflow_record,
    "session_save": session_save,
    "session_load": session_load,
}
