"""The review of agent changes, as values: a pending change of a document, the word-level changes an agent's
edit makes, and how pending changes move through any later edit.

Offsets are code points of the text as pages show it (every line break ``\\n``), like ``ui.edit``. A change's
``start..end`` is the agent's text still in the document (``start == end``: a pure deletion, shown where the
old text was) and ``old`` the text it replaced.

Mapping through a later edit (anyone's), the one rule: a change's range holds what is left of the agent's
text. Text inserted or replaced at its edges falls outside it; an edit strictly inside it stays inside (a
range is one piece, so "Reject" then restores the old text over the person's edit there too); an edit that
takes away all of the agent's text (or, for a pure deletion, replaces text around its spot) ends the change:
the person has judged it by editing it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from itertools import accumulate
from typing import Literal, NamedTuple

from ..protocol.wire_types import ReviewChange
from .linediff import Block, anchored, changed_lines
from .seqmatch import changed_runs, common_head, common_tail, equal_pairs
from .spans import Span, Spans

#: how a change left the pending set: the person accepted or rejected it, or edited all of it away; the text
#: it applied to is gone (the file changed outside); or the agent changed it again (it lives on merged in the
#: new change)
Judgement = Literal["accepted", "rejected", "edited", "superseded", "merged"]

#: one CJK ideograph or kana/hangul syllable is a word (those scripts do not put spaces between words);
#: else a run of word characters, a run of spaces, or one other character. The alternatives match disjoint
#: characters, so their order changes no token; the most frequent come first (three times faster than with
#: the CJK class first: every other character of a text would be tried against it first)
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[^\W{_CJK}]+|[^\S\n]+|[^\w\s]|\n|[{_CJK}]")
#: above this many tokens on a side a region is diffed by lines first (difflib is quadratic in the worst case)
WORD_DIFF_TOKENS = 4000
#: a region longer than this on a side goes by lines without being split into words first (it would have
#: thousands of tokens: splitting a megabyte into words costs more than diffing its lines)
WORD_DIFF_CHARS = 32_000
#: above this many pairs of equal tokens (one old, one new: ``seqmatch.equal_pairs``, after the tokens both
#: texts start and end with) two texts are not word-diffed whole: difflib's matcher is quadratic in them (a
#: space between every two words), and an agent changing a word on every line of 64 KB held the event loop
#: for seconds. They go by lines first; a block of as many new lines as old ones, line by line; any other
#: block on its anchor words (``linediff.anchored``), a stretch between two anchors over it one change (the
#: cut-off: two texts alike in little but their spaces are shown replaced, not matched space by space)
WORD_DIFF_PAIRS = 20_000
#: how far an edit's region reaches to the edges of its lines (for the slide heuristic; a long paragraph is
#: one line, and a changed word in it must stay a small region)
LINE_CONTEXT = 200


@dataclass(frozen=True)
class Change:
    """One pending change: ``revisions`` are the agent revisions it carries (an agent editing its own pending
    change again merges into it; the last made it as it is now)."""

    id: str
    revisions: tuple[str, ...]
    principal: str
    tool: str
    start: int
    end: int
    old: str
    at: float
    #: how the person sees the agent that made it (its client's name with the principal: ``claude-code (laptop)``;
    #: display only, ``principal`` is who it is); empty: as ``principal`` (changes stored before names)
    agent: str = ""

    @property
    def revision(self) -> str:
        return self.revisions[-1]

    def wire(self) -> ReviewChange:
        """The ``ReviewChange`` of the protocol."""
        return {
            "id": self.id,
            "revision": self.revision,
            "principal": self.principal,
            "agent": self.agent or self.principal,
            "tool": self.tool,
            "from": self.start,
            "to": self.end,
            "old": self.old,
            "at": datetime.fromtimestamp(self.at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }


class Hunk(NamedTuple):
    """``old[old_start:old_end]`` became ``new[new_start:new_end]``."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int


# --- word diff -------------------------------------------------------------------------------------------
def word_hunks(old: str, new: str, spans: Spans) -> list[Hunk]:
    """The word-level changes of an edit: ``spans`` (offsets of ``old``) made ``new``. Each span is widened to
    whole words (a changed letter changes its word) and the old and new words inside it are diffed."""
    hunks: list[Hunk] = []
    for region in _regions(old, spans):
        start, end, shift, delta = region
        at = start + shift  # where the region starts in the new text
        for h in _diff_pieces(old[start:end], new[at : end + shift + delta]):
            hunks.append(Hunk(start + h.old_start, start + h.old_end, at + h.new_start, at + h.new_end))
    return hunks


