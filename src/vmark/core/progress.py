"""Progress of long work, reported from deep inside it to whoever asked (an MCP client, a terminal).

Work that can take seconds calls :func:`report` as it goes (``done`` of ``total`` in a phase named by
``message``); it costs nothing when nobody listens. Whoever wants it wraps the work in
:func:`reporting` with a :data:`Report`. The listener is a context variable, so it follows the request
into ``asyncio.to_thread`` workers and never reaches a concurrent request's work. :class:`Monotonic`
joins the phases into one count that only grows (what MCP requires of progress), :class:`Throttled`
keeps a flood of steps to a few reports a second (always the last of a phase).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar

#: ``(done, total, message)``: called on whatever thread the work runs on
Report = Callable[[int, int, str], None]

_listener: ContextVar[Report | None] = ContextVar("vmark_progress", default=None)

#: the least time between two reports of one phase (its last step is always reported)
REPORT_INTERVAL_SECONDS = 0.1


def report(done: int, total: int, message: str) -> None:
    listener = _listener.get()
    if listener is not None:
        listener(done, total, message)


def listening() -> bool:
    return _listener.get() is not None


@contextlib.contextmanager
def reporting(listener: Report) -> Iterator[None]:
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


class Monotonic:
    """Phases one after the other as one growing count: a new phase starts where the last one's total ended."""

    def __init__(self, listener: Report) -> None:
        self._listener = listener
        self._phase: str | None = None
        self._base = 0
        self._total = 0
        self._lock = threading.Lock()

    def __call__(self, done: int, total: int, message: str) -> None:
        with self._lock:
            if message != self._phase:
                self._base += self._total if self._phase is not None else 0
                self._phase = message
            self._total = total
            base = self._base
        self._listener(base + done, base + total, message)


class Throttled:
    def __init__(self, listener: Report, interval: float = REPORT_INTERVAL_SECONDS) -> None:
        self._listener = listener
        self._interval = interval
        self._last = float("-inf")
        self._lock = threading.Lock()

    def __call__(self, done: int, total: int, message: str) -> None:
        now = time.monotonic()
        with self._lock:
            if done < total and now - self._last < self._interval:
                return
            self._last = now
        self._listener(done, total, message)
