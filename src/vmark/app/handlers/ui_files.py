"""The file tree's operations: new file, new folder, rename, move, delete (to the OS trash).

Every path goes through the window's path scope (its workspace roots and the folders of its open
documents), canonicalized there, so ``..`` and symlinks cannot carry an operation out of it; a
workspace root itself is never renamed, moved or deleted. Nothing is ever replaced: a name that is
taken is refused. Open documents follow a rename or a move (their tabs show the new name and later
saves go to the new place); a deleted file's clean tabs close, and a file with unsaved changes in a
tab is not deleted.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from ...core.kinds import kind_for_path
from ...protocol import wire_types as wire
from ...protocol.errors import DomainError
from ...protocol.jsontypes import JSONObject
from ...storage.pathscope import PathScope, ScopeError, is_within
from .registry import PersonAction

if TYPE_CHECKING:
    from ...core.model import Window
    from ..context import RequestContext

#: what a new file is called when its name has no suffix of a kind VMark opens
DEFAULT_SUFFIX = ".md"


def _scope(ctx: RequestContext) -> tuple[Window, PathScope]:
    window = ctx.windows.page_window(ctx.connection)
    return window, ctx.session.scope(window)


def _resolve(scope: PathScope, path: str) -> str:
    try:
        return scope.resolve(path)
    except ScopeError as exc:
        raise exc.refusal(path) from exc


def _not_a_root(window: Window, real: str) -> None:
    if any(real == w.root for w in window.workspaces):
        raise DomainError("INVALID_PATH", f"{real} is a workspace folder: open another folder instead", filePath=real)


def _check_name(real: str) -> None:
    name = os.path.basename(real)
    if name in ("", ".", "..") or "/" in name:
        raise DomainError("INVALID_PATH", f"{name!r} is not a file name", filePath=real)


async def create(ctx: RequestContext, args: JSONObject) -> wire.FileCreated:
    """A new empty file (``type: "file"``, a Markdown name unless it says otherwise) or folder."""
    _, scope = _scope(ctx)
    what = args.get("type", "file")
    path = args["path"]
    if what == "file" and kind_for_path(path) is None:
        if os.path.splitext(path)[1] == "":
            path += DEFAULT_SUFFIX
        else:
            name = os.path.basename(path)
            raise DomainError("INVALID_PATH", f"{name}: VMark opens Markdown files (.md)", filePath=path)
    real = _resolve(scope, path)
    _check_name(real)
    if os.path.lexists(real):
        name = os.path.basename(real)
        raise DomainError("INVALID_PATH", f"{name} already exists here: choose another name", filePath=real)
    try:
        if what == "folder":
            await asyncio.to_thread(os.mkdir, real)
        else:
            await asyncio.to_thread(_create_file, real)
    except FileExistsError as exc:
        raise DomainError("INVALID_PATH", f"{os.path.basename(real)} already exists here", filePath=real) from exc
    except OSError as exc:
        raise DomainError("INVALID_PATH", f"cannot create {real}: {exc.strerror}", filePath=real) from exc
    ctx.session.files_changed()
    return {"path": real, "type": what}


def _create_file(real: str) -> None:
    fd = os.open(real, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
    os.close(fd)


async def rename(ctx: RequestContext, args: JSONObject) -> wire.FileRenamed:
    """Rename or move ``from`` to ``to`` (both in the scope); the open documents under it follow."""
    window, scope = _scope(ctx)
    source = _resolve(scope, args["from"])
    target = _resolve(scope, args["to"])
    _not_a_root(window, source)
    _check_name(target)
    if not os.path.lexists(source):
        raise DomainError("INVALID_PATH", f"{source} does not exist", filePath=source)
    if source == target:
        return {"path": target, "moved": []}
    is_folder = os.path.isdir(source) and not os.path.islink(source)
    if is_folder and is_within(target, source):
        raise DomainError("INVALID_PATH", "a folder cannot move into itself", filePath=target)
    if os.path.lexists(target):
        raise DomainError(
            "INVALID_PATH", f"{os.path.basename(target)} already exists there: choose another name", filePath=target
        )
    if not os.path.isdir(os.path.dirname(target)):
        raise DomainError("INVALID_PATH", f"there is no folder {os.path.dirname(target)}", filePath=target)
    if not is_folder and kind_for_path(source) is not None and kind_for_path(target) is None:
        name = os.path.basename(target)
        raise DomainError("INVALID_PATH", f"{name}: keep a Markdown name (.md) so VMark can open it", filePath=target)
    try:
        await asyncio.to_thread(_move, source, target, is_folder)
    except FileExistsError as exc:
        raise DomainError("INVALID_PATH", f"{os.path.basename(target)} already exists there", filePath=target) from exc
    except OSError as exc:
        raise DomainError("INVALID_PATH", f"cannot move {source}: {exc.strerror}", filePath=source) from exc
    moved = _follow(ctx, source, target)
    ctx.session.files_changed()
    return {"path": target, "moved": moved}


def _move(source: str, target: str, is_folder: bool) -> None:
    if is_folder:
        os.rename(source, target)  # checked free just before: a folder has no link-based no-replace move
        return
    try:
        os.link(source, target, follow_symlinks=False)  # fails if the name is taken: never replaces
    except OSError as exc:
        if isinstance(exc, FileExistsError):
            raise
        if os.path.lexists(target):
            raise FileExistsError(target) from exc
        os.rename(source, target)  # a file system without hard links
        return
    os.unlink(source)


def _follow(ctx: RequestContext, source: str, target: str) -> list[wire.Moved]:
    """Open documents at or under ``source`` now live under ``target``."""
    session = ctx.session
    moved: list[wire.Moved] = []
    for doc in list(session.docs.values()):
        if doc.path is None or not is_within(doc.path, source):
            continue
        old_path = doc.path
        new_path = target + old_path[len(source) :]
        session.rekey(doc, new_path, kind_for_path(new_path) or doc.kind)
        moved.append({"from": old_path, "to": new_path})
    return moved


async def delete(ctx: RequestContext, args: JSONObject) -> wire.FileDeleted:
    """Move a file or folder to the OS trash (``send2trash``); the clean tabs of what it held close."""
    window, scope = _scope(ctx)
    real = _resolve(scope, args["path"])
    _not_a_root(window, real)
    if not os.path.lexists(real):
        raise DomainError("INVALID_PATH", f"{real} does not exist", filePath=real)
    session = ctx.session
    docs = [d for d in session.docs.values() if d.path is not None and is_within(d.path, real)]
    unsaved = [d.path for d in docs if d.dirty]
    if unsaved:
        names = ", ".join(os.path.basename(p or "") for p in unsaved)
        raise DomainError("INVALID_PATH", f"{names} has unsaved changes: save or close it first", filePath=real)
    trashed = await asyncio.to_thread(_trash, real)
    for doc in docs:
        for owner, tab in session.tabs_of(doc):
            ctx.windows.close_tab(owner, tab)
    session.files_changed()
    return {"path": real, "trashed": trashed}


def _trash(real: str) -> bool:
    """To the OS trash where there is one (True); where there is none, the error says so and nothing goes."""
    from send2trash import send2trash  # type: ignore[import-untyped]
    from send2trash.exceptions import TrashPermissionError  # type: ignore[import-untyped]

    try:
        send2trash(real)
    except TrashPermissionError as exc:
        raise DomainError("INVALID_PATH", f"there is no trash for {real}: {exc}", filePath=real) from exc
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise DomainError("INVALID_PATH", f"cannot move {real} to the trash: {reason}", filePath=real) from exc
    return True


ACTIONS = {
    "ui.file_create": PersonAction(create, checks=("path", "type")),
    "ui.file_rename": PersonAction(rename, checks=("from", "to")),
    "ui.file_delete": PersonAction(delete, checks=("path",)),
}
