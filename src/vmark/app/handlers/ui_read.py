"""What a UI page reads: a tab's text and view (``ui.read``), its window's file tree (``ui.files``)."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from vmark.core.limits import MAX_TREE_FILES

from ...core.errors import ArgumentError
from ...core.kinds import kind_for_path
from .registry import STR, PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext

#: folders never walked (dot folders are skipped too, except ``.github`` for workflows)
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})


async def read(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
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


async def files(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    """The files VMark opens under each workspace instance of the page's window (paths relative, sorted)."""
    window = ctx.windows.page_window(ctx.connection)
    listings = []
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


def list_files(root: str, limit: int = MAX_TREE_FILES) -> tuple[list[dict[str, str]], bool]:
    found: list[dict[str, str]] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if _walked(d))
        for name in sorted(names):
            path = os.path.join(folder, name)
            kind = kind_for_path(path)
            if kind is None:
                continue
            if len(found) >= limit:
                return found, True
            found.append({"path": os.path.relpath(path, root), "kind": kind})
    return found, False


def list_folders(root: str, limit: int = MAX_TREE_FILES) -> list[str]:
    """The folders the tree shows (empty ones too, so a new folder can take files), relative, sorted."""
    found: list[str] = []
    for folder, dirs, _names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if _walked(d))
        for name in dirs:
            if len(found) >= limit:
                return found
            found.append(os.path.relpath(os.path.join(folder, name), root))
    return found


def _walked(name: str) -> bool:
    return name not in SKIPPED_DIRS and (not name.startswith(".") or name == ".github")


ACTIONS = {"ui.read": PersonAction(read, optional={"tabId": STR}), "ui.files": PersonAction(files)}
