"""The bounded line diff: difflib for small texts, patience anchors for large ones, long anchorless gaps whole."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vmark.core import linediff
from vmark.core.linediff import DIFFLIB_LINES, GAP_LINES, Block, changed_lines
from vmark.core.seqmatch import common_head, common_tail


def _applied(old: list[str], new: list[str], blocks: list[Block]) -> list[str]:
    """``old`` with each block's lines replaced by the new lines it names (checks the blocks make ``new``)."""
    out: list[str] = []
    at = 0
    for block in blocks:
        assert old[at : block.old_start] == new[len(out) : len(out) + block.old_start - at]  # equal between blocks
        out += old[at : block.old_start] + new[block.new_start : block.new_end]
        at = block.old_end
    return out + old[at:]


def test_small_texts_are_difflib_s_blocks() -> None:
    assert changed_lines(["a", "b", "c"], ["a", "x", "c", "d"]) == [Block(1, 2, 1, 2), Block(3, 3, 3, 4)]


def test_a_large_text_is_aligned_on_its_unique_lines() -> None:
    old = [f"line {i}" for i in range(DIFFLIB_LINES * 2)]
    new = list(old)
    new[5] = "line five"
    new[1500:1500] = ["added"]  # before old line 1500
    del new[2501]  # old line 2500
    assert changed_lines(old, new) == [Block(5, 6, 5, 6), Block(1500, 1500, 1500, 1501), Block(2500, 2501, 2501, 2501)]
    assert _applied(old, new, changed_lines(old, new)) == new


def test_lines_moved_out_of_order_are_changes_and_repeated_lines_between_anchors_are_diffed() -> None:
    old = [f"line {i}" for i in range(DIFFLIB_LINES * 2)]
    old[10:14] = ["", "", "", ""]  # not unique: aligned by difflib between the anchors around them
    new = list(old)
    new[12] = "x"
    new[3000], new[3001] = old[3001], old[3000]  # a swap: one of the two is no anchor in the chain
    blocks = changed_lines(old, new)
    assert blocks == [
        Block(12, 12, 12, 13),  # difflib between the anchors: "x" added, one of the blank lines gone
        Block(13, 14, 14, 14),
        Block(3000, 3001, 3000, 3000),  # the swapped line 3001 is the anchor kept; 3000 moved after it
        Block(3002, 3002, 3001, 3002),
    ]
    assert _applied(old, new, blocks) == new


def test_a_gap_without_anchors_longer_than_the_bound_is_one_block() -> None:
    old = [f"line {i}" for i in range(DIFFLIB_LINES * 2)]
    new = list(old)
    old[100 : 100 + GAP_LINES + 1] = ["same"] * (GAP_LINES + 1)  # repeated: no anchor in there
    new[100 : 100 + GAP_LINES + 1] = ["same"] * GAP_LINES + ["other"]
    new[5] = new[-5] = "changed"  # the gap is not at the texts' common start or end (those lines are equal)
    end = len(old)
    assert changed_lines(old, new) == [
        Block(5, 6, 5, 6),
        Block(100, 101 + GAP_LINES, 100, 101 + GAP_LINES),
        Block(end - 5, end - 4, end - 5, end - 4),
    ]


@pytest.fixture()
def _small_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(linediff, "DIFFLIB_LINES", 4)
    monkeypatch.setattr(linediff, "GAP_LINES", 3)


_LINES = st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f", ""]), max_size=14)


@pytest.mark.usefixtures("_small_bounds")
@given(_LINES, _LINES)
def test_the_blocks_always_make_the_new_lines(old: list[str], new: list[str]) -> None:
    blocks = changed_lines(old, new)
    assert _applied(old, new, blocks) == new
    assert all(a.old_end <= b.old_start and a.new_end <= b.new_start for a, b in pairwise(blocks))


