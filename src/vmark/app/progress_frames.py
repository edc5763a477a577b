"""Progress of a bridge request, sent on the connection that made it, before its answer.

A request frame with ``"progress": true`` asks for it: the work's :func:`vmark.core.progress.report`
calls (on the event loop or in a worker thread) become ``{"type": "progress", "id": <the request's id>,
"payload": {progress, total, message}}`` frames, one growing count over all phases, a few a second,
all sent before the answer is (a report after it would reach nobody). A frame without it costs nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

from ..core.progress import Monotonic, Throttled, reporting
from .connection import Connection


class _Frames:
    def __init__(self, conn: Connection, request_id: Any) -> None:
        self._conn = conn
        self._request_id = request_id
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._sending: list[asyncio.Task[None]] = []

    def report(self, done: int, total: int, message: str) -> None:
        payload = {"progress": done, "total": total, "message": message}
        frame = {"type": "progress", "id": self._request_id, "payload": payload}
        if threading.get_ident() == self._loop_thread:
            self._start(frame)
        else:  # a worker thread: its reports reach the loop before the worker's result does
            self._loop.call_soon_threadsafe(self._start, frame)

    def _start(self, frame: dict[str, Any]) -> None:
        self._sending.append(self._loop.create_task(self._send(frame)))  # started in order, sent in order

    async def _send(self, frame: dict[str, Any]) -> None:
        with contextlib.suppress(ConnectionError):  # the request's connection went away: nobody to tell
            await self._conn.send(frame)

    async def flush(self) -> None:
        await asyncio.gather(*self._sending)


@contextlib.asynccontextmanager
async def progress_of(conn: Connection, frame: dict[str, Any]) -> AsyncIterator[None]:
    if frame.get("progress") is not True:
        yield
        return
    frames = _Frames(conn, frame.get("id"))
    try:
        with reporting(Throttled(Monotonic(frames.report))):
            yield
    finally:
        await frames.flush()
