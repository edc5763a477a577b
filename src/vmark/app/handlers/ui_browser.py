"""The person's side of the embedded browser (the Browser panel, and the CLI): list tabs, open the
person's own tabs, view any tab live and drive it with real input, close any tab, recover a crashed
one, and review or revoke the site permissions granted to agents. None of this is reachable over MCP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...browser.grants import OPERATIONS
from ...browser.tabs import BrowserTab
from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext


def _tab(ctx: RequestContext, args: JSONObject) -> BrowserTab:
    return ctx.browser_views.tab(args["tabId"])


async def tabs(ctx: RequestContext, args: JSONObject) -> wire.BrowserTabs:
    """Every browser tab, the agents' and the person's, with redacted URLs."""
    return {"tabs": await ctx.browser_views.listing()}


async def human_open(ctx: RequestContext, args: JSONObject) -> wire.BrowserOpened:
    url = args.get("url")
    return await ctx.browser_views.open_human(url or None)


async def view(ctx: RequestContext, args: JSONObject) -> wire.BrowserViewed:
    """Start a screencast of the tab for this page: ``browser_frame`` events, each to be acknowledged."""
    tab = _tab(ctx, args)
    ctx.windows.page_window(ctx.connection)  # a page that is not attached to a window views nothing
    return await ctx.browser_views.view(ctx.connection, tab)


async def unview(ctx: RequestContext, args: JSONObject) -> wire.BrowserUnviewed:
    return ctx.browser_views.unview(ctx.connection, args["tabId"])


async def frame_ack(ctx: RequestContext, args: JSONObject) -> wire.BrowserTabPayload:
    return ctx.browser_views.frame_ack(ctx.connection, args["tabId"])


async def input_(ctx: RequestContext, args: JSONObject) -> wire.BrowserInputResult:
    return await ctx.browser_views.input(ctx.connection, _tab(ctx, args), args)


async def nav(ctx: RequestContext, args: JSONObject) -> wire.BrowserWhere:
    return await ctx.browser_views.nav(_tab(ctx, args), args.get("op"), args.get("url"))


async def close(ctx: RequestContext, args: JSONObject) -> wire.BrowserClosed:
    return await ctx.browser_views.close(_tab(ctx, args))


async def reload_crashed(ctx: RequestContext, args: JSONObject) -> wire.BrowserWhere:
    return await ctx.browser_views.reload_crashed(_tab(ctx, args))


async def permissions(ctx: RequestContext, args: JSONObject) -> wire.SitePermissions:
    """The standing grants ("Allow on this site"), one row per tab, site, operation and what it binds."""
    return {
        "permissions": [
            {
                "tabId": grant.tab,
                "origin": grant.origin,
                "operation": grant.operation,
                "role": grant.role,
                "name": grant.name,
                "value": grant.value,
            }
            for grant in ctx.browser.grants.list_site_permissions()
        ]
    }


async def revoke(ctx: RequestContext, args: JSONObject) -> wire.Revoked:
    origin = args["origin"]
    operation = args["operation"]
    if operation not in OPERATIONS:
        raise ArgumentError(f"operation must be one of {list(OPERATIONS)}")
    ctx.browser.grants.revoke(origin, operation)
    return {"origin": origin, "operation": operation, "revoked": True}


ACTIONS = {
    "browser.tabs": PersonAction(tabs),
    "browser.human_open": PersonAction(human_open, checks=("url",)),
    "browser.view": PersonAction(view, checks=("tabId",)),
    "browser.unview": PersonAction(unview, checks=("tabId",)),
    "browser.frame_ack": PersonAction(frame_ack, checks=("tabId",)),
    # the event's own fields are checked by vmark.browser.person_input (they depend on its type)
    "browser.input": PersonAction(input_, checks=("tabId",)),
    "browser.nav": PersonAction(nav, checks=("tabId",)),
    "browser.close": PersonAction(close, checks=("tabId",)),
    "browser.reload_crashed": PersonAction(reload_crashed, checks=("tabId",)),
    "browser.permissions": PersonAction(permissions),
    "browser.revoke": PersonAction(revoke, checks=("origin", "operation"), values=("operation",)),
}
