"""A SQLite connection owned by one worker thread, driven from asyncio.

sqlite3 connections must stay on the thread that made them; every call here runs
on that one thread, in order, so callers never block the event loop on an fsync.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


class SqliteWorker:
    def __init__(self, path: Path, schema: str, synchronous: str = "FULL") -> None:
        self.path = path
        self._schema = schema
        self._synchronous = synchronous
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"sqlite-{path.stem}")
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

        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    def close(self) -> None:
        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        self._executor.submit(shut).result()
        self._executor.shutdown(wait=True)
