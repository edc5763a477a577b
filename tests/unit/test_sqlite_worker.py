"""The SQLite workers' lane: calls run in order, in batches, each with its own answer or error."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from vmark.storage.sqlite_worker import Lane, SqliteWorker


async def test_calls_queued_together_run_in_order_each_with_its_answer_or_error(tmp_path: Path) -> None:
    db = SqliteWorker(tmp_path / "a.db", "CREATE TABLE IF NOT EXISTS t (n INTEGER);")
    try:

        def insert(n: int) -> Callable[[sqlite3.Connection], object]:
            return lambda c: c.execute("INSERT INTO t VALUES (?)", (n,)).lastrowid

        def fail(c: sqlite3.Connection) -> None:
            c.execute("INSERT INTO nowhere VALUES (1)")

        calls = [db.run(insert(1)), db.run(fail), db.run(insert(2)), db.run(insert(3))]
        answers = await asyncio.gather(*calls, return_exceptions=True)
        assert answers[0] == 1 and answers[2:] == [2, 3]
        assert isinstance(answers[1], sqlite3.OperationalError)
        assert await db.run(lambda c: [n for (n,) in c.execute("SELECT n FROM t ORDER BY rowid")]) == [1, 2, 3]
    finally:
        db.close()


async def test_a_shared_lane_runs_both_databases_on_one_thread_in_call_order(tmp_path: Path) -> None:
    lane = Lane("test-lane")
    a = SqliteWorker(tmp_path / "a.db", "", lane=lane)
    b = SqliteWorker(tmp_path / "b.db", "", lane=lane)
    seen: list[tuple[str, int]] = []

    def note(name: str) -> Callable[[sqlite3.Connection], None]:
        return lambda _c: seen.append((name, threading.get_ident()))

    try:
        await asyncio.gather(a.run(note("a1")), b.run(note("b1")), a.run(note("a2")))
        assert [name for name, _ in seen] == ["a1", "b1", "a2"]
        assert len({ident for _, ident in seen}) == 1
        assert threading.get_ident() not in {ident for _, ident in seen}
    finally:
        a.close()
        b.close()  # the lane is its owner's: it still runs
        assert await b.run(lambda c: 7) == 7
        b.close()
        lane.shutdown()
    with pytest.raises(RuntimeError):
        await a.run(lambda c: None)


async def test_a_call_its_caller_stopped_waiting_for_does_not_run(tmp_path: Path) -> None:
    db = SqliteWorker(tmp_path / "a.db", "CREATE TABLE IF NOT EXISTS t (n INTEGER);")
    release = threading.Event()
    try:
        busy = asyncio.ensure_future(db.run(lambda _c: release.wait(5)))
        await asyncio.sleep(0.05)  # the lane is busy with it
        later = asyncio.ensure_future(db.run(lambda c: c.execute("INSERT INTO t VALUES (1)")))
        await asyncio.sleep(0)
        later.cancel()
        release.set()
        await busy
        assert await db.run(lambda c: c.execute("SELECT COUNT(*) FROM t").fetchone()[0]) == 0
    finally:
        db.close()
