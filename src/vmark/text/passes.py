"""One pass of the rules over text blocks, and the blocks the next pass of the fixed point has to format.

A pass scans the inline structure of every block (:mod:`vmark.text.inline`), runs the rules over the text of all
blocks at once, with placeholders for everything but text (:mod:`vmark.text.rules`), and turns every block that
changed into one edit per changed line, plus the removal of the trailing spaces after it.

The rules see each block on its own (blocks are separated by a line no rule reaches across), so formatting a block
again gives what it gave before: the next pass only has to format the blocks whose lines this pass changed, where
they now are, as long as the edits leave the block structure as it was (:mod:`vmark.text.structure`).
"""

from __future__ import annotations

import bisect
import itertools
import re
from typing import NamedTuple

from . import inline, rules
from .blocks import LineSpan, Parsed, TextBlock
from .chars import CJK_BLOCK_RE, CLOSE, CODE, OPEN, RESERVED_RE, SEP_LINE, STOP
from .cjk import CjkRules
from .structure import ChangedLine, keeps_structure


class Edit(NamedTuple):
    """Replace ``markdown[start:end]`` by ``text``."""

    start: int
    end: int
    text: str


class Todo(NamedTuple):
    """The blocks a pass formats, and the inline pieces of those already scanned (None: not yet)."""

    parsed: Parsed
    scans: list[list[inline.Piece] | None]

    @classmethod
    def every_block(cls, parsed: Parsed) -> Todo:
        return cls(parsed, [None] * len(parsed.blocks))


class Outcome(NamedTuple):
    """What a pass does to a block it changes."""

    block: TextBlock
    #: the block's new content: its own when its lines stay as they are
    result: str
    #: the inline pieces of ``result``, when they are known
    pieces: list[inline.Piece] | None
    #: the lines that change (none: only the trailing spaces go)
    lines: list[ChangedLine]
    tail: Edit | None


# a paragraph starting like a link reference definition (``[label]: ...``) that is not one: removing a space
# could turn it into one, so it is left alone
_LIKE_DEFINITION = re.compile(r"\[[^\n]*\]:")


def wanted(content: str) -> bool:
    """Whether the rules look at a block with this content."""
    return CJK_BLOCK_RE.search(content) is not None and _LIKE_DEFINITION.match(content) is None


def format_blocks(text: str, todo: Todo, person_rules: CjkRules) -> tuple[list[Outcome], list[Edit]]:
    """One pass over the blocks of ``todo`` in ``text``: the outcome of every block that changes, and the edits
    (sorted, not overlapping, each within one line)."""
    parsed = todo.parsed
    scans = [
        inline.scan(block.content, parsed.references, parsed.footnotes) if pieces is None else pieces
        for block, pieces in zip(parsed.blocks, todo.scans, strict=True)
    ]
    cleanup = person_rules.cleanup
    outcomes: list[Outcome] = []
    edits: list[Edit] = []
    for block, pieces, result in zip(parsed.blocks, scans, _format(scans, person_rules), strict=True):
        lines: list[ChangedLine] | None = None
        after: list[inline.Piece] | None = pieces
        if result != block.content:
            same, after = _same_syntax(pieces, result, parsed)
            lines = _changed_lines(block, result) if same else None
        tail = _tail_edit(text, block.tail) if cleanup and block.tail is not None else None
        if lines:
            outcomes.append(Outcome(block, result, after, lines, tail))
            edits.extend(Edit(span.start, span.start + span.length, new) for span, _, new in lines)
        elif tail is not None:
            outcomes.append(Outcome(block, block.content, pieces, [], tail))
        if tail is not None:
            edits.append(tail)
    edits.sort()  # (blocks come in document order: this costs next to nothing)
    return outcomes, edits


def next_todo(parsed: Parsed, outcomes: list[Outcome], edits: list[Edit]) -> Todo | None:
    """The blocks the pass after the one with ``outcomes`` formats: those whose lines changed, where they are
    after ``edits``; None when the document has to be parsed again."""
    if not all(keeps_structure(outcome.block, outcome.lines, outcome.tail is not None) for outcome in outcomes):
        return None
    shift = _Shift(edits)
    todo = Todo(Parsed([], parsed.references, parsed.footnotes), [])
    for outcome in outcomes:
        if not outcome.lines:
            continue
        if RESERVED_RE.search(outcome.result):
            return None
        if wanted(outcome.result):
            todo.parsed.blocks.append(_moved(outcome.block, outcome.result, shift))
            todo.scans.append(outcome.pieces)
    return todo


def line_edits(block: TextBlock, result: str) -> list[Edit]:
    """One edit per changed line of ``block`` for its new content ``result``; none at all when the lines do not
    correspond (the block stays as it is)."""
    return [Edit(span.start, span.start + span.length, new) for span, _, new in _changed_lines(block, result) or []]