def _regions(old: str, spans: Spans) -> list[tuple[int, int, int, int]]:
    """The spans widened to word edges and joined where they then touch: ``(start, end, shift, delta)`` with
    ``start..end`` of ``old``, ``shift`` what the spans before it added and ``delta`` its own length change."""
    regions: list[tuple[int, int, int, int]] = []
    shift = 0
    for span in spans:
        start, end = _word_start(old, _line_start(old, span.start)), _word_end(old, _line_end(old, span.end))
        if regions and start <= regions[-1][1]:
            first_start, first_end, first_shift, delta = regions.pop()
            regions.append((first_start, max(first_end, end), first_shift, delta + span.delta))
        else:
            regions.append((start, end, shift, span.delta))
        shift += span.delta
    return regions


def _line_start(text: str, at: int) -> int:
    """Where the line of ``at`` starts, at most :data:`LINE_CONTEXT` back: the diff sees the text an insertion
    may slide into (an added line starts after a line break the span itself does not reach)."""
    return max(text.rfind("\n", max(0, at - LINE_CONTEXT), at) + 1, at - LINE_CONTEXT, 0)


def _line_end(text: str, at: int) -> int:
    """Past the line break that ends the line of ``at`` (an insertion slides over it to start the next line)."""
    found = text.find("\n", at, at + LINE_CONTEXT)
    return min(len(text), at + LINE_CONTEXT) if found < 0 else found + 1


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _word_start(text: str, at: int) -> int:
    while at > 0 and _is_word(text[at - 1]):
        at -= 1
    return at


def _word_end(text: str, at: int) -> int:
    while at < len(text) and _is_word(text[at]):
        at += 1
    return at


def _diff_pieces(old: str, new: str) -> list[Hunk]:
    """Word hunks of two short texts (by lines first when they are long); neighbouring hunks with only spaces
    (no line break) between them are one change: a rewritten phrase is one change, not one per word."""
    if max(len(old), len(new)) > WORD_DIFF_CHARS:
        return _by_lines(old, new)
    old_tokens, new_tokens = _TOKEN.findall(old), _TOKEN.findall(new)
    if max(len(old_tokens), len(new_tokens)) > WORD_DIFF_TOKENS or not _cheap_whole(old_tokens, new_tokens):
        return _by_lines(old, new)
    hunks = _token_hunks(old_tokens, new_tokens)
    return _joined(hunks, old)


def _middle(old: Sequence[str], new: Sequence[str]) -> tuple[Sequence[str], Sequence[str], int]:
    """``old`` and ``new`` without the tokens they both start and end with, and how many they start with."""
    head = common_head(old, new)
    tail = common_tail(old[head:], new[head:])
    return old[head : len(old) - tail], new[head : len(new) - tail], head


def _cheap(old: Sequence[str], new: Sequence[str]) -> bool:
    """Whether difflib's matcher diffs these tokens whole in little time (see :data:`WORD_DIFF_PAIRS`)."""
    return len(old) * len(new) <= WORD_DIFF_PAIRS or equal_pairs(old, new) <= WORD_DIFF_PAIRS


def _cheap_whole(old_tokens: Sequence[str], new_tokens: Sequence[str]) -> bool:
    """Whether two texts' tokens are cheap to diff whole (those they start and end with alike left out)."""
    old_mid, new_mid, _ = _middle(old_tokens, new_tokens)
    return _cheap(old_mid, new_mid)


def _token_hunks(old_tokens: Sequence[str], new_tokens: Sequence[str]) -> list[Hunk]:
    old_at, new_at = _offsets(old_tokens), _offsets(new_tokens)
    # The equal tokens at both ends are left out of the matcher (a changed word in a line is one token against
    # one, not forty against forty: most of a large rewrite's cost); the slide below still sees them.
    old_mid, new_mid, head = _middle(old_tokens, new_tokens)
    runs = changed_runs(old_mid, new_mid) if _cheap(old_mid, new_mid) else anchored(old_mid, new_mid, _token_gap)
    changed = [Hunk(head + i1, head + i2, head + j1, head + j2) for i1, i2, j1, j2 in runs]
    return [
        Hunk(old_at[h.old_start], old_at[h.old_end], new_at[h.new_start], new_at[h.new_end])
        for h in _slid(changed, old_tokens, new_tokens)
    ]


def _token_gap(old: Sequence[str], new: Sequence[str], old_at: int, new_at: int) -> list[Block]:
    """The changed runs of the tokens between two anchor words: difflib's when cheap, else one run."""
    old, new, head = _middle(old, new)
    old_at, new_at = old_at + head, new_at + head
    if _cheap(old, new):
        return [Block(old_at + i1, old_at + i2, new_at + j1, new_at + j2) for i1, i2, j1, j2 in changed_runs(old, new)]
    return [Block(old_at, old_at + len(old), new_at, new_at + len(new))]


