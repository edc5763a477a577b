"""``test.*``: the tests' requests, routed only in an app built with test hooks (never in a person's app)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject

if TYPE_CHECKING:
    from ..context import RequestContext


class Faulted(TypedDict):
    ok: bool


async def fault(ctx: RequestContext, args: JSONObject) -> Faulted:
    """Set the faults and delays the next requests meet (only the ones named)."""
    hooks = ctx.hooks
    if hooks is None:  # not routed then; a direct call must not pass silently either
        raise ArgumentError("'test.fault' needs an app built with test hooks")
    if "journal" in args:
        hooks.journal.set(args["journal"])
    if "editor" in args:
        hooks.editor.fail = args["editor"]
    if "save_delay" in args:
        hooks.save_delay.seconds = float(args["save_delay"])
    if "coherence_delay" in args:
        hooks.coherence_delay.seconds = float(args["coherence_delay"])
    if "review" in args:  # the review bench's peer run: the same writes without review
        ctx.review.enabled = bool(args["review"])
    return {"ok": True}


#: request type -> handler; any connection may send these (agents' tests inject faults too)
ACTIONS = {"test.fault": fault}
