"""The review store on disk: a run of rewrites merged into one pending change is stored as a chain (each row
the revisions after the change it merged), loads back whole, and survives restarts, moves and old stores."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from vmark.core.review import Change
from vmark.storage import reviews
from vmark.storage.reviews import ReviewStore


def _change(change_id: str, revisions: tuple[str, ...], start: int = 0, end: int = 5) -> Change:
    return Change(change_id, revisions, "alice", "document.write", start, end, "old", 1.0, "claude (alice)")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[ReviewStore]:
    opened = ReviewStore(tmp_path / "reviews.db")
    await opened.start()
    yield opened
    opened.close()


async def _reopened(path: Path) -> ReviewStore:
    again = ReviewStore(path)
    await again.start()
    return again


def _rows(path: Path) -> dict[str, tuple[str, list[str], str | None]]:
    with sqlite3.connect(path) as c:
        rows = c.execute("SELECT id, state, revisions, base FROM review_changes").fetchall()
    return {change_id: (state, json.loads(revisions), base) for change_id, state, revisions, base in rows}


async def _rewrites(store: ReviewStore, count: int) -> Change:
    """``count`` agent rewrites, each merging the pending change before it; the last change."""
    change = _change("c1", ("r1",))
    await store.save("doc", "h1", [change], [])
    for n in range(2, count + 1):
        merged, change = change, _change(f"c{n}", (*change.revisions, f"r{n}"))
        await store.save("doc", f"h{n}", [change], [(merged.id, "merged")])
    return change


async def test_a_run_of_rewrites_stores_each_revision_once_and_loads_whole(store: ReviewStore, tmp_path: Path) -> None:
    last = await _rewrites(store, 200)
    rows = _rows(tmp_path / "reviews.db")
    assert sum(len(revisions) for _, revisions, _ in rows.values()) == 200  # not 200 * 201 / 2
    assert rows["c1"] == ("merged", ["r1"], None)
    assert rows["c2"] == ("merged", ["r2"], "c1")
    assert rows["c200"] == ("pending", ["r200"], "c199")
    loaded = await store.load()
    assert loaded["doc"].hash == "h200"
    assert loaded["doc"].changes == [last]
    assert last.revisions == tuple(f"r{n}" for n in range(1, 201))


async def test_after_a_restart_the_first_save_rewrites_whole_then_chains_again(tmp_path: Path) -> None:
    path = tmp_path / "reviews.db"
    first = await _reopened(path)
    last = await _rewrites(first, 3)
    first.close()
    second = await _reopened(path)
    try:
        assert (await second.load())["doc"].changes == [last]
        moved = replace(last, start=7, end=12)  # someone else's edit moved it: same id, same revisions
        await second.save("doc", "h4", [moved], [])
        assert _rows(path)["c3"] == ("pending", ["r1", "r2", "r3"], None)
        newer = _change("c4", (*moved.revisions, "r4"))
        await second.save("doc", "h5", [newer], [("c3", "merged")])
        assert _rows(path)["c4"] == ("pending", ["r4"], "c3")
        assert (await second.load())["doc"].changes == [newer]
    finally:
        second.close()


async def test_a_moved_change_keeps_its_chain_and_an_unchanged_one_is_not_written(
    store: ReviewStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    last = await _rewrites(store, 3)
    other = _change("x1", ("q1",), 20, 25)
    await store.save("doc", "h", [last, other], [])
    moved = replace(last, start=2, end=9)
    await store.save("doc", "h", [moved, other], [])
    assert _rows(tmp_path / "reviews.db")["c3"] == ("pending", ["r3"], "c2")
    assert (await store.load())["doc"].changes == [moved, other]

    written: list[str] = []
    real = reviews._changed
    monkeypatch.setattr(
        reviews, "_changed", lambda saved, before: [written.append(r.change.id) or r for r in real(saved, before)]
    )
    await store.save("doc", "h", [moved, other], [])
    assert written == []


async def test_a_change_that_merged_several_is_stored_whole(store: ReviewStore, tmp_path: Path) -> None:
    long = _change("a", ("r1", "r2", "r3"), 0, 5)
    short = _change("b", ("r4",), 10, 15)
    await store.save("doc", "h", [long, short], [])
    merged = _change("m", ("r1", "r2", "r3", "r4", "r5"), 0, 15)
    await store.save("doc", "h2", [merged], [("a", "merged"), ("b", "merged")])
    rows = _rows(tmp_path / "reviews.db")
    assert rows["m"] == ("pending", ["r1", "r2", "r3", "r4", "r5"], None)
    assert rows["a"] == ("merged", ["r1", "r2", "r3"], None)
    assert (await store.load())["doc"].changes == [merged]


async def test_only_a_change_judged_in_the_same_save_is_continued(store: ReviewStore, tmp_path: Path) -> None:
    kept = _change("a", ("r1",))
    await store.save("doc", "h", [kept], [])
    alongside = _change("b", ("r1", "r2"), 10, 15)  # carries a's revision while a stays pending
    await store.save("doc", "h2", [kept, alongside], [])
    assert _rows(tmp_path / "reviews.db")["b"] == ("pending", ["r1", "r2"], None)


async def test_judged_and_unjudged_departures(store: ReviewStore, tmp_path: Path) -> None:
    a, b, c = _change("a", ("r1",)), _change("b", ("r2",), 6, 8), _change("c", ("r3",), 9, 10)
    await store.save("doc", "h", [a, b, c], [])
    await store.save("doc", "h2", [c], [("a", "accepted")])  # b left unjudged: its row goes
    assert {k: v[0] for k, v in _rows(tmp_path / "reviews.db").items()} == {"a": "accepted", "c": "pending"}
    assert await store.judged("doc") == {"a": "accepted"}


async def test_a_failed_save_changes_nothing_and_the_next_one_rewrites_whole(
    store: ReviewStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    last = await _rewrites(store, 3)
    before = _rows(tmp_path / "reviews.db")

    def broken(saved: object, before: object) -> list[object]:
        raise sqlite3.OperationalError("disk I/O error")

    with monkeypatch.context() as patched:
        patched.setattr(reviews, "_changed", broken)
        with pytest.raises(sqlite3.OperationalError):
            await store.save("doc", "h4", [_change("c4", (*last.revisions, "r4"))], [("c3", "merged")])
    assert _rows(tmp_path / "reviews.db") == before
    newer = _change("c5", (*last.revisions, "r5"))
    await store.save("doc", "h5", [newer], [("c3", "merged")])
    assert _rows(tmp_path / "reviews.db")["c5"] == ("pending", ["r1", "r2", "r3", "r5"], None)
    assert (await store.load())["doc"].changes == [newer]


async def test_a_moved_document_keeps_chaining_under_its_new_key(store: ReviewStore, tmp_path: Path) -> None:
    last = await _rewrites(store, 2)
    await store.rekey("doc", "moved")
    newer = _change("c3", (*last.revisions, "r3"))
    await store.save("moved", "h3", [newer], [("c2", "merged")])
    assert _rows(tmp_path / "reviews.db")["c3"] == ("pending", ["r3"], "c2")
    loaded = await store.load()
    assert set(loaded) == {"moved"}
    assert loaded["moved"].changes == [newer]


async def test_a_store_from_before_chains_gets_the_column(tmp_path: Path) -> None:
    path = tmp_path / "reviews.db"
    with sqlite3.connect(path) as c:
        c.executescript(
            "CREATE TABLE review_docs (doc TEXT PRIMARY KEY, hash TEXT NOT NULL);"
            "CREATE TABLE review_changes (id TEXT PRIMARY KEY, doc TEXT NOT NULL, state TEXT NOT NULL,"
            " revisions TEXT NOT NULL, principal TEXT NOT NULL, tool TEXT NOT NULL, start INTEGER NOT NULL,"
            " end INTEGER NOT NULL, old TEXT NOT NULL, at REAL NOT NULL, judged REAL);"
            "INSERT INTO review_docs VALUES ('doc', 'h');"
            "INSERT INTO review_changes VALUES ('c', 'doc', 'pending', '[\"r1\",\"r2\"]', 'alice', 'document.write',"
            " 0, 5, 'old', 1.0, NULL);"
        )
    store = await _reopened(path)
    try:
        loaded = await store.load()
        assert loaded["doc"].changes == [Change("c", ("r1", "r2"), "alice", "document.write", 0, 5, "old", 1.0, "")]
    finally:
        store.close()
