"""``ui.backlinks``: the lines of the window's other Markdown files that link to a tab's file (docs/backlinks.md).

The files are the ones the tree lists (``storage.tree.list_files``) under each workspace instance of the
tab's window, Markdown only, each canonicalized through the window's path scope (a symlink out of it is not
read) and read up to a size bound; an open document answers from its current text. The scanner
(:mod:`vmark.core.backlinks`) counts wikilinks by a broad rule; the page narrows them with its own.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from ...core.backlinks import links_to
from ...protocol import wire_types as wire
from ...protocol.jsontypes import JSONObject
from ...protocol.limits import BACKLINKS_LINE_CHARS, BACKLINKS_MAX_RESULTS, SEARCH_MAX_FILE_BYTES
from ...storage.pathscope import PathScope, ScopeError
from ...storage.tree import list_files
from .args import tab_of
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext


async def backlinks(ctx: RequestContext, args: JSONObject) -> wire.Backlinks:
    window, tab = tab_of(ctx, args)
    target = tab.doc.path
    if target is None:  # an untitled document: nothing can link to it
        return {"filePath": None, "backlinks": [], "truncated": False}
    open_texts = {doc.path: doc.state.text for _, t in ctx.session.tabs() if (doc := t.doc).path}
    roots = [w.root for w in window.workspaces]
    scope = ctx.session.scope(window)
    found = await asyncio.to_thread(_scan, roots, scope, target, open_texts)
    found.sort(key=lambda b: (b["path"], b["line"]))
    return {
        "filePath": target,
        "backlinks": found[:BACKLINKS_MAX_RESULTS],
        "truncated": len(found) > BACKLINKS_MAX_RESULTS,
    }


def _scan(roots: list[str], scope: PathScope, target: str, open_texts: dict[str, str]) -> list[wire.Backlink]:
    found: list[wire.Backlink] = []
    seen = {target}
    for root in roots:
        for entry in list_files(root)[0]:
            if entry["kind"] != "markdown":
                continue
            try:
                path = scope.resolve(os.path.join(root, entry["path"]))
            except ScopeError:
                continue
            if path in seen:
                continue
            seen.add(path)
            text = open_texts.get(path)
            if text is None:
                text = _read_bounded(path)
            if text is None:
                continue
            for link in links_to(text, path, target, BACKLINKS_LINE_CHARS):
                item: wire.Backlink = {"path": path, "line": link.line, "text": link.text}
                if link.wikilinks:
                    item["wikilinks"] = list(link.wikilinks)
                found.append(item)
                # one more than the limit is enough to say the answer is truncated
                if len(found) > BACKLINKS_MAX_RESULTS:
                    return found
    return found


def _read_bounded(path: str) -> str | None:
    """The file's text, or None when it is unreadable or larger than the bound (not scanned)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(SEARCH_MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > SEARCH_MAX_FILE_BYTES:
        return None
    return data.decode("utf-8", errors="replace")


ACTIONS = {"ui.backlinks": PersonAction(backlinks, checks=("tabId",))}
