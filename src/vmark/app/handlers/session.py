"""``session``: one-time orientation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import __version__
from ...core.kinds import KINDS

if TYPE_CHECKING:
    from ..context import RequestContext

MCP_PROTOCOL = "0.2.0"


def capabilities() -> dict[str, Any]:
    return {"version": __version__, "supportedKinds": list(KINDS), "mcpProtocol": MCP_PROTOCOL}


async def get_state(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "windows": ctx.session.describe(),
        "browserTabs": await ctx.browser.listing(),  # URLs redacted: no query string or fragment
        "capabilities": capabilities(),
    }


ACTIONS = {"get_state": get_state}
