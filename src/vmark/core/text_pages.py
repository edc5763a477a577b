"""A document read in pages that each fit the MCP output bound.

A page is ``text[offset:offset + n]`` for the largest ``n`` (at most ``limit``) whose answer, as the
JSON text the MCP server sends (:func:`compact_json`), stays within :data:`OUTPUT_BOUND_BYTES`.
Offsets count code points (Python string indices). ``nextOffset`` is present while more remains,
so the pages joined are the text.
"""

from __future__ import annotations

from ..protocol.limits import OUTPUT_BOUND_BYTES
from ..protocol.results import DocumentFields, DocumentPage
from .jsonfast import compact_json as compact_json  # the JSON text of a tool result, as the MCP server sends it
from .jsonfast import compact_size
from .progress import report


def _escaped_size(text: str) -> int:
    """UTF-8 bytes of ``text`` as a JSON string, without its quotes."""
    return compact_size(text) - 2


def page(text: str, offset: int, limit: int | None, fields: DocumentFields) -> DocumentPage:
    """``{content, **fields, totalLength, nextOffset?}`` for the page of ``text`` starting at ``offset``."""
    total = len(text)
    start = min(offset, total)
    shell = {"content": "", **fields, "totalLength": total, "nextOffset": total}
    room = OUTPUT_BOUND_BYTES - compact_size(shell)
    most = total - start if limit is None else min(limit, total - start)
    count = _fitting(text, start, most, max(room, 0))
    answer: DocumentPage = {
        "content": text[start : start + count],
        "revision": fields["revision"],
        "filePath": fields["filePath"],
        "kind": fields["kind"],
        "dirty": fields["dirty"],
        "totalLength": total,
    }
    if start + count < total:
        answer["nextOffset"] = start + count
    if start > 0 or start + count < total:  # a paged read: how far through the text this page reaches
        report(start + count, total, "characters read")
    return answer


def _fitting(text: str, start: int, most: int, room: int) -> int:
    """The largest ``n <= most`` whose ``text[start:start + n]`` escapes into ``room`` bytes (at least 1 if any)."""
    high = min(most, room)  # every code point takes at least one byte
    if high <= 0 or _escaped_size(text[start : start + high]) <= room:
        return max(high, min(most, 1))
    low = 0  # fits; high does not
    while high - low > 1:
        middle = (low + high) // 2
        if _escaped_size(text[start : start + middle]) <= room:
            low = middle
        else:
            high = middle
    return max(low, 1)
