"""The review model: word-level hunks of an edit, and pending changes mapped through later edits."""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vmark.app.review.pending import DocReview
from vmark.core import review as review_module
from vmark.core.changes import apply_spans, diff
from vmark.core.review import (
    WORD_DIFF_PAIRS,
    WORD_DIFF_TOKENS,
    Change,
    Hunk,
    SpanIndex,
    hunk_spans,
    map_change,
    map_position,
    merged_old,
    reject_spans,
    word_hunks,
)
from vmark.core.review_merge import Author, merge_edit
from vmark.core.seqmatch import equal_pairs
from vmark.core.spans import Span


def _hunks(old: str, new: str) -> list[tuple[str, str]]:
    span = diff(old, new)
    spans = () if span is None else (span,)
    return [(old[h.old_start : h.old_end], new[h.new_start : h.new_end]) for h in word_hunks(old, new, spans)]


def _change(start: int, end: int, old: str = "x") -> Change:
    return Change("rc-1", ("rev-1",), "alice", "document.edit", start, end, old, 0.0)


# --- word diff -----------------------------------------------------------------------------------------------
def test_a_changed_letter_changes_its_word() -> None:
    assert _hunks("the cat sat", "the cot sat") == [("cat", "cot")]
    assert _hunks("cat", "cats") == [("cat", "cats")]


def test_changed_words_far_apart_are_separate_changes_and_a_rewritten_phrase_is_one() -> None:
    old = "The quick brown fox jumps over the lazy dog."
    assert _hunks(old, old.replace("brown", "red").replace("lazy", "sleepy")) == [("brown", "red"), ("lazy", "sleepy")]
    assert _hunks(old, old.replace("quick brown", "slow red")) == [("quick brown", "slow red")]


def test_words_across_a_line_break_stay_apart() -> None:
    assert _hunks("one\ntwo\n", "uno\ndos\n") == [("one", "uno"), ("two", "dos")]


def test_insertions_deletions_and_punctuation() -> None:
    assert _hunks("a b", "a new b") in ([("", "new ")], [("", " new")])
    assert _hunks("a new b", "a b") in ([("new ", "")], [(" new", "")])
    assert _hunks("Plan", "Plan!") == [("", "!")]


def test_cjk_text_is_diffed_by_characters() -> None:
    assert _hunks("日本語です", "日本人です") == [("語", "人")]


def test_several_spans_of_one_edit() -> None:
    old = "alpha beta gamma delta"
    spans = (Span(1, 2, "L"), Span(17, 18, "D"))
    new = apply_spans(old, spans)
    hunks = word_hunks(old, new, spans)
    assert [(old[h.old_start : h.old_end], new[h.new_start : h.new_end]) for h in hunks] == [
        ("alpha", "aLpha"),
        ("delta", "Delta"),
    ]


def test_a_long_region_is_diffed_by_lines_first() -> None:
    lines = [f"line {i} of words" for i in range(WORD_DIFF_TOKENS)]
    old = "\n".join(lines) + "\n"
    last = WORD_DIFF_TOKENS - 1
    new = old.replace("line 5 of", "line five of").replace(f"line {last} of", f"line {last} of many")
    assert _hunks(old, new) == [("5", "five"), ("", "many ")]  # the added word and the space after it


def test_an_added_or_removed_line_is_that_whole_line() -> None:
    """Of the alignments changing as few words, the one on line starts (the diff put these mid-line)."""
    assert _hunks("a\n- one item\n- two item\nb\n", "a\n- one item\n- new item\n- two item\nb\n") == [
        ("", "- new item\n")
    ]
    assert _hunks("a\n- one item\n- new item\n- two item\nb\n", "a\n- one item\n- two item\nb\n") == [
        ("- new item\n", "")
    ]
    # The screenshot's case: a word changed two lines above, and a list line added after "- one item".
    assert _hunks(
        "The first step.\n\n- one item\n- two item\n", "The 1st step.\n\n- one item\n- new item\n- two item\n"
    ) == [
        ("first", "1st"),
        ("", "- new item\n"),
    ]
    old = "Intro.\n\nThe first step is slow.\n\nEnd.\n"
    assert _hunks(old, old.replace("End.", "The first step is slow.\n\nEnd.")) == [("", "The first step is slow.\n\n")]
    # Where the fewest words are not a whole line, the diff stays as it was: an added word between spaces.
    assert _hunks("The step is slow.\n", "The step is very slow.\n") == [("", "very ")]


