"""Which lines of two texts changed, bounded for large texts: difflib for a few thousand lines, and above
that the "patience" alignment (lines that occur once on each side anchor it; the longest run of anchors in
the same order on both sides is kept) with difflib only between neighbouring anchors.

difflib's matcher is quadratic in the worst case and slow in Python on large inputs even when the changes
are few: an agent's rewrite of a thousand lines of a megabyte took about a second there, on the app's
event loop. The anchored alignment is linear in the lines plus the small gaps; a gap too long to diff
(no anchor for many lines on a side) is one changed block.

A large diff runs on the event loop after an agent's write is answered (the review's word diff), so its
passes over every line are C loops (slices compared, sets, ``map``/``compress``), not Python ones: the lines
both texts start and end with are left out first (compared by halving), the anchors are found with set
operations, their order is checked before any longest-run search (a text without moved lines has its
anchors in order already), and only the anchors that do not follow their neighbour open a gap.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain, compress, count
from operator import gt, lt, or_, sub
from typing import NamedTuple

from .seqmatch import changed_runs, common_head, common_tail

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
    # The lines both start and end with are equal: left out (the rest may then be short enough for difflib).
    head = common_head(old, new)
    tail = common_tail(old[head:], new[head:])
    old, new = old[head : len(old) - tail], new[head : len(new) - tail]
    if len(old) + len(new) <= DIFFLIB_LINES:
        return _difflib_blocks(old, new, head, head)
    return anchored(old, new, _gap, head)


#: the changed blocks of a stretch between two anchors: its old and new items, and where they start on each side
Gap = Callable[[Sequence[str], Sequence[str], int, int], list[Block]]


def anchored(old: Sequence[str], new: Sequence[str], gap: Gap, at: int = 0) -> list[Block]:
    """The changed blocks of two sequences aligned on their anchors (the items once on each side, the longest
    chain of them in the same order on both), ``gap`` giving those of each stretch between two anchors; ``at``
    is where both sequences start (their indexes in the blocks). Linear in the items plus the gaps' cost."""
    blocks: list[Block] = []
    for i1, i2, j1, j2 in _gaps(*_anchors(old, new), len(old), len(new)):
        blocks += gap(old[i1:i2], new[j1:j2], at + i1, at + j1)
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


def _gaps(old_at: list[int], new_at: list[int], old_len: int, new_len: int) -> list[Block]:
    """The stretches of lines around the anchors ``(old_at[k], new_at[k])``: before the first, after the last,
    and between two anchors that do not follow one another on both sides (the others have no gap)."""
    if not old_at:
        return [Block(0, old_len, 0, new_len)]
    apart = map(or_, map((1).__ne__, map(sub, old_at[1:], old_at)), map((1).__ne__, map(sub, new_at[1:], new_at)))
    gaps = [Block(0, old_at[0], 0, new_at[0])]
    gaps += [Block(old_at[k - 1] + 1, old_at[k], new_at[k - 1] + 1, new_at[k]) for k in compress(count(1), apart)]
    gaps.append(Block(old_at[-1] + 1, old_len, new_at[-1] + 1, new_len))
    return gaps


def _anchors(old: Sequence[str], new: Sequence[str]) -> tuple[list[int], list[int]]:
    """The items (lines, or a review's words) unique on both sides, as their indexes ``(old_at, new_at)``,
    increasing on both: the longest such chain."""
    old_count, new_count = Counter(old), Counter(new)
    once = set(compress(old_count, map((1).__eq__, old_count.values())))
    once.intersection_update(compress(new_count, map((1).__eq__, new_count.values())))
    if not once:  # nothing in common but repeated lines (two unrelated texts): one gap
        return [], []
    old_at = list(compress(range(len(old)), map(once.__contains__, old)))
    new_index = dict(zip(new, range(len(new)), strict=True))  # a line unique there: its one index
    new_at = list(map(new_index.__getitem__, map(old.__getitem__, old_at)))
    if all(map(lt, new_at, new_at[1:])):  # in the same order on both sides (no line moved): all of them
        return old_at, new_at
    return _longest_run(old_at, new_at)


def _longest_run(old_at: list[int], new_at: list[int]) -> tuple[list[int], list[int]]:
    """The longest run of pairs increasing in ``new_at`` too (``old_at`` increases): patience sorting with back
    links. A stretch that increases and starts above the best run's end only extends it, so it is added
    whole (slices); one by one are only the pairs after a step down (a moved line), below that end."""
    tails: list[int] = []  # tails[k]: the j ending the best run of length k + 1
    tail_at: list[int] = []  # its index in the pairs
    back: list[int] = [-1] * len(new_at)  # the pair before each in its best run
    first = list(range(len(new_at)))  # the first of the pairs before each that follow one another in the run
    starts = [0, *compress(count(1), map(gt, new_at, new_at[1:]))]  # where each increasing stretch starts
    for start, end in zip(starts, [*starts[1:], len(new_at)], strict=True):
        n = start
        while n < end and tails and new_at[n] <= tails[-1]:
            k = bisect_left(tails, new_at[n])
            tails[k], tail_at[k] = new_at[n], n
            back[n] = tail_at[k - 1] if k > 0 else -1
            n += 1
        if n < end:  # the rest of the stretch extends the best run, pair after pair
            back[n] = tail_at[-1] if tail_at else -1
            back[n + 1 : end] = range(n, end - 1)
            first[n:end] = [n] * (end - n)
            tails += new_at[n:end]
            tail_at += range(n, end)
    pieces: list[range] = []
    n = tail_at[-1] if tail_at else -1
    while n >= 0:
        pieces.append(range(first[n], n + 1))
        n = back[first[n]]
    run = list(chain.from_iterable(reversed(pieces)))
    return list(map(old_at.__getitem__, run)), list(map(new_at.__getitem__, run))
