"""The person's saves: save, Save as (never over another file) and the choice a divergent tab asks for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...protocol import wire_types as wire
from ...protocol.errors import DomainError
from ...protocol.jsontypes import JSONObject
from .args import tab_of
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext


async def save(ctx: RequestContext, args: JSONObject) -> wire.SaveResult:
    window, tab = tab_of(ctx, args)
    if tab.doc.path is None:
        raise DomainError("INVALID_PATH", "untitled: choose a path first")
    return await ctx.saver.person_save(window, tab, tab.doc.path)


async def save_as(ctx: RequestContext, args: JSONObject) -> wire.SaveResult:
    """The person may save anywhere, as a file of a supported kind, but never over an existing file (the
    person's policy of :meth:`~vmark.app.tab_save.Saver.save_as`); the new file joins the recent files."""
    window, tab = tab_of(ctx, args)
    before = tab.doc.path
    saved = await ctx.saver.save_as(ctx.connection, window, tab, args["path"])
    if tab.doc.path != before:
        ctx.recents.opened("file", saved.file_path)
    return {"filePath": saved.file_path, "revision": saved.revision}


async def resolve_divergence(ctx: RequestContext, args: JSONObject) -> wire.DivergenceResult:
    _, tab = tab_of(ctx, args)
    keep = args["keep"]
    await ctx.disk.resolve_divergence(tab.doc, keep)
    return {"divergent": tab.doc.divergent, "revision": tab.doc.state.revision}


ACTIONS = {
    "ui.save": PersonAction(save, checks=("tabId",)),
    "ui.save_as": PersonAction(save_as, checks=("tabId", "path")),
    "ui.resolve_divergence": PersonAction(resolve_divergence, checks=("tabId", "keep")),
}
