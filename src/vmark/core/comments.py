"""Review comment threads: the pure model, and anchoring a thread's quote in a changing text.

A thread is anchored to a quoted span of its document's text (code points). After an edit the
anchor follows the text: a span the edit did not touch moves with it; a span the edit touched
is found again by exact match nearest where it was, else by a bounded fuzzy match near it, else
the thread is *orphaned* (``anchor is None``). An orphaned thread is listed like any other and
anchors again when its quote reappears; no edit ever removes a thread.

``commentGen`` names a thread's content (state, replies); it changes on every change to them.
Moving an anchor is not a change: the person's typing must not make an agent's listing stale.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal

from ..protocol import wire_types
from ..protocol.errors import DomainError
from ..protocol.limits import FUZZY_BUDGET, MAX_COMMENT_BODY_BYTES, MAX_QUOTE_BYTES, MAX_REPLIES, MAX_THREAD_CHANGES
from ..protocol.results import Addressed, Replied
from ..protocol.strings import has_lone_surrogate
from ..protocol.wire_types import ThreadState
from .changes import Spans, diff
from .ids import new_id

AgentOp = Literal["reply", "mark_addressed"]

COMMENT_ID = re.compile(r"c-[0-9A-Za-z]{10}")

#: fuzzy matching: quotes shorter than this are matched exactly only (a few letters match anywhere)
FUZZY_MIN_CHARS = 8
#: share of the quote that must be found again, in order, for a fuzzy anchor
FUZZY_MIN_RATIO = 0.6


def new_comment_gen() -> str:
    return new_id("cg")


def is_comment_id(value: str) -> bool:
    return COMMENT_ID.fullmatch(value) is not None


def check_body(body: str) -> None:
    """``INVALID_TEXT`` for a lone surrogate, ``COMMENT_LIMIT`` past 16 KiB of UTF-8."""
    if has_lone_surrogate(body):
        raise DomainError("INVALID_TEXT", "body contains a lone UTF-16 surrogate")
    size = len(body.encode("utf-8"))
    if size > MAX_COMMENT_BODY_BYTES:
        raise DomainError("COMMENT_LIMIT", f"body is {size} bytes; at most {MAX_COMMENT_BODY_BYTES}")


def quote_problem(quote: str) -> str | None:
    """Why ``quote`` cannot anchor a thread, or None."""
    if not quote:
        return "quote must not be empty"
    if has_lone_surrogate(quote):
        return "quote contains a lone UTF-16 surrogate"
    if len(quote.encode("utf-8")) > MAX_QUOTE_BYTES:
        return f"quote is longer than {MAX_QUOTE_BYTES} bytes; comment on a shorter span"
    return None


@dataclass
class Reply:
    id: str
    author: str
    body: str
    created: float

    def describe(self) -> wire_types.CommentReply:
        return {"id": self.id, "author": self.author, "body": self.body, "created": self.created}


#: what an agent's change of a thread answers (``comments.reply``, ``comments.mark_addressed``)
AgentAnswer = Replied | Addressed


@dataclass(frozen=True)
class Done:
    """An agent's change, kept under the ``commentGen`` it consumed: the same call again gets ``result``."""

    op: AgentOp
    body: str
    result: AgentAnswer


@dataclass
class Thread:
    id: str
    doc: str
    seq: int
    quote: str
    body: str
    author: str
    created: float
    state: ThreadState = "open"
    gen: str = field(default_factory=new_comment_gen)
    anchor: tuple[int, int] | None = None
    #: where the quote was last seen: the search for it after an edit starts here
    hint: int = 0
    replies: list[Reply] = field(default_factory=list)
    done: dict[str, Done] = field(default_factory=dict)
    changes: int = 0

    @property
    def deleted(self) -> bool:
        return self.state == "deleted"

    def place(self, anchor: tuple[int, int] | None) -> None:
        self.anchor = anchor
        if anchor is not None:
            self.hint = anchor[0]

    def touch(self) -> None:
        self.gen = new_comment_gen()
        self.changes += 1

    def status(self) -> wire_types.ThreadStatus:
        return {"comment": self.id, "state": self.state, "commentGen": self.gen}

    def describe(self) -> wire_types.Thread:
        """The thread as the person's side sees it (``comments.threads``)."""
        return {
            **self.status(),
            "quote": self.quote,
            "body": self.body,
            "author": self.author,
            "created": self.created,
            "anchor": None if self.anchor is None else {"from": self.anchor[0], "to": self.anchor[1]},
            "orphaned": self.anchor is None,
            "replies": [r.describe() for r in self.replies],
        }


# --- changes -----------------------------------------------------------------------------
def check_agent_change(thread: Thread, op: AgentOp, expected_gen: str, body: str = "") -> AgentAnswer | None:
    """Refuse an agent's change, or return the result of the identical call that already made it (None:
    go ahead). Nothing changes here."""
    if thread.deleted:
        raise DomainError("STALE_COMMENT", f"{thread.id} was deleted; list again", comment=thread.id)
    if expected_gen != thread.gen:
        done = thread.done.get(expected_gen)
        if done is not None and done.op == op and done.body == body:
            return done.result
        raise DomainError("STALE_COMMENT", comment=thread.id, commentGen=thread.gen)
    if thread.state == "resolved":
        raise DomainError("COMMENT_NOT_ALLOWED", comment=thread.id)
    if thread.changes >= MAX_THREAD_CHANGES:
        raise DomainError("COMMENT_LIMIT", f"{thread.id} has taken {MAX_THREAD_CHANGES} changes and is closed")
    if op == "reply":
        check_reply_room(thread)
    return None


