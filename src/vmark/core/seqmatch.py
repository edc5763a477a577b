"""The changed runs between two sequences, exactly as :class:`difflib.SequenceMatcher` finds them, in C++.

Every diff of the app (the review's word diff of each agent write, the line alignment under it) asks this
one question. difflib answers it in Python, and its cost follows how often tokens recur: Markdown has a
space between every two words, so a 1 KB rewrite took milliseconds on the event loop and a list of similar
lines much more. ``cydifflib`` (a maintained PyPI package) is difflib's algorithm in C++: the same
matching blocks, so the same answers, tens of times faster. Without it (a platform without a wheel and
without a compiler) difflib gives the same answers, slower.

The items are interned to small integers first (equal items stay equal, so the answer is the same): the
C++ matcher then hashes and compares machine integers instead of calling back into Python.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Hashable, Sequence
from itertools import chain
from operator import mul
from typing import Any

try:  # the same algorithm in C++ (see the module's note)
    from cydifflib import SequenceMatcher as _Matcher  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - the package is a dependency; difflib answers the same
    _Matcher = difflib.SequenceMatcher

#: ``(old_start, old_end, new_start, new_end)``: ``old[old_start:old_end]`` became ``new[new_start:new_end]``
Run = tuple[int, int, int, int]


def changed_runs(old: Sequence[Hashable], new: Sequence[Hashable]) -> list[Run]:
    """The runs that differ (difflib's non-``equal`` opcodes, with ``autojunk`` off), in order, apart."""
    if not old or not new:
        return [(0, len(old), 0, len(new))] if old or new else []
    if len(old) == len(new) == 1:  # a word for a word (the review's line by line): no matcher to build
        return [] if old[0] == new[0] else [(0, 1, 0, 1)]
    # Interned in C loops (dict.fromkeys, map): a Python loop over every token cost as much as the matching.
    ids: dict[Any, int] = {item: n for n, item in enumerate(dict.fromkeys(chain(old, new)))}
    a, b = list(map(ids.__getitem__, old)), list(map(ids.__getitem__, new))
    matcher = _Matcher(None, a, b, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def equal_pairs(old: Sequence[Hashable], new: Sequence[Hashable]) -> int:
    """How many pairs of equal items there are, one of ``old`` and one of ``new``: the matcher's search for the
    longest match looks at each, at every level of its recursion (so it is quadratic in two long texts of
    recurring tokens, a space between every two words). Counted in C loops."""
    old_count, new_count = Counter(old), Counter(new)
    common = old_count.keys() & new_count.keys()
    return sum(map(mul, map(old_count.__getitem__, common), map(new_count.__getitem__, common)))


def common_head(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """How many items ``a`` and ``b`` start with alike: halving, each step one slice comparison (a C loop)."""
    low, high = 0, min(len(a), len(b))  # a[:low] == b[:low]; a[:high + 1] != b[:high + 1]
    while low < high:
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def common_tail(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """How many items ``a`` and ``b`` end with alike (as :func:`common_head`)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid : len(a) - low] == b[len(b) - mid : len(b) - low]:
            low = mid
        else:
            high = mid - 1
    return low
