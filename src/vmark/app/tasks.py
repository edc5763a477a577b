"""Work the app runs without waiting for it (history writes, notifications, store saves)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

log = logging.getLogger(__name__)

#: what a service is given to start work it does not wait for
Spawn = Callable[[Coroutine[Any, Any, Any]], None]


class Background:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, job: Coroutine[Any, Any, Any]) -> None:
        """Run ``job`` without waiting for it. History writes go through one FIFO worker, so a later read
        still sees them; the answer to the agent does not wait for them."""
        task = asyncio.ensure_future(job)
        self._tasks.add(task)
        task.add_done_callback(self._forget)

    async def drain(self) -> None:
        """Wait for every job started so far (the app stops: history writes land before close)."""
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _forget(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background job failed", exc_info=task.exception())