def check_reply_room(thread: Thread) -> None:
    if len(thread.replies) >= MAX_REPLIES:
        raise DomainError("COMMENT_LIMIT", f"{thread.id} has {MAX_REPLIES} replies, the most a thread takes")


def add_reply(thread: Thread, reply: Reply) -> None:
    thread.replies.append(reply)
    thread.touch()


def set_state(thread: Thread, state: ThreadState) -> bool:
    """Move to ``state``; return whether anything changed (the same state again changes nothing)."""
    if thread.state == state:
        return False
    thread.state = state
    thread.touch()
    return True


def remember(thread: Thread, basis: str, op: AgentOp, body: str, result: AgentAnswer) -> None:
    """Keep an agent's change under the ``commentGen`` it consumed: the same call again gets ``result``."""
    thread.done[basis] = Done(op, body, result)


# --- anchoring -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Change:
    """One replaced span of a change set: ``old[start:old_end]`` became ``new[start + shift:new_end]``
    (``shift``: what the set's earlier spans added before it; 0 for a lone span)."""

    start: int
    old_end: int
    new_end: int
    shift: int = 0

    @property
    def new_start(self) -> int:
        return self.start + self.shift

    @property
    def delta(self) -> int:
        return self.new_end - self.shift - self.old_end

    def touches(self, a: int, b: int) -> bool:
        return b > self.start and a < self.old_end

    def before(self, a: int, b: int) -> bool:
        """Wholly before the span ``a..b`` (which then moves by ``delta``)."""
        return self.old_end <= a and self.start < b


def diff_span(old: str, new: str) -> Change | None:
    """The smallest single span that turns ``old`` into ``new`` (None: equal)."""
    span = diff(old, new)
    return None if span is None else Change(span.start, span.end, span.start + len(span.insert))


def changes_of(spans: Spans) -> list[Change]:
    """A change set (offsets of the text before) as :class:`Change` s, each knowing where it lands after."""
    changes: list[Change] = []
    shift = 0
    for span in spans:
        changes.append(Change(span.start, span.end, span.start + shift + len(span.insert), shift))
        shift += span.delta
    return changes


def find_exact(text: str, quote: str, hint: int, lo: int = 0, hi: int | None = None) -> tuple[int, int] | None:
    """The occurrence of ``quote`` within ``text[lo:hi]`` whose start is nearest ``hint``."""
    lo, hi = max(lo, 0), len(text) if hi is None else min(hi, len(text))
    hint = min(max(hint, lo), hi)
    after = text.find(quote, hint, hi)
    before = text.rfind(quote, lo, min(hint + len(quote) - 1, hi))
    found = [p for p in (after, before) if p >= 0]
    if not found:
        return None
    start = min(found, key=lambda p: (abs(p - hint), p))
    return start, start + len(quote)


def find_fuzzy(text: str, quote: str, hint: int) -> tuple[int, int] | None:
    """A span near ``hint`` that keeps most of ``quote`` in order (the person fixed a word inside it)."""
    n = len(quote)
    if n < FUZZY_MIN_CHARS:
        return None
    lo = max(0, hint - n - 32)
    region = text[lo : hint + 2 * n + 32]
    matcher = SequenceMatcher(None, quote, region, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size]
    if not blocks:
        return None
    start, end = blocks[0].b, blocks[-1].b + blocks[-1].size
    matched = sum(b.size for b in blocks)
    if matched < FUZZY_MIN_RATIO * n or 2 * matched < FUZZY_MIN_RATIO * (n + end - start):
        return None
    return lo + start, lo + end


def locate(text: str, quote: str, hint: int, fuzzy: bool = True) -> tuple[int, int] | None:
    return find_exact(text, quote, hint) or (find_fuzzy(text, quote, hint) if fuzzy else None)


def reanchor(threads: Iterable[Thread], new: str, changes: Sequence[Change]) -> list[Thread]:
    """Move every live thread's anchor through ``changes`` (the edit that made ``new``, sorted); return the
    threads whose orphaned status flipped. Untouched spans shift; touched ones are searched for again; orphans
    are looked for only where the edit put new text (anywhere else they were already absent)."""
    flipped: list[Thread] = []
    budget = FUZZY_BUDGET
    for thread in threads:
        if thread.deleted:
            continue
        anchor = thread.anchor
        if anchor is None:
            found = _found_again(new, thread, changes)
            if found is not None:
                thread.place(found)
                flipped.append(thread)
            continue
        a, b = anchor
        shift = sum(c.delta for c in changes if c.before(a, b))
        if not any(c.touches(a, b) for c in changes):
            if shift:
                thread.place((a + shift, b + shift))
            continue
        hint = min(a + shift, len(new))
        found = locate(new, thread.quote, hint, fuzzy=budget > 0)
        budget -= 1
        if found is None:
            thread.hint = hint
            flipped.append(thread)
        thread.place(found)
    return flipped


def _found_again(new: str, thread: Thread, changes: Sequence[Change]) -> tuple[int, int] | None:
    """An orphan's quote where one of the changes put new text (or across its edges)."""
    n = len(thread.quote)
    for change in changes:
        found = find_exact(new, thread.quote, thread.hint, change.new_start - n + 1, change.new_end + n - 1)
        if found is not None:
            return found
    return None


def settle(threads: Iterable[Thread], text: str) -> None:
    """Check anchors against a text they were not computed for (a document loaded from disk after a
    restart): an anchor that no longer spans its quote is searched for again."""
    budget = FUZZY_BUDGET
    for thread in threads:
        if thread.deleted:
            continue
        anchor = thread.anchor
        if anchor is not None and text[anchor[0] : anchor[1]] == thread.quote:
            continue
        thread.place(locate(text, thread.quote, thread.hint, fuzzy=budget > 0))
        budget -= 1
