"""The person's review of agent changes (a page or ``vmark review``): list, accept, reject.

A request names a document by ``tabId`` or by ``filePath`` (``vmark review``): a file no tab shows is opened
in a tab (not activated), like the person's ``ui.open``, which gives it back its pending changes when its
text is still the one they apply to. ``accept`` / ``reject`` take exactly one of ``ids`` (change ids from
``review.list``) or ``all: true``; an unknown id refuses the whole request and changes nothing.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...core.actor import Actor
from ...core.model import Tab
from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject
from ...storage.pathscope import PathScope
from ..journaling import change_entry
from ..state import canonical_or_invalid
from .registry import PersonAction
from .workspace import load_tab

if TYPE_CHECKING:
    from ..context import RequestContext


async def _tab(ctx: RequestContext, args: JSONObject) -> Tab:
    session = ctx.session
    if ("tabId" in args) == ("filePath" in args):
        raise ArgumentError("name the document: tabId or filePath")
    if "tabId" in args:
        return session.find_tab(args["tabId"])[1]
    real = canonical_or_invalid(args["filePath"])
    shown = next((t for _, t in session.tabs() if t.doc.path == real), None)
    if shown is not None:
        return shown
    scope = PathScope.of([os.path.dirname(real)])
    tab, _ = await load_tab(ctx, session.window(), scope, real, activate=False)
    return tab


def _ids(args: JSONObject) -> list[str] | None:
    """The ids to judge, or None for all of them."""
    has_ids, everything = "ids" in args, args.get("all")
    if has_ids == bool(everything):
        raise ArgumentError("give exactly one of ids (a list of change ids) or all: true")
    if everything:
        return None
    ids: list[object] = args["ids"]
    if not (ids and all(isinstance(i, str) for i in ids)):
        raise ArgumentError("ids must be a non-empty list of change ids (strings)")
    return [str(i) for i in ids]


async def review_list(ctx: RequestContext, args: JSONObject) -> wire.ReviewList:
    """``{revision, changes}``; named by ``filePath`` (``vmark review``), also the tab, whether its text is
    unsaved, and each change's ``new`` text (a page has the text; the command line has not)."""
    tab = await _tab(ctx, args)
    doc = tab.doc
    listing = ctx.review.listing(doc)
    if "filePath" in args:
        shown = doc.state.shown
        for change in listing["changes"]:
            change["new"] = shown[change["from"] : change["to"]]
        listing["tabId"], listing["filePath"], listing["dirty"] = tab.id, doc.path, doc.dirty
    return listing


async def review_accept(ctx: RequestContext, args: JSONObject) -> wire.Accepted:
    doc = (await _tab(ctx, args)).doc
    accepted = await ctx.review.accept(doc, _ids(args))
    return {"accepted": accepted, "revision": doc.state.revision, "unreviewed": await ctx.review.unreviewed(doc)}


async def review_reject(ctx: RequestContext, args: JSONObject) -> wire.Rejected:
    """The rejection is the person's edit; the journal records it after it applied (it keeps what the
    rejection replaced, like an agent's entry), without holding the person's edit up."""
    tab = await _tab(ctx, args)
    doc = tab.doc
    # No page typed the restored text: every page gets it (a page's own keystrokes are not sent back to it).
    actor = Actor("person", ctx.connection.principal)
    rejection = await ctx.review.reject(doc, _ids(args), actor)
    if rejection.before is not None and rejection.after is not None:
        entry = change_entry("review.reject", ctx.connection, tab, rejection.before, rejection.after)
        ctx.tasks.spawn(ctx.recorder.record_quietly(entry))
    unreviewed = await ctx.review.unreviewed(doc)
    return {"rejected": rejection.count, "revision": doc.state.revision, "unreviewed": unreviewed}


#: a document by ``tabId`` (a page) or ``filePath`` (``vmark review``); the changes by ``ids`` or ``all``

ACTIONS = {
    "review.list": PersonAction(review_list, checks=("tabId", "filePath")),
    "review.accept": PersonAction(review_accept, checks=("tabId", "filePath", "ids", "all"), inner=("ids",)),
    "review.reject": PersonAction(review_reject, checks=("tabId", "filePath", "ids", "all"), inner=("ids",)),
}
