"""The bounded line diff: difflib for small texts, patience anchors for large ones, long anchorless gaps whole."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vmark.core import linediff
from vmark.core.linediff import DIFFLIB_LINES, GAP_LINES, Block, changed_lines


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
    assert changed_lines(old, new) == [Block(100, 101 + GAP_LINES, 100, 101 + GAP_LINES)]


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
