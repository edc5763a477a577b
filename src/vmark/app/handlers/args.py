"""What the person's actions share once the registry (:mod:`.registry`) has checked their arguments."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.model import Tab, Window
from ...protocol.jsontypes import JSONObject

if TYPE_CHECKING:
    from ..context import RequestContext


def tab_of(ctx: RequestContext, args: JSONObject) -> tuple[Window, Tab]:
    """The window and the tab an action's ``tabId`` names (``NO_TAB`` if none)."""
    return ctx.session.find_tab(args["tabId"])
