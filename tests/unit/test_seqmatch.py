"""``changed_runs`` answers exactly what difflib's matcher answers (the review's word diff and the line
alignment depend on its choices, not only on its edit distance)."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from vmark.core.seqmatch import changed_runs, equal_pairs


def _difflib(old: list[str], new: list[str]) -> list[tuple[int, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


# few distinct tokens, so they recur (a space between every two words): where the matcher's choices matter
_TOKENS = st.lists(st.sampled_from([" ", "\n", "the", "fox", "ü", "*", "a"]), max_size=60)


@settings(max_examples=400, deadline=None)
@given(_TOKENS, _TOKENS)
def test_the_runs_are_difflibs(old: list[str], new: list[str]) -> None:
    assert changed_runs(old, new) == _difflib(old, new)


@settings(max_examples=200, deadline=None)
@given(_TOKENS, st.integers(0, 60), st.integers(0, 60), _TOKENS)
def test_an_edit_inside_a_text_is_difflibs(text: list[str], at: int, cut: int, insert: list[str]) -> None:
    at = min(at, len(text))
    edited = text[:at] + insert + text[at + cut :]
    assert changed_runs(text, edited) == _difflib(text, edited)


def test_exact_runs() -> None:
    old = ["the", " ", "quick", " ", "fox", "\n"]
    new = ["the", " ", "swift", " ", "fox", "\n", "end"]
    assert changed_runs(old, new) == [(2, 3, 2, 3), (6, 6, 6, 7)]
    assert changed_runs([], []) == []
    assert changed_runs([], ["a"]) == [(0, 0, 0, 1)]
    assert changed_runs(["a", "b"], []) == [(0, 2, 0, 0)]


def test_the_pairs_of_equal_items_are_counted_one_on_each_side() -> None:
    assert equal_pairs(["a", " ", "a", " ", "b"], [" ", "a", " ", " ", "c"]) == 2 * 1 + 2 * 3
    assert equal_pairs([], ["a"]) == 0
