"""Search across the window's workspace (``ui.search``): every line of its files that holds the query.

The files are the ones the tree lists (``storage.tree.list_files``) under each workspace instance of the
page's window: the person's scope. Open documents answer from their current text (unsaved edits
included), other files from the disk. Results come by file, then line; capped so one query over a big
workspace stays quick.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from vmark.protocol.limits import SEARCH_LINE_PREVIEW_CHARS, SEARCH_MAX_RESULTS

from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject
from .registry import PersonAction
from .workspace_texts import listed_texts, open_texts

if TYPE_CHECKING:
    from ..context import RequestContext


async def search(ctx: RequestContext, args: JSONObject) -> wire.SearchResults:
    query = args.get("query")
    if not isinstance(query, str) or query.strip() == "":
        raise ArgumentError("argument 'query' must be a non-empty string")
    if "\n" in query or "\r" in query:
        raise ArgumentError("argument 'query' must be one line")
    match_case = args.get("matchCase", False)
    if not isinstance(match_case, bool):
        raise ArgumentError("argument 'matchCase' must be a boolean")
    window = ctx.windows.page_window(ctx.connection)
    roots = [w.root for w in window.workspaces]
    results, truncated = await asyncio.to_thread(_search, roots, query, match_case, open_texts(ctx.session))
    return {"query": query, "results": results, "truncated": truncated}


def _search(
    roots: list[str], query: str, match_case: bool, opened: dict[str, str]
) -> tuple[list[wire.SearchResult], bool]:
    needle = query if match_case else query.casefold()
    results: list[wire.SearchResult] = []
    for root, entry, path, text in listed_texts(roots, opened):
        for number, line in enumerate(text.splitlines(), start=1):
            hay = line if match_case else line.casefold()
            column = hay.find(needle)
            if column < 0:
                continue
            if len(results) >= SEARCH_MAX_RESULTS:
                return results, True
            start = max(0, column - SEARCH_LINE_PREVIEW_CHARS // 3)
            results.append(
                {
                    "root": root,
                    "path": entry["path"],
                    "filePath": path,
                    "line": number,
                    "column": column,
                    "length": len(query),
                    "text": line[start : start + SEARCH_LINE_PREVIEW_CHARS],
                    "textColumn": column - start,
                }
            )
    return results, False


#: ``query`` and ``matchCase`` are checked by the search itself (its messages say what a query may be)
ACTIONS = {"ui.search": PersonAction(search)}
