"""Which lines of two texts changed, bounded for large texts: difflib for a few thousand lines, and above
that the "patience" alignment (lines that occur once on each side anchor it; the longest run of anchors in
the same order on both sides is kept) with difflib only between neighbouring anchors.

difflib's matcher is quadratic in the worst case and slow in Python on large inputs even when the changes
are few: an agent's rewrite of a thousand lines of a megabyte took about a second there, on the app's
event loop. The anchored alignment is linear in the lines plus the small gaps; a gap too long to diff
(no anchor for many lines on a side) is one changed block.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from .seqmatch import changed_runs

#: at most this many lines (both sides) go to difflib whole
DIFFLIB_LINES = 2000
#: a gap between anchors longer than this on a side is one changed block
GAP_LINES = 200


class Block(NamedTuple):
    """Lines ``old_start:old_end`` became lines ``new_start:new_end`` (indexes into the line lists)."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int


def changed_lines(old: Sequence[str], new: Sequence[str]) -> list[Block]:
    """The changed blocks of lines, in order, apart (the lines between them are equal)."""
    if len(old) + len(new) <= DIFFLIB_LINES:
        return _difflib_blocks(old, new, 0, 0)
    blocks: list[Block] = []
    at_old = at_new = 0
    for i, j in (*_anchors(old, new), (len(old), len(new))):
        blocks += _gap(old[at_old:i], new[at_new:j], at_old, at_new)
        at_old, at_new = i + 1, j + 1
    return blocks


def _difflib_blocks(old: Sequence[str], new: Sequence[str], old_at: int, new_at: int) -> list[Block]:
    return [Block(old_at + i1, old_at + i2, new_at + j1, new_at + j2) for i1, i2, j1, j2 in changed_runs(old, new)]


def _gap(old: Sequence[str], new: Sequence[str], old_at: int, new_at: int) -> list[Block]:
    """The lines between two anchors: diffed when short, else one block."""
    if not old and not new:
        return []
    if max(len(old), len(new)) > GAP_LINES:
        return [Block(old_at, old_at + len(old), new_at, new_at + len(new))]
    return _difflib_blocks(old, new, old_at, new_at)


def _anchors(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` of a line unique on both sides, increasing on both: the longest such chain."""
    old_count, new_count = Counter(old), Counter(new)
    new_index = {line: j for j, line in enumerate(new) if new_count[line] == 1}
    pairs = [(i, new_index[line]) for i, line in enumerate(old) if old_count[line] == 1 and line in new_index]
    # The longest increasing run of j (pairs are in i order): patience sorting with back links.
    tails: list[int] = []  # tails[k]: the j ending the best run of length k + 1
    tail_at: list[int] = []  # its index in pairs
    back: list[int] = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_at.append(n)
        else:
            tails[k], tail_at[k] = j, n
        back[n] = tail_at[k - 1] if k > 0 else -1
    chain: list[tuple[int, int]] = []
    n = tail_at[-1] if tail_at else -1
    while n >= 0:
        chain.append(pairs[n])
        n = back[n]
    return chain[::-1]
