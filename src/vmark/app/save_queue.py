"""The per-file save queue: saves to one canonical file run in order, one at a time.

Every save takes a ticket when its request arrives. When its turn comes, a save whose
ticket is older than the last save that reached the file wrote nothing it could keep:
it is ``STALE``. The scope is checked again at that moment, not only on arrival.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ..protocol.errors import DomainError
from .faults import Delay

T = TypeVar("T")


class SaveQueue:
    def __init__(self, delay: Delay | None = None) -> None:
        self._tickets = itertools.count(1)
        self._locks: dict[str, asyncio.Lock] = {}
        self._landed: dict[str, int] = {}
        #: tests only: how long a save waits before it queues (to overtake it with a later one)
        self._delay = delay

    def busy(self, real_path: str) -> bool:
        lock = self._locks.get(real_path)
        return lock is not None and lock.locked()

    def ticket(self) -> int:
        return next(self._tickets)

    async def run(self, real_path: str, ticket: int, save: Callable[[], Awaitable[T]]) -> T:
        if self._delay is not None and (seconds := self._delay.take()):
            await asyncio.sleep(seconds)
        lock = self._locks.setdefault(real_path, asyncio.Lock())
        async with lock:
            if self._landed.get(real_path, 0) > ticket:
                raise DomainError(
                    "STALE",
                    "A later save already reached this file; this one wrote nothing. Read before writing again",
                    filePath=real_path,
                )
            result = await save()
            self._landed[real_path] = ticket
            return result
