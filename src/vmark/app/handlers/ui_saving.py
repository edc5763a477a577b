"""The person's saves: save, Save as (never over another file) and the choice a divergent tab asks for."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ...core.kinds import MARKDOWN_SUFFIXES, WORKFLOW_SUFFIXES, kind_for_path
from ...protocol.errors import DomainError
from ..state import canonical_or_invalid
from ..tab_save import already_exists
from .args import tab_of
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext


async def save(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    window, tab = tab_of(ctx, args)
    if tab.doc.path is None:
        raise DomainError("INVALID_PATH", "untitled: choose a path first")
    return await ctx.saver.person_save(window, tab, tab.doc.path)


async def save_as(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    """The person may save anywhere, as a file of a supported kind, but never over an existing file."""
    window, tab = tab_of(ctx, args)
    doc = tab.doc
    real = canonical_or_invalid(args["path"])
    if real == doc.path:  # "Save as" onto the document's own file is a save
        return await ctx.saver.person_save(window, tab, real)
    kind = kind_for_path(real)
    if kind is None:
        raise DomainError("INVALID_PATH", _UNSUPPORTED.format(path=real), filePath=real)
    folder = os.path.dirname(real)
    if not os.path.isdir(folder):
        raise DomainError("INVALID_PATH", f"There is no folder {folder}", filePath=real)
    if os.path.lexists(real):
        raise already_exists(real)
    if ctx.session.doc_by_path(real) is not None:  # open, though its file is gone from the disk
        raise DomainError("INVALID_PATH", f"{real} is open in another tab; close it first", filePath=real)
    saved = await ctx.saver.person_save(window, tab, real, new_kind=kind)
    ctx.recents.opened("file", saved["filePath"])
    return saved


_UNSUPPORTED = (
    "{path} is not a Markdown or workflow file: end its name with "
    + ", ".join(sorted(MARKDOWN_SUFFIXES))
    + ", or save "
    + "/".join(sorted(WORKFLOW_SUFFIXES, reverse=True))
    + " files inside .github/workflows"
)


async def resolve_divergence(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _, tab = tab_of(ctx, args)
    keep = args["keep"]
    await ctx.disk.resolve_divergence(tab.doc, keep)
    return {"divergent": tab.doc.divergent, "revision": tab.doc.state.revision}


ACTIONS = {
    "ui.save": PersonAction(save, checks=("tabId",)),
    "ui.save_as": PersonAction(save_as, checks=("tabId", "path")),
    "ui.resolve_divergence": PersonAction(resolve_divergence, checks=("tabId", "keep")),
}
