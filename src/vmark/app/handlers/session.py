"""``session``: one-time orientation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import __version__
from ...core.kinds import KINDS
from ...protocol import results
from ...protocol.jsontypes import JSONObject

if TYPE_CHECKING:
    from ..context import RequestContext

MCP_PROTOCOL = "0.2.0"


def capabilities() -> results.Capabilities:
    return {"version": __version__, "supportedKinds": list(KINDS), "mcpProtocol": MCP_PROTOCOL}


async def get_state(ctx: RequestContext, args: JSONObject) -> results.SessionState:
    return {
        "windows": ctx.session.describe(),
        "browserTabs": await ctx.browser.listing(),  # URLs redacted: no query string or fragment
        "capabilities": capabilities(),
    }


async def changes(ctx: RequestContext, args: JSONObject) -> results.SessionChanges:
    """The events since ``since`` (oldest first) that this agent may see, with the cursor to ask from next."""
    session = ctx.session
    scopes = [session.scope(window) for window in session.windows.values()]
    tab_id = args.get("tabId")
    if tab_id is not None:
        session.find_tab(tab_id)  # an unknown tab is INVALID_TAB, not a filter that never matches
    return await ctx.changes.read(
        ctx.connection,
        lambda path: any(scope.contains(path) for scope in scopes),
        args.get("since"),
        tab_id,
        args.get("kinds"),
        args.get("wait_ms", 0),
    )


ACTIONS = {"get_state": get_state, "changes": changes}