@pytest.mark.parametrize(
    ("a", "b", "head", "tail"),
    [
        ([], [], 0, 0),
        (["x"], [], 0, 0),
        (["a", "b", "c"], ["a", "b", "c"], 3, 3),
        (["a", "b", "c"], ["a", "x", "c"], 1, 1),
        (["a", "b"], ["a", "b", "b"], 2, 1),
        (["a"] * 7 + ["z"], ["a"] * 5 + ["y"], 5, 0),
    ],
)
def test_the_common_head_and_tail_are_counted_exactly(a: list[str], b: list[str], head: int, tail: int) -> None:
    assert common_head(a, b) == head
    assert common_tail(a, b) == tail
    assert common_head("".join(a), "".join(b)) == head  # any sequence: a string's characters too
    assert common_tail("".join(a), "".join(b)) == tail


def test_the_lines_both_texts_start_and_end_with_are_left_out_before_the_anchors() -> None:
    # The middle is repeated lines only (no anchor): without the common lines left out first it would be one
    # gap of the whole text, longer than the bound, so one block.
    old = ["same"] * (DIFFLIB_LINES * 2)
    new = list(old)
    new[DIFFLIB_LINES] = "other"
    assert changed_lines(old, new) == [Block(DIFFLIB_LINES, DIFFLIB_LINES + 1, DIFFLIB_LINES, DIFFLIB_LINES + 1)]


def test_texts_with_no_line_in_common_are_one_block() -> None:
    old = [f"old {i}\r\n" for i in range(DIFFLIB_LINES)]
    new = [f"new {i}\r\n" for i in range(DIFFLIB_LINES + 5)]
    assert changed_lines(old, new) == [Block(0, DIFFLIB_LINES, 0, DIFFLIB_LINES + 5)]


def test_a_large_text_against_an_empty_one_is_one_block_and_equal_texts_have_none() -> None:
    lines = [f"line {i}\r\n" for i in range(DIFFLIB_LINES * 2)]  # CRLF lines as splitlines(keepends) gives them
    assert changed_lines(lines, []) == [Block(0, len(lines), 0, 0)]
    assert changed_lines([], lines) == [Block(0, 0, 0, len(lines))]
    assert changed_lines(lines, list(lines)) == []


def test_a_line_that_differs_only_by_its_line_break_is_changed() -> None:
    old = [f"line {i}\n" for i in range(DIFFLIB_LINES * 2)]
    new = list(old)
    new[5], new[3000] = "line 5\r\n", "line 3000"
    assert changed_lines(old, new) == [Block(5, 6, 5, 6), Block(3000, 3001, 3000, 3001)]


def test_a_large_shifted_text_keeps_every_line_that_did_not_move() -> None:
    # Every heading crosses the list line after it (the bench's texts): one line moves at each heading.
    def text(variant: int) -> list[str]:
        return [f"## {n // 50}\n" if n % 50 == 0 else f"item {n // 50 * 49 + n % 50 + variant}\n" for n in range(5000)]

    blocks = changed_lines(text(1), text(2))
    assert _applied(text(1), text(2), blocks) == text(2)
    # The first list line is gone; at each heading after it, the line after it is kept and the heading moves.
    assert blocks[:3] == [Block(1, 2, 1, 1), Block(50, 51, 49, 49), Block(52, 52, 50, 51)]
    assert blocks[-1] == Block(5000, 5000, 4999, 5000)
    assert len(blocks) == 2 * 100


def _longest_increasing(values: list[int]) -> int:
    best = [1] * len(values)
    for k, v in enumerate(values):
        best[k] += max((best[m] for m in range(k) if values[m] < v), default=0)
    return max(best, default=0)


@given(st.permutations(list(range(12))), st.integers(0, 11), st.integers(0, 11))
def test_the_anchors_kept_are_a_longest_chain_in_order(order: list[int], cut: int, swap: int) -> None:
    # Mostly in order (a sorted head and a shuffled rest) or shuffled: both ways of finding the run.
    values = sorted(order[:cut]) + order[cut:] if swap % 2 else order
    old_at, new_at = linediff._longest_run(list(range(len(values))), values)
    assert new_at == [values[i] for i in old_at]
    assert all(a < b for a, b in pairwise(old_at)) and all(a < b for a, b in pairwise(new_at))
    assert len(new_at) == _longest_increasing(values)
