"""The texts of the files the tree lists in a window's workspaces, as the workspace-wide reads take them
(``ui.search``, ``ui.backlinks``): each file once, an open document's current text (unsaved edits included),
any other file from the disk up to :data:`SEARCH_MAX_FILE_BYTES` (a larger or unreadable one is left out)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...protocol.limits import SEARCH_MAX_FILE_BYTES
from ...protocol.wire_types import TreeFile
from ...storage.pathscope import PathScope, ScopeError
from ...storage.tree import list_files

if TYPE_CHECKING:
    from ..state import Session


def open_texts(session: Session) -> dict[str, str]:
    """The current text of every open document with a file, by its path."""
    return {doc.path: doc.state.text for _, tab in session.tabs() if (doc := tab.doc).path}


def listed_texts(
    roots: list[str], opened: dict[str, str], *, markdown_only: bool = False, scope: PathScope | None = None
) -> Iterator[tuple[str, TreeFile, str, str]]:
    """``(root, entry, path, text)`` for each listed file, in the tree's order. With ``scope`` a path is
    canonicalized through it and a file it refuses (a symlink leading out) is left out."""
    seen: set[str] = set()
    for root in roots:
        for entry in list_files(root)[0]:
            if markdown_only and entry["kind"] != "markdown":
                continue
            path = os.path.join(root, entry["path"])
            if scope is not None:
                try:
                    path = scope.resolve(path)
                except ScopeError:
                    continue
            if path in seen:
                continue
            seen.add(path)
            text = opened.get(path)
            if text is None:
                text = read_bounded(path)
            if text is not None:
                yield root, entry, path, text


def read_bounded(path: str) -> str | None:
    """The file's text, or None when it is unreadable or larger than the bound."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(SEARCH_MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > SEARCH_MAX_FILE_BYTES:
        return None
    return data.decode("utf-8", errors="replace")