def _slid(hunks: Sequence[Hunk], old_tokens: Sequence[str], new_tokens: Sequence[str]) -> list[Hunk]:
    """Token hunks with each pure insertion or deletion moved, within the equal text around it, to where it
    reads best (the diff "slide" heuristic): the same number of tokens change, but an added line is that whole
    line, not the end of one line and the start of the next. Offsets are token indexes."""
    slid: list[Hunk] = []
    for k, hunk in enumerate(hunks):
        low = (slid[-1].old_end, slid[-1].new_end) if slid else (0, 0)
        high = (
            (hunks[k + 1].old_start, hunks[k + 1].new_start)
            if k + 1 < len(hunks)
            else (len(old_tokens), len(new_tokens))
        )
        if hunk.old_start == hunk.old_end:  # an insertion: it moves along the new text
            shift = _best_shift(new_tokens, hunk.new_start, hunk.new_end, low[1], high[1])
        elif hunk.new_start == hunk.new_end:  # a deletion: along the old text
            shift = _best_shift(old_tokens, hunk.old_start, hunk.old_end, low[0], high[0])
        else:
            shift = 0
        slid.append(Hunk(hunk.old_start + shift, hunk.old_end + shift, hunk.new_start + shift, hunk.new_end + shift))
    return slid


def _best_shift(tokens: Sequence[str], start: int, end: int, low: int, high: int) -> int:
    """How far to move ``tokens[start:end]`` (bounded by equal text from ``low`` to ``high``) for the best
    reading; 0 (where the diff put it) unless another place reads strictly better."""
    first = start
    while first > low and tokens[first - 1] == tokens[first - 1 + end - start]:
        first -= 1
    best, best_score = 0, _slide_score(tokens, start, end)
    at = first
    while True:
        score = _slide_score(tokens, at, at + end - start)
        if score > best_score:
            best, best_score = at - start, score
        if at + end - start >= high or tokens[at] != tokens[at + end - start]:
            return best
        at += 1


def _slide_score(tokens: Sequence[str], start: int, end: int) -> int:
    """Starting a line counts most, then ending with a line break (a whole line)."""
    return (2 if start == 0 or tokens[start - 1] == "\n" else 0) + (1 if tokens[end - 1] == "\n" else 0)


def _offsets(tokens: Sequence[str]) -> list[int]:
    return list(accumulate(map(len, tokens), initial=0))


def _joined(hunks: list[Hunk], old: str) -> list[Hunk]:
    joined: list[Hunk] = []
    for hunk in hunks:
        if joined:
            gap = old[joined[-1].old_end : hunk.old_start]
            if gap and not gap.strip() and "\n" not in gap:
                last = joined.pop()
                hunk = Hunk(last.old_start, hunk.old_end, last.new_start, hunk.new_end)
        joined.append(hunk)
    return joined


