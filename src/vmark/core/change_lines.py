"""Which lines an edit changed, as an agent hears of it (``session.changes``): line ranges of the text after the
edit, and how many characters it inserted and deleted. Never the text itself.

Lines are 1-based and inclusive. An edit's spans are code points of the text before it as pages show it (every
line break ``\\n``); a span that inserts or removes line breaks changes the numbering of every line after it,
which :func:`map_ranges` applies to ranges of an earlier edit (two edits heard as one).
"""

from __future__ import annotations

from dataclasses import dataclass

from .spans import Spans

#: ``(first, last)`` line of the text after an edit, 1-based, inclusive
LineRange = tuple[int, int]


@dataclass(frozen=True)
class _Placed:
    """One span placed in lines: it covers lines ``first..last`` of the text before, and adds ``delta`` lines."""

    first: int
    last: int
    delta: int


@dataclass(frozen=True)
class LineChange:
    """An edit in lines: the ranges it touched (of the text after it), and its size in code points."""

    ranges: tuple[LineRange, ...]
    inserted: int
    deleted: int
    #: the spans placed in lines of the text before (for :func:`map_ranges`)
    placed: tuple[_Placed, ...]


def line_change(before: str, spans: Spans) -> LineChange:
    """``spans`` (of ``before``, sorted, apart) in lines; one pass over ``before`` up to the last span."""
    ranges: list[LineRange] = []
    placed: list[_Placed] = []
    line, at, shift = 1, 0, 0
    inserted = deleted = 0
    for span in spans:
        line += before.count("\n", at, span.start)
        removed = before.count("\n", span.start, span.end)
        added = span.insert.count("\n")
        placed.append(_Placed(line, line + removed, added - removed))
        first = line + shift
        # Whole lines put in before a line start leave that line as it was: it is not a changed line.
        ends_line = added and span.insert.endswith("\n") and (span.end == 0 or before[span.end - 1] == "\n")
        ranges.append((first, first + added - (1 if ends_line else 0)))
        shift += added - removed
        line += removed
        at = span.end
        inserted += len(span.insert)
        deleted += span.end - span.start
    return LineChange(joined(ranges), inserted, deleted, tuple(placed))


def map_ranges(ranges: tuple[LineRange, ...], later: LineChange) -> tuple[LineRange, ...]:
    """Ranges of a text carried through ``later`` (an edit of that text) and joined with the lines it changed."""
    moved = [(_moved(first, later), _moved(last, later)) for first, last in ranges]
    return joined([*moved, *later.ranges])


def _moved(line: int, later: LineChange) -> int:
    return line + sum(p.delta for p in later.placed if p.last < line)


def joined(ranges: list[LineRange]) -> tuple[LineRange, ...]:
    """Sorted, with ranges that overlap or touch made one."""
    out: list[LineRange] = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return tuple(out)


def wire_ranges(ranges: tuple[LineRange, ...]) -> list[dict[str, int]]:
    return [{"from": first, "to": last} for first, last in ranges]
