"""Change sets: checking, applying, composing, line endings, the recent-changes log, anchors through spans."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vmark.core import comments as model
from vmark.core.changes import (
    ChangeLog,
    Span,
    SpanError,
    Spans,
    apply_spans,
    check_fits,
    compose,
    covering,
    diff,
    parse_spans,
    replaced_state,
    shown_to_stored,
    splice_state,
    wire,
)
from vmark.core.comments import Thread
from vmark.core.document import DocState

ALPHABET = "ab\n😀é"


@st.composite
def texts_and_spans(draw: st.DrawFn, text: str | None = None) -> tuple[str, Spans]:
    base = draw(st.text(ALPHABET, max_size=12)) if text is None else text
    points = sorted(draw(st.lists(st.integers(0, len(base)), max_size=8)))
    if len(points) % 2:
        points.pop()
    inserts = draw(st.lists(st.text(ALPHABET, max_size=3), min_size=len(points) // 2, max_size=len(points) // 2))
    spans = tuple(Span(points[i], points[i + 1], inserts[i // 2]) for i in range(0, len(points), 2))
    return base, spans


def _by_hand(text: str, spans: Spans) -> str:
    """The spans applied one at a time from the last (each leaves the earlier offsets alone)."""
    for span in reversed(spans):
        text = text[: span.start] + span.insert + text[span.end :]
    return text


# --- checking ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"from": 0}, "changes must be a list of [from, to, insert] spans"),
        ([[0, 1]], "changes[0] must be [from, to, insert]"),
        ([(0, 1, "x")], "changes[0] must be [from, to, insert]"),
        ([[0, "1", "x"]], "changes[0] must be [from, to, insert] with integer offsets and a string"),
        ([[True, 1, "x"]], "changes[0] must be [from, to, insert] with integer offsets and a string"),
        ([[0, 1.0, "x"]], "changes[0] must be [from, to, insert] with integer offsets and a string"),
        ([[0, 1, None]], "changes[0] must be [from, to, insert] with integer offsets and a string"),
        ([[2, 1, "x"]], "changes[0] 2..1 is not a span (0 <= from <= to)"),
        ([[-1, 1, "x"]], "changes[0] -1..1 is not a span (0 <= from <= to)"),
        ([[0, 3, ""], [2, 4, "x"]], "changes[1] starts at 2, before the previous span ends (3)"),
        ([[4, 5, ""], [0, 1, "x"]], "changes[1] starts at 0, before the previous span ends (5)"),
        ([[0, 0, "a\ud800"]], "changes[0] inserts a lone UTF-16 surrogate"),
    ],
)
def test_malformed_change_sets_are_refused_in_words(raw: object, message: str) -> None:
    with pytest.raises(SpanError) as info:
        parse_spans(raw)
    assert str(info.value) == message


def test_well_formed_spans_parse_and_must_fit_the_text() -> None:
    spans = parse_spans([[0, 0, "a"], [0, 2, ""], [2, 2, "😀"], [5, 5, "z"]])
    assert spans == (Span(0, 0, "a"), Span(0, 2, ""), Span(2, 2, "😀"), Span(5, 5, "z"))
    assert check_fits(spans, 5) == spans
    with pytest.raises(SpanError) as info:
        check_fits(spans, 4)
    assert str(info.value) == "changes[3] ends at 5, past the end of the text (4)"
    assert parse_spans([]) == () and check_fits((), 0) == ()
    assert wire(spans) == [(0, 0, "a"), (0, 2, ""), (2, 2, "😀"), (5, 5, "z")]  # JSON arrays on the wire


# --- applying and composing ------------------------------------------------------------------------
@given(texts_and_spans())
def test_applying_a_set_is_applying_its_spans_from_the_last(case: tuple[str, Spans]) -> None:
    text, spans = case
    assert apply_spans(text, spans) == _by_hand(text, spans)
    start, old_end, new_end = covering(spans)
    after = apply_spans(text, spans)
    assert after[:start] == text[:start] and after[new_end:] == text[old_end:]


@given(st.data())
def test_compose_is_one_set_doing_both(data: st.DataObject) -> None:
    text, first = data.draw(texts_and_spans())
    middle = apply_spans(text, first)
    _, second = data.draw(texts_and_spans(middle))
    composed = compose(first, second)
    assert parse_spans([list(span) for span in wire(composed)]) == composed  # sorted, not overlapping
    assert check_fits(composed, len(text)) == composed
    assert apply_spans(text, composed) == apply_spans(middle, second)


def test_compose_merges_what_touches_and_keeps_the_rest_apart() -> None:
    first = (Span(2, 2, "XY"), Span(6, 8, ""))  # "abcdefghij" -> "abXYcdefij"
    second = (Span(3, 5, "-"), Span(8, 8, "+"), Span(9, 10, "J"))  # -> "abX-def+iJ"
    assert compose(first, second) == (Span(2, 3, "X-"), Span(6, 8, "+"), Span(9, 10, "J"))
    assert apply_spans("abcdefghij", compose(first, second)) == "abX-def+iJ"
    assert compose((), second) == second and compose(first, ()) == first


@given(texts_and_spans())
def test_diff_finds_the_one_span_between_two_texts(case: tuple[str, Spans]) -> None:
    text, spans = case
    after = apply_spans(text, spans)
    span = diff(text, after)
    if after == text:
        assert span is None
    else:
        assert span is not None and apply_spans(text, (span,)) == after


# --- line endings ----------------------------------------------------------------------------------
@given(texts_and_spans())
def test_a_change_of_the_shown_text_is_the_crlf_files_change(case: tuple[str, Spans]) -> None:
    shown, spans = case
    stored = shown.replace("\n", "\r\n")
    new_stored, stored_spans = shown_to_stored(stored, shown, spans, "\r\n")
    assert new_stored == apply_spans(shown, spans).replace("\n", "\r\n")
    assert stored_spans is not None and apply_spans(stored, stored_spans) == new_stored


def test_crlf_offsets_move_by_the_line_breaks_before_them() -> None:
    stored, shown = "a\r\nb\r\nc", "a\nb\nc"
    new, spans = shown_to_stored(stored, shown, (Span(2, 3, "B\nB"), Span(4, 5, "")), "\r\n")
    assert (new, spans) == ("a\r\nB\r\nB\r\n", (Span(3, 4, "B\r\nB"), Span(6, 7, "")))


def test_mixed_line_breaks_give_the_file_one_ending_and_no_stored_spans() -> None:
    stored = "a\r\nb\nc"
    new, spans = shown_to_stored(stored, "a\nb\nc", (Span(5, 5, "!"),), "\r\n")
    assert (new, spans) == ("a\r\nb\r\nc!", None)
    lf_only = "a\nb"  # a CRLF file an agent wrote with "\n" breaks (a workflow keeps the agent's bytes)
    assert shown_to_stored(lf_only, lf_only, (Span(3, 3, "\n"),), "\r\n") == ("a\r\nb\r\n", None)
    no_break = "ab"
    assert shown_to_stored(no_break, no_break, (Span(2, 2, "\nc"),), "\r\n") == ("ab\r\nc", (Span(2, 2, "\r\nc"),))


def test_states_record_their_change_of_the_stored_and_the_shown_text() -> None:
    crlf = DocState("a\r\nb\r\n")
    typed = splice_state(crlf, (Span(2, 3, "B"),), "\r\n")
    assert typed.text == "a\r\nB\r\n" and typed.change is not None
    assert (typed.change.parent, typed.change.spans, typed.change.shown) == (
        crlf.revision,
        (Span(3, 4, "B"),),
        (Span(2, 3, "B"),),
    )
    whole = replaced_state(typed, "a\r\nB\r\nc\r\n")
    assert whole.change is not None
    assert (whole.change.spans, whole.change.shown) == ((Span(6, 6, "c\r\n"),), (Span(4, 4, "c\n"),))
    plain = DocState("x\n")
    same = replaced_state(plain, "x\n")
    assert same.change is not None and (same.change.spans, same.change.shown) == ((), ())


# --- the log of recent changes -----------------------------------------------------------------------
def test_the_log_composes_the_changes_since_a_revision() -> None:
    log = ChangeLog()
    states = [DocState("hello\n")]
    for spans in [(Span(5, 5, " world"),), (Span(0, 1, "H"),), (Span(11, 11, "!"),)]:
        states.append(splice_state(states[-1], spans, "\n"))
        log.record(states[-1])
    assert states[-1].text == "Hello world!\n"
    since_first = log.since(states[0].revision, states[-1])
    assert since_first is not None and apply_spans(states[0].text, since_first) == states[-1].text
    assert log.since(states[2].revision, states[-1]) == (Span(11, 11, "!"),)
    assert log.since(states[-1].revision, states[-1]) == ()
    assert log.since("rev-unknown0", states[-1]) is None
    assert log.since(states[0].revision, DocState("reloaded from disk\n")) is None


def test_the_log_is_bounded_in_entries_and_in_characters() -> None:
    log = ChangeLog(entries=3, chars=10)
    states = [DocState("")]
    for _ in range(5):
        states.append(splice_state(states[-1], (Span(0, 0, "ab"),), "\n"))
        log.record(states[-1])
    assert log.since(states[2].revision, states[-1]) is not None
    assert log.since(states[1].revision, states[-1]) is None  # dropped: more than 3 entries
    big = splice_state(states[-1], (Span(0, 0, "x" * 9),), "\n")
    log.record(big)
    assert log.since(states[-1].revision, big) is not None
    assert log.since(states[-2].revision, big) is None  # dropped: more than 10 inserted characters


# --- anchors through every span ----------------------------------------------------------------------
def _thread(anchor: tuple[int, int] | None, quote: str, hint: int = 0) -> Thread:
    return Thread("c-0000000001", "d", 1, quote, "b", "person", 0.0, anchor=anchor, hint=hint)


def test_anchors_move_through_every_span_of_a_set() -> None:
    old = "one two three four five"
    spans = (Span(0, 0, ">> "), Span(8, 13, "THREE"), Span(14, 18, ""), Span(23, 23, "!"))
    new = apply_spans(old, spans)
    assert new == ">> one two THREE  five!"
    two, four, five = _thread((4, 7), "two", 4), _thread((14, 18), "four", 14), _thread((19, 23), "five", 19)
    model.reanchor([two, four, five], new, model.changes_of(spans))
    assert two.anchor == (7, 10) and new[7:10] == "two"
    assert five.anchor == (18, 22) and new[18:22] == "five"
    assert four.anchor is None  # its quote is gone


def test_an_orphan_is_found_again_where_any_span_put_text() -> None:
    old = "aaa bbb ccc"
    orphan = _thread(None, "quote")
    spans = (Span(0, 0, "x"), Span(8, 11, "quote"))
    model.reanchor([orphan], apply_spans(old, spans), model.changes_of(spans))
    assert orphan.anchor == (9, 14)