_LINES = st.lists(st.sampled_from(["- one item", "- two item", "- item", "item", "one two"]), max_size=6)


@given(_LINES, st.sampled_from(["- one item", "- item", "item two", "one two"]), st.data())
def test_a_line_inserted_among_lines_is_highlighted_as_that_line(
    lines: list[str], added: str, data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(lines)))
    old = "".join(f"{line}\n" for line in lines)
    new = "".join(f"{line}\n" for line in [*lines[:at], added, *lines[at:]])
    spans = (diff(old, new),) if old != new else ()
    hunks = word_hunks(old, new, tuple(s for s in spans if s is not None))
    assert apply_spans(old, hunk_spans(hunks, new)) == new
    if len(hunks) != 1:
        return  # the fewest words are not one insertion here (difflib matched a word of the line elsewhere)
    (hunk,) = hunks
    assert hunk.old_start == hunk.old_end  # an insertion
    assert hunk.new_start == 0 or new[hunk.new_start - 1] == "\n"  # from a line start
    assert new[hunk.new_start : hunk.new_end] == f"{added}\n"  # to its end: the line it added


_TEXT = st.text(alphabet="ab \n.日", max_size=40)


@st.composite
def _edits(draw: st.DrawFn) -> tuple[str, tuple[Span, ...]]:
    text = draw(_TEXT)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=6)))
    spans = [
        Span(cuts[i], cuts[i + 1], draw(st.text(alphabet="ab \n.日", max_size=5))) for i in range(0, len(cuts) - 1, 2)
    ]
    return text, tuple(spans)


@given(_edits())
def test_the_hunks_make_the_new_text_and_rejecting_all_of_them_gives_the_old_back(
    edit: tuple[str, tuple[Span, ...]],
) -> None:
    _check_hunks(*edit)


def _check_hunks(old: str, spans: tuple[Span, ...]) -> None:
    new = apply_spans(old, spans)
    hunks = word_hunks(old, new, spans)
    assert all(a.old_end <= b.old_start and a.new_end <= b.new_start for a, b in pairwise(hunks))  # sorted, apart
    assert apply_spans(old, hunk_spans(hunks, new)) == new
    changes = [_change(h.new_start, h.new_end, old[h.old_start : h.old_end]) for h in hunks]
    assert apply_spans(new, reject_spans(changes)) == old
    assert all(old[h.old_start : h.old_end] != new[h.new_start : h.new_end] for h in hunks)


@pytest.fixture()
def _small_cost_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(review_module, "WORD_DIFF_PAIRS", 3)  # small texts take the long texts' paths


@pytest.mark.usefixtures("_small_cost_bound")
@given(_edits())
def test_the_hunks_of_texts_too_costly_to_diff_whole_make_the_new_text_too(edit: tuple[str, tuple[Span, ...]]) -> None:
    _check_hunks(*edit)


# --- mapping -------------------------------------------------------------------------------------------------
def test_edits_before_after_and_inside_a_change() -> None:
    change = _change(4, 7)  # "the big cat": "big"
    assert map_change(change, (Span(0, 0, "XX"),)) == _change(6, 9)  # before: moves
    assert map_change(change, (Span(8, 11, "dog"),)) == change  # after: stays
    assert map_change(change, (Span(5, 5, "ii"),)) == _change(4, 9)  # strictly inside: grows
    assert map_change(change, (Span(5, 6, ""),)) == _change(4, 6)  # inside deletion: shrinks


def test_text_typed_at_a_changes_edges_is_not_the_agents() -> None:
    change = _change(4, 7)
    assert map_change(change, (Span(4, 4, "a "),)) == _change(6, 9)
    assert map_change(change, (Span(7, 7, "s"),)) == change
    assert map_change(change, (Span(4, 5, "B"),)) == _change(5, 7)  # replaced its first letter: two are left


def test_an_edit_across_a_change_keeps_what_is_left_of_it() -> None:
    change = _change(4, 7)
    assert map_change(change, (Span(2, 5, "Z"),)) == _change(3, 5)  # across its start
    assert map_change(change, (Span(6, 9, "Z"),)) == _change(4, 6)  # across its end


def test_an_edit_taking_all_of_a_change_ends_it() -> None:
    change = _change(4, 7)
    assert map_change(change, (Span(4, 7, "dog"),)) is None
    assert map_change(change, (Span(0, 11, ""),)) is None


