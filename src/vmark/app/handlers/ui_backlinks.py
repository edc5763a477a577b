"""``ui.backlinks``: the lines of the window's other Markdown files that link to a tab's file (docs/backlinks.md).

The files are the ones the tree lists (``storage.tree.list_files``) under each workspace instance of the
tab's window, Markdown only, each canonicalized through the window's path scope (a symlink out of it is not
read) and read up to a size bound; an open document answers from its current text (:mod:`.workspace_texts`).
The scanner (:mod:`vmark.core.backlinks`) counts wikilinks by a broad rule; the page narrows them with its own.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ...core.backlinks import links_to
from ...protocol import wire_types as wire
from ...protocol.jsontypes import JSONObject
from ...protocol.limits import BACKLINKS_LINE_CHARS, BACKLINKS_MAX_RESULTS
from ...storage.pathscope import PathScope
from .args import tab_of
from .registry import PersonAction
from .workspace_texts import listed_texts, open_texts

if TYPE_CHECKING:
    from ..context import RequestContext


async def backlinks(ctx: RequestContext, args: JSONObject) -> wire.Backlinks:
    window, tab = tab_of(ctx, args)
    target = tab.doc.path
    if target is None:  # an untitled document: nothing can link to it
        return {"filePath": None, "backlinks": [], "truncated": False}
    roots = [w.root for w in window.workspaces]
    scope = ctx.session.scope(window)
    found = await asyncio.to_thread(_scan, roots, scope, target, open_texts(ctx.session))
    found.sort(key=lambda b: (b["path"], b["line"]))
    return {
        "filePath": target,
        "backlinks": found[:BACKLINKS_MAX_RESULTS],
        "truncated": len(found) > BACKLINKS_MAX_RESULTS,
    }


def _scan(roots: list[str], scope: PathScope, target: str, opened: dict[str, str]) -> list[wire.Backlink]:
    found: list[wire.Backlink] = []
    for _root, _entry, path, text in listed_texts(roots, opened, markdown_only=True, scope=scope):
        if path == target:  # a file is not its own backlink
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


ACTIONS = {"ui.backlinks": PersonAction(backlinks, checks=("tabId",))}
