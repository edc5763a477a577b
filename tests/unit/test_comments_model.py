"""The comment thread model: anchoring after edits, agents' changes, and list pages (pure, no app)."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmark.core import comments as model
from vmark.core.comment_pages import Pager, Position, size
from vmark.core.comments import Change, Reply, Thread
from vmark.protocol.errors import DomainError
from vmark.protocol.limits import COMMENT_PAGE_BYTES, MAX_REPLIES


def _thread(quote: str, text: str, seq: int = 1, hint: int = 0) -> Thread:
    anchor = model.find_exact(text, quote, hint)
    return Thread(f"c-{seq:010}", "doc", seq, quote, "body", "person", 0.0, anchor=anchor, hint=hint)


def _edit(threads: list[Thread], old: str, new: str) -> None:
    change = model.diff_span(old, new)
    if change is not None:
        model.reanchor(threads, new, [change])


# --- diff and exact search ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("old", "new", "change"),
    [
        ("abcdef", "abcXdef", Change(3, 3, 4)),
        ("abcdef", "abef", Change(2, 4, 2)),
        ("aaaa", "aaaaa", Change(4, 4, 5)),
        ("abc", "xyz", Change(0, 3, 3)),
        ("", "new", Change(0, 0, 3)),
    ],
)
def test_diff_span(old: str, new: str, change: Change) -> None:
    assert model.diff_span(old, new) == change
    assert model.diff_span(old, old) is None


@given(st.text("ab\n😀", max_size=30), st.text("ab\n😀", max_size=30))
def test_diff_span_rebuilds_the_new_text(old: str, new: str) -> None:
    change = model.diff_span(old, new)
    if change is None:
        assert old == new
        return
    assert old[: change.start] + new[change.start : change.new_end] + old[change.old_end :] == new


def test_exact_match_nearest_the_hint() -> None:
    text = "x alpha y alpha z alpha"
    assert model.find_exact(text, "alpha", 0) == (2, 7)
    assert model.find_exact(text, "alpha", 11) == (10, 15)
    assert model.find_exact(text, "alpha", 16) == (18, 23)
    assert model.find_exact(text, "alpha", 100) == (18, 23)
    assert model.find_exact(text, "beta", 0) is None
    assert model.find_exact(text, "alpha", 0, lo=-5, hi=9) == (2, 7)  # bounds are clamped


# --- anchors after edits ----------------------------------------------------------------------------------
def test_untouched_anchors_shift_and_touched_ones_are_found_again() -> None:
    old = "one alpha two beta three"
    before, inside, after = _thread("one", old, 1), _thread("alpha", old, 2), _thread("beta", old, 3)
    threads = [before, inside, after]
    new = "one alpha two and a half beta three"
    _edit(threads, old, new)
    assert [t.anchor for t in threads] == [(0, 3), (4, 9), (25, 29)]
    newer = "beta three one"
    _edit(threads, new, newer)
    assert [newer[a:b] for a, b in (t.anchor or (0, 0) for t in threads)] == ["one", "", "beta"]
    assert inside.anchor is None and inside.hint >= 0
    _edit(threads, newer, newer + " alpha")
    assert inside.anchor == (15, 20)


def test_fuzzy_match_keeps_a_quote_whose_words_changed() -> None:
    old = "Intro.\n\nThe quick brown fox jumps over the lazy dog.\n\nEnd."
    thread = _thread("quick brown fox jumps over", old)
    new = old.replace("brown", "red")
    _edit([thread], old, new)
    assert thread.anchor is not None
    assert new[thread.anchor[0] : thread.anchor[1]] == "quick red fox jumps over"
    gone = new.replace("The quick red fox jumps over the lazy dog.", "Something else entirely.")
    _edit([thread], new, gone)
    assert thread.anchor is None


def test_short_quotes_match_exactly_only() -> None:
    old = "a cat sat"
    thread = _thread("cat", old)
    _edit([thread], old, "a cot sat")
    assert thread.anchor is None


def test_settle_checks_anchors_against_another_text() -> None:
    thread = _thread("alpha", "xx alpha")
    model.settle([thread], "alpha first, then more")
    assert thread.anchor == (0, 5)
    model.settle([thread], "nothing")
    assert thread.anchor is None


_EDITS = st.lists(
    st.tuples(
        st.integers(0, 60), st.integers(0, 20), st.sampled_from(["", "x", "alpha", "be", "ta", "\n", "😀", "gamma"])
    ),
    max_size=25,
)


@settings(max_examples=300, deadline=None)
@given(st.text("abglmpt \n😀", max_size=40), _EDITS)
def test_random_edits_never_lose_a_thread(prefix: str, edits: list[tuple[int, int, str]]) -> None:
    """Every thread stays: anchored inside the text, or orphaned; an anchor the edit did not touch still
    spans its quote."""
    text = prefix + " alpha beta gamma alphabet"
    threads = [_thread(q, text, i + 1) for i, q in enumerate(["alpha", "beta", "gamma", "alphabet", "a"])]
    ids = [t.id for t in threads]
    for at, length, insert in edits:
        start = min(at, len(text))
        end = min(start + length, len(text))
        new = text[:start] + insert + text[end:]
        exact = {t.id: t.anchor for t in threads if t.anchor and text[t.anchor[0] : t.anchor[1]] == t.quote}
        change = model.diff_span(text, new)
        _edit(threads, text, new)
        text = new
        assert [t.id for t in threads] == ids
        for thread in threads:
            assert thread.anchor is None or 0 <= thread.anchor[0] < thread.anchor[1] <= len(text)
            was = exact.get(thread.id)
            if change is not None and was is not None and (was[1] <= change.start or was[0] >= change.old_end):
                assert thread.anchor is not None and text[thread.anchor[0] : thread.anchor[1]] == thread.quote


# --- agents' changes -------------------------------------------------------------------------------------------
def test_agent_change_refusals_and_repeats() -> None:
    thread = _thread("alpha", "alpha")
    basis = thread.gen
    assert model.check_agent_change(thread, "reply", basis, "hi") is None
    model.add_reply(thread, Reply("r-0000000001", "agent", "hi", 0.0))
    model.remember(thread, basis, "reply", "hi", {"reply": "r-0000000001", "commentGen": thread.gen})
    assert model.check_agent_change(thread, "reply", basis, "hi") == {"reply": "r-0000000001", "commentGen": thread.gen}
    for op, body in (("reply", "other"), ("mark_addressed", "")):
        with pytest.raises(DomainError) as stale:
            model.check_agent_change(thread, op, basis, body)  # type: ignore[arg-type]
        assert stale.value.code == "STALE_COMMENT"
    assert model.set_state(thread, "resolved") and not model.set_state(thread, "resolved")
    with pytest.raises(DomainError) as resolved:
        model.check_agent_change(thread, "reply", thread.gen, "x")
    assert resolved.value.code == "COMMENT_NOT_ALLOWED"
    model.set_state(thread, "reopened")
    thread.replies = [Reply(f"r-{i:010}", "p", "x", 0.0) for i in range(MAX_REPLIES)]
    with pytest.raises(DomainError) as full:
        model.check_agent_change(thread, "reply", thread.gen, "x")
    assert full.value.code == "COMMENT_LIMIT"
    assert model.check_agent_change(thread, "mark_addressed", thread.gen) is None
    model.set_state(thread, "deleted")
    with pytest.raises(DomainError) as deleted:
        model.check_agent_change(thread, "mark_addressed", thread.gen)
    assert deleted.value.code == "STALE_COMMENT"


def test_body_checks() -> None:
    model.check_body("é" * 8192)
    for body, code in (("é" * 8193, "COMMENT_LIMIT"), ("\ud800", "INVALID_TEXT")):
        with pytest.raises(DomainError) as refused:
            model.check_body(body)
        assert refused.value.code == code
    assert model.is_comment_id("c-0123456789") and not model.is_comment_id("c-01234567890")


# --- pages -----------------------------------------------------------------------------------------------------------
def _pages(threads: list[Thread]) -> list[list[dict[str, object]]]:
    pager = Pager({"doc": "/d.md", "generation": "gen-0"})
    pages, at = [], Position(0)
    while True:
        items, following = pager.page(threads, at)
        page = {"doc": "/d.md", "generation": "gen-0", "threads": items, "nextCursor": "x" * 60}
        assert size(page) <= COMMENT_PAGE_BYTES
        pages.append(items)
        if following is None:
            return pages
        assert following != at
        at = following


def _body_of(item: dict[str, object]) -> str:
    if "body" in item:
        return str(item["body"])
    return base64.b64decode(str(item["bodyBase64"])).decode("utf-8")


_BODIES = st.sampled_from(["", "ok", "x" * 3000, "\x01" * 6000, "ü" * 5000, "\x02" * 16384, '"\\' * 8192])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_BODIES, st.lists(_BODIES, max_size=12)), max_size=8))
def test_pages_hold_every_thread_and_reply_within_the_bound(shape: list[tuple[str, list[str]]]) -> None:
    threads = []
    for i, (body, replies) in enumerate(shape):
        thread = Thread(f"c-{i:010}", "doc", i, "q" * 40, body, "person", 0.0, anchor=(0, 40))
        thread.replies = [Reply(f"r-{i:04}{j:06}", "agent", b, 0.0) for j, b in enumerate(replies)]
        threads.append(thread)
    rebuilt: list[tuple[str, str, list[str]]] = []
    for items in _pages(threads):
        for item in items:
            replies = [_body_of(r) for r in item["replies"]]  # type: ignore[attr-defined]
            if item.get("continued"):
                assert rebuilt[-1][0] == item["comment"]
                rebuilt[-1][2].extend(replies)
            else:
                rebuilt.append((str(item["comment"]), _body_of(item), replies))
    assert rebuilt == [(t.id, t.body, [r.body for r in t.replies]) for t in threads]


def test_a_body_goes_base64_only_when_it_cannot_fit_as_text() -> None:
    thread = Thread("c-0000000001", "doc", 1, "quote", "\x01" * 16384, "person", 0.0)
    thread.replies = [Reply("r-0000000001", "a", "\x01" * 5000, 0.0)]
    first, second = _pages([thread])
    assert "bodyBase64" in first[0] and "body" not in first[0]
    assert (first[0]["repliesFrom"], first[0]["repliesTotal"], first[0]["replies"]) == (0, 1, [])
    # 30 KB once escaped: too much next to the first part, but it fits a page as text by itself.
    assert second == [
        {
            "comment": "c-0000000001",
            "state": "open",
            "commentGen": thread.gen,
            "continued": True,
            "repliesFrom": 0,
            "repliesTotal": 1,
            "replies": [{"id": "r-0000000001", "author": "a", "created": 0.0, "body": "\x01" * 5000}],
        }
    ]