def test_a_pure_deletion_moves_with_its_spot_and_ends_when_text_around_it_is_replaced() -> None:
    deletion = _change(4, 4, "old ")
    assert map_change(deletion, (Span(0, 0, "ab"),)) == _change(6, 6, "old ")
    assert map_change(deletion, (Span(4, 4, "ab"),)) == _change(6, 6, "old ")
    assert map_change(deletion, (Span(5, 6, "ab"),)) == deletion
    assert map_change(deletion, (Span(3, 5, "ab"),)) is None


def test_map_position_with_several_spans_touching_it() -> None:
    spans = (Span(1, 3, "x"), Span(3, 3, "yy"), Span(3, 5, "z"))
    assert map_position(3, spans, after=False) == (1, False)
    assert map_position(3, spans, after=True) == (5, False)
    assert map_position(2, spans, after=True) == (2, True)


def _walked(pos: int, spans: tuple[Span, ...], after: bool) -> tuple[int, bool]:
    """The mapping of one position by walking every span from the first (what the index must agree with)."""
    shift, landed, inside = 0, None, False
    for span in spans:
        if span.start > pos:
            break
        if span.end < pos:
            shift += span.delta
            continue
        inside = inside or span.start < pos < span.end
        if not after:
            return span.start + shift, inside
        landed = span.start + shift + len(span.insert)
        shift += span.delta
    return (pos + shift if landed is None else landed), inside


@given(_edits(), st.data())
def test_the_span_index_maps_every_position_as_walking_the_spans_does(
    edit: tuple[str, tuple[Span, ...]], data: st.DataObject
) -> None:
    text, spans = edit
    index = SpanIndex(spans)
    for pos in range(len(text) + 1):
        for after in (False, True):
            assert map_position(pos, index, after) == map_position(pos, spans, after) == _walked(pos, spans, after)


@given(_edits(), st.data())
def test_a_change_no_edit_touches_keeps_its_text(edit: tuple[str, tuple[Span, ...]], data: st.DataObject) -> None:
    text, spans = edit
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    moved = map_change(_change(start, end), spans)
    new = apply_spans(text, spans)
    if moved is not None:
        assert 0 <= moved.start <= moved.end <= len(new)
        assert (moved.start == moved.end) == (start == end)
    if all(s.end < start or s.start > end for s in spans):
        assert moved is not None
        assert new[moved.start : moved.end] == text[start:end]


def test_merged_old_gives_back_the_text_before_every_merged_change() -> None:
    # "a BIG red cat" came from "a big cat" (pending: "BIG" for "big", "red " inserted)
    text = "a BIG red cat"
    inside = [_change(2, 5, "big"), _change(6, 10, "")]
    assert merged_old(text, 0, len(text), inside) == "a big cat"
    assert Hunk(0, 1, 0, 1).old_end == 1


def test_a_changed_line_too_long_to_split_into_words_is_one_change() -> None:
    line = " ".join(f"w{i}" for i in range(8000))  # ~47,000 characters on one line
    old = f"keep\n{line}\nkeep too\n"
    new = old.replace("w0 ", "W0 ").replace("w7999", "W7999")
    changed = new.split("\n")[1]
    assert _hunks(old, new) == [(line, changed)]


def _costly(old: str, new: str) -> bool:
    """Whether difflib would see more pairs of equal words than the review diffs whole (the path under test)."""
    return equal_pairs(review_module._TOKEN.findall(old), review_module._TOKEN.findall(new)) > WORD_DIFF_PAIRS


