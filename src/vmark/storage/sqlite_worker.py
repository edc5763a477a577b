"""A SQLite connection owned by one worker thread, driven from asyncio.

sqlite3 connections must stay on the thread that made them; every call here runs
on that one thread, in order, so callers never block the event loop on an fsync.

The thread is a :class:`Lane`: its own, or one shared by several databases (the app's history and review
store, written in the background after every agent write). Calls queued while the lane is busy (or in the
same turn of the loop: an agent write's history entries and its review's save) run as one batch, and their
answers come back to the loop together: one thread wake-up and one loop wake-up for the batch instead of one
of each per call (on a loaded machine each wake-up waits for a CPU). Each call still runs alone, in order,
with its own answer or error; a batch is not a transaction (a call that needs one makes it, as the journal's
does).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

_Call = tuple[Callable[[], Any], "asyncio.Future[Any]"]
#: a call's outcome: (its future, True and the result | False and the error)
_Outcome = tuple["asyncio.Future[Any]", bool, Any]


class Lane:
    """One worker thread running calls in order, batch by batch (see the module)."""

    def __init__(self, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        #: calls waiting for the thread, and whether a drain is on its way (both under ``_lock``)
        self._queued: list[_Call] = []
        self._draining = False
        self._lock = threading.Lock()

    async def run(self, fn: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._lock:
            self._queued.append((fn, future))
            start, self._draining = not self._draining, True
        if start:
            try:
                self._executor.submit(self._drain, loop)
            except RuntimeError:  # shut down: nothing runs any more
                with self._lock:
                    self._queued.clear()
                    self._draining = False
                raise
        return await future

    def _drain(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the thread: run what is queued, batch after batch, until nothing is."""
        while True:
            with self._lock:
                batch, self._queued = self._queued, []
                if not batch:
                    self._draining = False
                    return
            outcomes: list[_Outcome] = []
            for fn, future in batch:
                if future.cancelled():  # its caller stopped waiting before it ran (as an executor's would)
                    continue
                try:
                    outcomes.append((future, True, fn()))
                except BaseException as exc:  # handed to the caller, as an executor does
                    outcomes.append((future, False, exc))
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
                loop.call_soon_threadsafe(_settle, outcomes)

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the thread after everything queued, from outside the loop, and wait for it."""
        return self._executor.submit(fn).result()

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)


class SqliteWorker:
    def __init__(self, path: Path, schema: str, synchronous: str = "FULL", *, lane: Lane | None = None) -> None:
        self.path = path
        self._schema = schema
        self._synchronous = synchronous
        #: a lane given is shared (its owner shuts it down); else the worker has its own
        self._own_lane = lane is None
        self._lane = Lane(f"sqlite-{path.stem}") if lane is None else lane
        self._conn: sqlite3.Connection | None = None

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={self._synchronous}")
        conn.executescript(self._schema)
        self._conn = conn

    async def start(self) -> None:
        await self.run(lambda _c: None)

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        def call() -> T:
            if self._conn is None:
                self._open()
            assert self._conn is not None
            return fn(self._conn)

        return await self._lane.run(call)

    def close(self) -> None:
        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        self._lane.call(shut)
        if self._own_lane:
            self._lane.shutdown()


def _settle(outcomes: list[_Outcome]) -> None:
    for future, ok, value in outcomes:
        if future.done():
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)
