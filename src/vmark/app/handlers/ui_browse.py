"""The person's picker: a folder listed through the scope, the places to start from, the recent folders and files.

A listing answers only inside :func:`vmark.storage.pathscope.browsable` (the always-readable locations, the
folders granted this session, the window's workspace roots), after resolving symlinks and ``..``; a link inside
that leads out is listed as ``outside`` and never followed (not even to say what it is). Every refusal is
``INVALID_PATH``. What is picked is opened by the requests a typed path used (``ui.open``, ``ui.open_folder``,
``ui.save_as``), under their rules: the picker only decides what the person sees.
"""

from __future__ import annotations

import asyncio
import os
import stat
from typing import TYPE_CHECKING

from ...core.kinds import kind_for_path
from ...protocol import wire_types as wire
from ...protocol.errors import DomainError
from ...protocol.jsontypes import JSONObject
from ...protocol.limits import BROWSE_MAX_ENTRIES
from ...storage.pathscope import PathScope, ScopeError, browsable, canonical, home_folder, readable_roots
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext

OUTSIDE = (
    "{path} is outside the folders the picker may list: your home folder, the folders of the readable_roots"
    " setting and this window's workspaces"
)


async def browse(ctx: RequestContext, args: JSONObject) -> wire.Browsed:
    """The entries of a folder (or of a file's folder, the file ``selected``), bounded, folders first."""
    window = ctx.windows.page_window(ctx.connection)
    area = browsable(ctx.settings.get("readable_roots"), ctx.folder_grants, [w.root for w in window.workspaces])
    asked = args.get("path")
    path = home_folder() if asked is None else _expand(asked)
    return await asyncio.to_thread(_listing, area, path, bool(args.get("hidden")), args.get("filter") or "")


def _expand(path: str) -> str:
    """``~`` and ``~/...`` are the home folder (what a person types); anything else is taken as it is."""
    if path == "~" or path.startswith("~/"):
        return home_folder() + path[1:]
    return path


def _listing(area: PathScope, path: str, hidden: bool, needle: str) -> wire.Browsed:
    folder, selected = _folder(area, path)
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise DomainError("INVALID_PATH", f"cannot list {folder}: {exc.strerror}", filePath=folder) from exc
    try:
        area.check_fd(fd, folder)  # a folder swapped for a link since it was resolved is not listed
        with os.scandir(fd) as scan:
            items = list(scan)
        wanted = needle.casefold()
        rows = [
            (item, _kind(folder, item, area))
            for item in items
            if (hidden or not item.name.startswith(".")) and wanted in item.name.casefold()
        ]
        rows.sort(key=lambda row: (row[1] != "folder", row[0].name.casefold(), row[0].name))
        entries = [_entry(folder, item, kind) for item, kind in rows[:BROWSE_MAX_ENTRIES]]
    except ScopeError as exc:
        raise exc.refusal(path) from exc
    except OSError as exc:
        raise DomainError("INVALID_PATH", f"cannot list {folder}: {exc.strerror}", filePath=folder) from exc
    finally:
        os.close(fd)
    parent = os.path.dirname(folder)
    return {
        "path": folder,
        "parent": parent if parent != folder and area.contains(parent) else None,
        "selected": selected,
        "entries": entries,
        "more": max(0, len(rows) - BROWSE_MAX_ENTRIES),
        "writable": os.access(folder, os.W_OK),
    }


def _folder(area: PathScope, path: str) -> tuple[str, str | None]:
    """The canonical folder to list (inside ``area``) and the file ``path`` named in it, if it named one."""
    try:
        real = canonical(path)
    except ScopeError as exc:
        raise exc.refusal(path) from exc
    if not area.contains(real):
        raise DomainError("INVALID_PATH", OUTSIDE.format(path=path), filePath=path)
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError as exc:
        raise DomainError("INVALID_PATH", f"There is no folder or file {path}", filePath=path) from exc
    except OSError as exc:
        raise DomainError("INVALID_PATH", f"cannot use {path}: {exc.strerror}", filePath=path) from exc
    if stat.S_ISDIR(mode):
        return real, None
    folder = os.path.dirname(real)
    if not area.contains(folder):  # a readable root that is a file: its folder is not the picker's
        raise DomainError("INVALID_PATH", OUTSIDE.format(path=folder), filePath=folder)
    return folder, os.path.basename(real)


def _kind(folder: str, item: os.DirEntry[str], area: PathScope) -> wire.EntryKind:
    if item.is_symlink() and not area.contains(os.path.realpath(os.path.join(folder, item.name))):
        return "outside"
    try:
        if item.is_dir():
            return "folder"
        if item.is_file():
            return "file"
    except OSError:
        pass
    return "other"  # a device, a socket, a broken link


def _entry(folder: str, item: os.DirEntry[str], kind: wire.EntryKind) -> wire.BrowseEntry:
    link = item.is_symlink()
    entry: wire.BrowseEntry = {
        "name": item.name,
        "kind": kind,
        "link": link,
        "size": None,
        "modified": None,
        "opens": None,
    }
    if kind == "outside":
        return entry
    try:
        st = item.stat()
    except OSError:
        return entry
    entry["modified"] = st.st_mtime
    if kind == "file":
        entry["size"] = st.st_size
        path = os.path.join(folder, item.name)
        entry["opens"] = kind_for_path(os.path.realpath(path) if link else path)
    return entry


async def places(ctx: RequestContext, args: JSONObject) -> wire.Places:
    """The folders the picker lists from (home, readable roots, granted, the window's workspaces) and the recents."""
    window = ctx.windows.page_window(ctx.connection)
    home = home_folder()
    found: list[tuple[str, wire.PlaceKind]] = [(home, "home")]
    found += [(root, "readable") for root in readable_roots(ctx.settings.get("readable_roots"))[1:]]
    found += [(granted, "granted") for granted in sorted(ctx.folder_grants)]
    found += [(w.root, "workspace") for w in window.workspaces]
    recents = ctx.recents

    def read() -> wire.Places:
        seen: set[str] = set()
        shown: list[wire.Place] = []
        for path, kind in found:
            if path not in seen and os.path.isdir(path):
                seen.add(path)
                shown.append({"path": path, "kind": kind})
        return {
            "home": home,
            "places": shown,
            "recentFolders": recents.listing("folder"),
            "recentFiles": recents.listing("file"),
        }

    return await asyncio.to_thread(read)


async def recent_forget(ctx: RequestContext, args: JSONObject) -> wire.RecentForgotten:
    """Take a path off the recent folders and files (a gone folder the person no longer wants offered)."""
    return {"forgotten": ctx.recents.forget(args["path"])}


ACTIONS = {
    "ui.browse": PersonAction(browse, checks=("path", "hidden", "filter")),
    "ui.places": PersonAction(places),
    "ui.recent_forget": PersonAction(recent_forget, checks=("path",)),
}