def test_a_word_changed_on_every_line_is_diffed_line_by_line() -> None:
    # The lines are all alike (no word once on each side to anchor them): only pairing the lines finds the words.
    line = "- the quick brown fox jumps over the lazy dog, the quick one\n"
    old = "# List\n\n" + line * 60 + "\nEnd.\n"
    new = old.replace("lazy", "sleepy")
    assert _costly(old, new)
    assert _hunks(old, new) == [("lazy", "sleepy")] * 60
    # A block of lines too long to split into words whole (over WORD_DIFF_CHARS): still word by word, per line.
    long_old = line * (review_module.WORD_DIFF_CHARS // len(line) + 1)
    assert _hunks(long_old, long_old.replace("lazy", "sleepy")) == [("lazy", "sleepy")] * long_old.count("\n")


def test_lines_added_between_lines_with_a_changed_word_are_those_lines() -> None:
    lines = [f"- item {i:03d}: the quick brown fox jumps over the lazy dog\n" for i in range(60)]
    added = {9: "- an added line after item 009\n", 29: "- another one\n", 49: "- and a third, the last\n"}
    old = "# List\n\n" + "".join(lines) + "\nEnd.\n"
    new = "# List\n\n" + "".join(line.replace("quick", "swift") + added.get(i, "") for i, line in enumerate(lines))
    new += "\nEnd.\n"
    assert _costly(old, new)  # one block of 60 lines against 63, diffed on its anchor words (the numbers)
    expected = [("quick", "swift")] * 60
    for at, text in sorted(added.items(), reverse=True):
        expected.insert(at + 1, ("", text))
    assert _hunks(old, new) == expected


def test_two_texts_alike_only_in_their_spaces_are_one_change() -> None:
    # The cut-off: no word once on each side, and more pairs of equal words (spaces, line breaks) than the
    # review diffs whole: the block is shown replaced, not matched space by space.
    old_lines = "".join(f"alpha beta gamma delta {i % 3} epsilon\n" for i in range(40))
    new_lines = "one two three four five six\n" * 41
    old, new = f"Intro.\n{old_lines}Outro.\n", f"Intro.\n{new_lines}Outro.\n"
    assert _costly(old, new)
    assert _hunks(old, new) == [(old_lines[:-1], new_lines[:-1])]  # the last line break is kept


# --- an edit over pending changes ------------------------------------------------------------------------------
def _ids() -> Callable[[], str]:
    numbers = iter(range(100))
    return lambda: f"rc-new{next(numbers)}"


def test_an_agent_edit_meeting_a_pending_change_merges_with_it() -> None:
    old = "the big cat sat"  # pending: "big" (was "small"), from revision rev-1
    pending = [Change("rc-1", ("rev-1",), "alice", "document.edit", 4, 7, "small", 1.0)]
    new = "the huge cat sat down"
    merged = merge_edit(pending, old, new, _spans(old, new), _AUTHOR, _ids())
    assert [(new[c.start : c.end], c.old, c.revisions, c.id) for c in merged.changes] == [
        ("huge", "small", ("rev-1", "rev-2"), "rc-new0"),
        (" down", "", ("rev-2",), "rc-new1"),
    ]
    assert (merged.merged, merged.undone, merged.made) == (pending, [], 2)


def test_an_edit_putting_the_old_text_back_leaves_nothing_and_a_revert_makes_no_new_changes() -> None:
    old = "the big cat"
    pending = [Change("rc-1", ("rev-1",), "alice", "document.edit", 4, 7, "small", 1.0)]
    back = merge_edit(pending, old, "the small cat", _spans(old, "the small cat"), _AUTHOR, _ids())
    assert (back.changes, back.undone, back.made) == ([], pending, 0)
    # A revert to a text with other words: the person's text there is no change; the agent's still is.
    reverted = merge_edit(pending, old, "a big dog", _spans(old, "a big dog"), None, _ids())
    assert [(c.start, c.end, c.old, c.revisions, c.principal) for c in reverted.changes] == [
        (2, 5, "small", ("rev-1",), "alice")
    ]
    assert reverted.made == 0


_AUTHOR = Author("rev-2", "bob", "document.write", 2.0)


def _spans(old: str, new: str) -> tuple[Span, ...]:
    span = diff(old, new)
    return () if span is None else (span,)


# The tokenizer's alternatives in their first order (CJK first): reordering disjoint alternatives for speed
# must change no token.
_FIRST_TOKEN = re.compile(rf"[{review_module._CJK}]|[^\W{review_module._CJK}]+|[^\S\n]+|\n|[^\w\s]")


@given(
    st.text(alphabet=st.sampled_from(list("ab_9 \t\n\u00a0.*é漢字かな한글\u3000!\u200b")), max_size=80)
    | st.text(max_size=80)
)
def test_the_word_tokens_are_those_of_the_first_pattern(text: str) -> None:
    assert review_module._TOKEN.findall(text) == _FIRST_TOKEN.findall(text)


def test_uncarried_is_what_no_pending_change_carries_once_each_in_order() -> None:
    def change(change_id: str, *revisions: str) -> Change:
        return Change(change_id, revisions, "alice", "document.write", 0, 1, "x", 1.0)

    review = DocReview(None, changes=[change("a", "r1", "r2"), change("b", "r4")])
    assert review.uncarried([]) == []
    assert review.uncarried(["r2", "r1", "r4"]) == []
    assert review.uncarried(["r5", "r3", "r2", "r5", "r3"]) == ["r5", "r3"]
    assert DocReview(None).uncarried(["r1", "r1"]) == ["r1"]
