"""What a UI page reads: a tab's text and view (``ui.read``), its window's file tree (``ui.files``)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject
from ...storage.tree import list_files, list_folders
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext


async def read(ctx: RequestContext, args: JSONObject) -> wire.TabText:
    tab_id = args.get("tabId")
    if not isinstance(tab_id, str):
        raise ArgumentError("argument 'tabId' must be a string")
    _, tab = ctx.session.find_tab(tab_id)
    doc = tab.doc
    return {
        "text": doc.state.text,
        "revision": doc.state.revision,
        "kind": doc.kind,
        "mode": tab.mode,
        "dirty": doc.dirty,
        "filePath": doc.path,
        "divergent": doc.divergent,
        "readOnly": doc.read_only,
        "lineEnding": doc.line_ending,
        "encoding": "UTF-8 with BOM" if doc.state.text.startswith("\ufeff") else "UTF-8",
    }


async def files(ctx: RequestContext, args: JSONObject) -> wire.Listings:
    """The files VMark opens under each workspace instance of the page's window (paths relative, sorted)."""
    window = ctx.windows.page_window(ctx.connection)
    listings: list[wire.Listing] = []
    for wsi in window.workspaces:
        found, truncated = await asyncio.to_thread(list_files, wsi.root)
        folders = await asyncio.to_thread(list_folders, wsi.root)
        listings.append(
            {
                "workspaceInstanceId": wsi.id,
                "root": wsi.root,
                "active": wsi.id == window.active_workspace,
                "files": found,
                "folders": folders,
                "truncated": truncated,
            }
        )
    return {"workspaces": listings}


ACTIONS = {"ui.read": PersonAction(read, checks=("tabId",)), "ui.files": PersonAction(files)}
