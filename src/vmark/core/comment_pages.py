"""``comments.list`` in pages: each page's JSON text is at most :data:`COMMENT_PAGE_BYTES`.

Sizes are counted exactly as the MCP server renders a result (compact JSON, UTF-8, no ASCII
escaping). Threads come oldest first. A thread that fits on a fresh page is never split: it
starts the next page instead. One that fits on no page is split between replies; its first part
carries ``repliesFrom`` / ``repliesTotal``, its later parts only ``comment``, ``state``,
``commentGen``, ``continued: true``, ``repliesFrom``, ``repliesTotal`` and the next replies.
A body whose JSON text could not fit on any page travels as ``bodyBase64`` (its UTF-8 bytes);
with quotes bounded by ``MAX_QUOTE_BYTES`` every first part and every single reply fits a page.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from ..protocol.limits import COMMENT_CURSOR_ROOM, COMMENT_PAGE_BYTES
from ..protocol.results import PagedReply, ThreadPart
from .comments import Reply, Thread


@dataclass(frozen=True)
class Position:
    """Where a page starts: thread ``thread`` (an index), from reply ``reply``; ``continued``: its first
    part is already on an earlier page."""

    thread: int
    reply: int = 0
    continued: bool = False


def size(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _body(item: ThreadPart | PagedReply, body: str, fits: bool) -> None:
    if fits:
        item["body"] = body
    else:
        item["bodyBase64"] = base64.b64encode(body.encode("utf-8")).decode("ascii")


class PageHeader(TypedDict):
    """What a page of ``comments.list`` says before its threads."""

    doc: str
    generation: str


class Pager:
    def __init__(self, header: PageHeader, budget: int = COMMENT_PAGE_BYTES) -> None:
        self.header = header
        self.budget = budget
        #: the page with no thread yet (and room for a cursor)
        self.base = size({**header, "threads": [], "nextCursor": "x" * COMMENT_CURSOR_ROOM})

    # --- items ---------------------------------------------------------------------------
    def first_part(self, thread: Thread, split: bool, replies: Sequence[Reply] = ()) -> ThreadPart:
        item: ThreadPart = {
            "comment": thread.id,
            "state": thread.state,
            "commentGen": thread.gen,
            "quote": thread.quote,
            "author": thread.author,
            "created": thread.created,
            "anchor": None if thread.anchor is None else {"from": thread.anchor[0], "to": thread.anchor[1]},
            "orphaned": thread.anchor is None,
        }
        probe = {**item, "body": thread.body, "replies": [], "repliesFrom": 0, "repliesTotal": len(thread.replies)}
        _body(item, thread.body, self.base + size(probe) <= self.budget)
        if split:
            item["repliesFrom"], item["repliesTotal"] = 0, len(thread.replies)
        item["replies"] = [self.reply(thread, r) for r in replies]
        return item

    def later_part(self, thread: Thread, start: int) -> ThreadPart:
        return {
            "comment": thread.id,
            "state": thread.state,
            "commentGen": thread.gen,
            "continued": True,
            "repliesFrom": start,
            "repliesTotal": len(thread.replies),
            "replies": [],
        }

    def reply(self, thread: Thread, reply: Reply) -> PagedReply:
        item: PagedReply = {"id": reply.id, "author": reply.author, "created": reply.created}
        probe = {**self.later_part(thread, len(thread.replies)), "replies": [{**item, "body": reply.body}]}
        _body(item, reply.body, self.base + size(probe) <= self.budget)
        return item

    # --- packing -------------------------------------------------------------------------
    def page(self, threads: Sequence[Thread], at: Position) -> tuple[list[ThreadPart], Position | None]:
        """The threads of one page from ``at``, and where the next page starts (None: this is the last)."""
        items: list[ThreadPart] = []
        used = self.base
        index, start, continued = at.thread, at.reply, at.continued
        while index < len(threads):
            thread = threads[index]
            comma = 1 if items else 0
            if not continued and start == 0:
                whole = self.first_part(thread, False, thread.replies)
                whole_size = size(whole)
                if used + comma + whole_size <= self.budget:
                    items.append(whole)
                    used += comma + whole_size
                    index += 1
                    continue
                if items and self.base + whole_size <= self.budget:
                    return items, Position(index)  # fits a fresh page: do not split it
                part = self.first_part(thread, True)
            else:
                part = self.later_part(thread, start)
            part_size = size(part)
            taken = self._fill(part, thread, start, self.budget - used - comma - part_size)
            if items and not taken and (continued or start or thread.replies):
                return items, Position(index, start, continued)  # only a bare header would fit here
            items.append(part)
            used += comma + size(part)
            start += taken
            if start < len(thread.replies):
                return items, Position(index, start, True)
            index, start, continued = index + 1, 0, False
        return items, None

    def _fill(self, part: ThreadPart, thread: Thread, start: int, room: int) -> int:
        """Put as many replies from ``start`` into ``part`` as ``room`` bytes hold; return how many."""
        taken = 0
        for reply in thread.replies[start:]:
            item = self.reply(thread, reply)
            cost = size(item) + (1 if taken else 0)
            if cost > room:
                break
            part["replies"].append(item)
            room -= cost
            taken += 1
        return taken
