"""``ui.open_link``: the person follows a link of a document to another file (docs/links.md).

Unlike ``ui.open`` (a path the person typed or picked, which may be anywhere), a link's target is written
in a document, perhaps by an agent: it opens only inside the window's path scope (its workspace roots and
the folders of its open documents), canonicalized there, so neither ``..`` nor a symlink can carry it out,
and only if it is a kind of file VMark opens. A missing target is no error: the answer says so (no
``tabId``) and the page offers to create it with ``ui.file_create`` (the same scope).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...core.kinds import kind_for_path
from ...protocol import wire_types as wire
from ...protocol.errors import DomainError
from ...protocol.jsontypes import JSONObject
from ...storage.pathscope import ScopeError
from .args import tab_of
from .registry import PersonAction
from .workspace import load_tab

if TYPE_CHECKING:
    from ..context import RequestContext


async def open_link(ctx: RequestContext, args: JSONObject) -> wire.LinkResult:
    window = ctx.windows.page_window(ctx.connection)
    _, tab = tab_of(ctx, args)
    target: str = args["path"]
    if not os.path.isabs(target):
        if tab.doc.path is None:
            raise DomainError(
                "INVALID_PATH", f"{target}: save the document first (a relative link starts at its folder)"
            )
        target = os.path.normpath(os.path.join(os.path.dirname(tab.doc.path), target))
    scope = ctx.session.scope(window)
    try:
        real = scope.resolve(target)
    except ScopeError as exc:
        raise exc.refusal(target) from exc
    if os.path.isdir(real):
        raise DomainError("INVALID_PATH", f"{real} is a folder, not a file", filePath=real)
    if kind_for_path(real) is None:
        name = os.path.basename(real)
        raise DomainError("INVALID_PATH", f"{name}: VMark opens Markdown and text files only", filePath=real)
    if not os.path.lexists(real):
        return {"path": real}
    opened, _ = await load_tab(ctx, window, scope, real, activate=True)
    ctx.windows.activate(window, opened)  # in another workspace instance of the window: that one shows
    return {"path": real, "tabId": opened.id}


ACTIONS = {"ui.open_link": PersonAction(open_link, checks=("tabId", "path"))}