# -- the rules over all blocks at once ----------------------------------------------------------------------------

_PLACEHOLDER = {"O": OPEN, "X": CLOSE, "C": CODE, "S": STOP}
_SCANNER_PLACEHOLDERS = re.compile(f"[{OPEN}{CLOSE}{CODE}{STOP}]")


def _format(scans: list[list[inline.Piece]], person_rules: CjkRules) -> list[str]:
    """The new content of every block: all blocks go through the rules as one text, with placeholders for
    everything but their text. A failure to put them back together leaves every block as it was."""
    protected: list[str] = []
    rule_texts = [
        pieces[0][1] if len(pieces) == 1 and pieces[0][0] == "T" else _rule_text(pieces, protected) for pieces in scans
    ]
    try:
        formatted = rules.apply(SEP_LINE.join(rule_texts), person_rules)
        results = rules.restore(formatted, _SCANNER_PLACEHOLDERS, protected).split(SEP_LINE)
    except rules.PlaceholderError:
        results = []
    if len(results) == len(scans):
        return results
    return ["".join(text for _, text in pieces) for pieces in scans]


def _rule_text(pieces: list[inline.Piece], protected: list[str]) -> str:
    """The text of a block with everything but text replaced by placeholders (their texts go to ``protected``)."""
    parts: list[str] = []
    for kind, piece in pieces:
        if kind == "T":
            parts.append(piece)
        else:
            parts.append(_PLACEHOLDER[kind])
            protected.append(piece)
    return "".join(parts)


def _same_syntax(pieces: list[inline.Piece], result: str, parsed: Parsed) -> tuple[bool, list[inline.Piece] | None]:
    """Whether the new text of a block has the inline structure of the old one, and its pieces when they were
    scanned. Changed spacing can make a ``$`` or ``<`` in the text open math or an autolink, or emphasis markers
    pair differently; such a block stays as it is. Only blocks with such characters in their text, or with
    emphasis, are scanned again."""
    for kind, text in pieces:
        if inline.has_syntax(text) if kind == "T" else kind in "OX" and text[0] in "*_~":
            break
    else:
        return True, None
    after = inline.scan(result, parsed.references, parsed.footnotes)
    return [piece for piece in after if piece[0] != "T"] == [piece for piece in pieces if piece[0] != "T"], after


# -- edits --------------------------------------------------------------------------------------------------------


def _changed_lines(block: TextBlock, result: str) -> list[ChangedLine] | None:
    """The lines of ``block`` that ``result`` changes, as (span, old text, new text) after the leading characters
    the span skips; None when the lines do not correspond or a line's leading characters change."""
    lines = block.lines
    if len(lines) == 1 and lines[0].skip == 0 and "\n" not in result:
        return [(lines[0], block.content, result)] if result != block.content else []
    old_lines = block.content.split("\n")
    new_lines = result.split("\n")
    if len(new_lines) != len(old_lines):
        return None
    changed: list[ChangedLine] = []
    for span, old, new in zip(lines, old_lines, new_lines, strict=True):
        if old == new:
            continue
        if new[: span.skip] != old[: span.skip]:
            return None
        changed.append((span, old[span.skip :], new[span.skip :]))
    return changed


def _tail_edit(text: str, tail: tuple[int, int]) -> Edit | None:
    """Trailing spaces after the last line of a paragraph or heading (never a hard break there)."""
    start, end = tail
    if start == end or text[end - 1] not in " \t":
        return None
    return Edit(start + len(text[start:end].rstrip(" \t")), end, "")


def _moved(block: TextBlock, content: str, shift: _Shift) -> TextBlock:
    """``block`` with the new ``content``, where it is after the edits ``shift`` stands for."""
    if len(block.lines) == 1:
        span = block.lines[0]
        spans: tuple[LineSpan, ...] = (LineSpan(shift(span.start), span.skip, len(content) - span.skip),)
    else:
        spans = tuple(
            LineSpan(shift(span.start), span.skip, len(line) - span.skip)
            for span, line in zip(block.lines, content.split("\n"), strict=True)
        )
    tail = None if block.tail is None else (spans[-1].start + spans[-1].length, shift(block.tail[1]))
    return TextBlock(content, spans, tail, block.kind)


class _Shift:
    """Offsets before a set of edits -> offsets after them (for offsets that no edit spans)."""

    def __init__(self, edits: list[Edit]) -> None:
        self.ends = [edit.end for edit in edits]
        self.growth = list(itertools.accumulate((len(edit.text) - edit.end + edit.start for edit in edits), initial=0))

    def __call__(self, offset: int) -> int:
        return offset + self.growth[bisect.bisect_right(self.ends, offset)]