def _by_lines(old: str, new: str) -> list[Hunk]:
    """A long region (or one too costly to diff by words whole): the changed lines, each block diffed by words
    (on its anchor words when that is costly, :func:`_token_hunks`), or one change when it is too long to split
    into words; a block of as many new lines as old ones that is too long or costly whole, line by line."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    old_at, new_at = _offsets(old_lines), _offsets(new_lines)
    hunks: list[Hunk] = []
    for i1, i2, j1, j2 in changed_lines(old_lines, new_lines):
        block = Hunk(old_at[i1], old_at[i2], new_at[j1], new_at[j2])
        tokens = _tokens(old, new, block)
        if i2 - i1 == j2 - j1 > 1 and (tokens is None or not _cheap_whole(*tokens)):
            # As many new lines as old ones, too costly whole: they pair up (a word changed on every line).
            for i in range(i1, i2):
                line = Hunk(old_at[i], old_at[i + 1], new_at[i - i1 + j1], new_at[i - i1 + j1 + 1])
                hunks += _block_hunks(old, new, line, _tokens(old, new, line))
        else:
            hunks += _block_hunks(old, new, block, tokens)
    return hunks


def _tokens(old: str, new: str, block: Hunk) -> tuple[list[str], list[str]] | None:
    """The words of a block of lines on each side; None when it is too long to split into words."""
    old_block, new_block = old[block.old_start : block.old_end], new[block.new_start : block.new_end]
    if max(len(old_block), len(new_block)) > WORD_DIFF_CHARS:
        return None
    old_tokens, new_tokens = _TOKEN.findall(old_block), _TOKEN.findall(new_block)
    return None if max(len(old_tokens), len(new_tokens)) > WORD_DIFF_TOKENS else (old_tokens, new_tokens)


def _block_hunks(old: str, new: str, block: Hunk, tokens: tuple[list[str], list[str]] | None) -> list[Hunk]:
    """The word hunks of a block of lines (``tokens``, its words), or one change (None: too long for words)."""
    old_block = old[block.old_start : block.old_end]
    if old_block == new[block.new_start : block.new_end]:  # a line paired with its equal (a long gap's)
        return []
    if tokens is None:
        return [_trimmed(old, new, block)]
    o0, n0 = block.old_start, block.new_start
    return [
        Hunk(o0 + h.old_start, o0 + h.old_end, n0 + h.new_start, n0 + h.new_end)
        for h in _joined(_token_hunks(*tokens), old_block)
    ]


def _trimmed(old: str, new: str, hunk: Hunk) -> Hunk:
    """A block of lines as one change without the spaces and line breaks it keeps at both ends (its last line
    break, mostly; never part of a word)."""
    a, b = old[hunk.old_start : hunk.old_end], new[hunk.new_start : hunk.new_end]
    head = common_head(a[: len(a) - len(a.lstrip())], b[: len(b) - len(b.lstrip())])
    tail = common_tail(a[len(a.rstrip()) :], b[len(b.rstrip()) :])
    tail = min(tail, len(a) - head, len(b) - head)
    return Hunk(hunk.old_start + head, hunk.old_end - tail, hunk.new_start + head, hunk.new_end - tail)


def hunk_spans(hunks: Sequence[Hunk], new: str) -> Spans:
    """The hunks as a change set of the old text (it makes ``new`` exactly, like the edit's own spans)."""
    return tuple(Span(h.old_start, h.old_end, new[h.new_start : h.new_end]) for h in hunks)


# --- mapping ---------------------------------------------------------------------------------------------
class SpanIndex:
    """A change set (spans in order, apart) with the running sum of its growth, so that each of many positions
    maps in logarithmic time: a rewrite's thousands of hunks move thousands of pending changes."""

    def __init__(self, spans: Spans) -> None:
        self.spans = spans
        self._ends = [s.end for s in spans]
        self._shift_before = [0, *accumulate(s.delta for s in spans)]

    def first_reaching(self, pos: int) -> tuple[int, int]:
        """The first span that ends at or after ``pos``, and the growth of all the spans before it."""
        k = bisect_left(self._ends, pos)
        return k, self._shift_before[k]


def map_position(pos: int, spans: Spans | SpanIndex, after: bool) -> tuple[int, bool]:
    """Where ``pos`` (of the text before ``spans``) lands, and whether a span replaced text around it. A span
    that touches ``pos`` (starts, ends or inserts there, or replaces around it) puts it after its insert when
    ``after``, else before it; of several such spans, the last one or the first one."""
    index = spans if isinstance(spans, SpanIndex) else SpanIndex(spans)
    first, shift = index.first_reaching(pos)  # the spans before it end before ``pos``: they only shift it
    landed: int | None = None
    inside = False
    for k in range(first, len(index.spans)):
        span = index.spans[k]
        if span.start > pos:
            break
        if span.end < pos:
            shift += span.delta
            continue
        new_start = span.start + shift
        inside = inside or span.start < pos < span.end
        if not after:
            return new_start, inside
        landed = new_start + len(span.insert)
        shift += span.delta
    return (pos + shift if landed is None else landed), inside


def map_change(change: Change, spans: Spans | SpanIndex) -> Change | None:
    """``change`` moved through ``spans``; None when the edit took away what it was about (see the module)."""
    if change.start == change.end:
        at, inside = map_position(change.start, spans, after=True)
        return None if inside else replace(change, start=at, end=at)
    start, _ = map_position(change.start, spans, after=True)
    end, _ = map_position(change.end, spans, after=False)
    if start >= end:
        return None
    return replace(change, start=start, end=end)


def touches(change: Change, hunk: Hunk) -> bool:
    """Whether an agent's new hunk (offsets of the text before it) meets ``change``: then they become one."""
    return hunk.old_start <= change.end and hunk.old_end >= change.start


def merged_old(old_text: str, start: int, end: int, inside: Sequence[Change]) -> str:
    """``old_text[start:end]`` with each pending change in it given back its old text: what the region was
    before any of the agent changes merged into one."""
    pieces: list[str] = []
    at = start
    for change in sorted(inside, key=lambda c: (c.start, c.end)):
        pieces += (old_text[at : change.start], change.old)
        at = change.end
    pieces.append(old_text[at:end])
    return "".join(pieces)


def reject_spans(changes: Sequence[Change]) -> Spans:
    """The person's edit that restores each change's old text."""
    return tuple(Span(c.start, c.end, c.old) for c in sorted(changes, key=lambda c: (c.start, c.end)))
