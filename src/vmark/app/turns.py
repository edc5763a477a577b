"""The write turn: one change to a document (or a workspace's ledger) at a time, ``WRITE_BUSY`` after 3 s.

A turn also knows which agent write is being recorded right now, so that the person's edit, composition,
selection move or tab close aborts it (``ABORTED``) and a write from another tab meanwhile is refused
(``JOURNAL_BUSY``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from ..core.model import Document, Tab
from ..core.transaction import Transaction
from ..protocol.errors import DomainError
from ..protocol.limits import COMPOSITION_GRACE_SECONDS, WRITE_QUEUE_WAIT_SECONDS


async def take_turn(lock: asyncio.Lock) -> None:
    """Wait for ``lock`` as a write waits for its turn; ``WRITE_BUSY`` when it does not come in time."""
    try:
        await asyncio.wait_for(lock.acquire(), WRITE_QUEUE_WAIT_SECONDS)
    except TimeoutError as exc:
        raise DomainError("WRITE_BUSY") from exc


@asynccontextmanager
async def turn_of(lock: asyncio.Lock) -> AsyncIterator[None]:
    """``async with turn_of(lock):`` the body runs in the turn and releases it after."""
    await take_turn(lock)
    try:
        yield
    finally:
        lock.release()


@dataclass
class Inflight:
    tab: Tab
    window: str
    implicit_tab: bool
    recording: bool = False
    aborted: str | None = None


class WriteTurns:
    """Every document's turn and its agent write in flight."""

    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}
        self._inflight: dict[int, Inflight] = {}

    @asynccontextmanager
    async def turn(self, doc: Document, tab: Tab) -> AsyncIterator[None]:
        """The document's write turn (held by one write, comment reply or mark at a time)."""
        lock = self._locks.setdefault(id(doc), asyncio.Lock())
        flight = self._inflight.get(id(doc))
        if flight is not None and flight.recording and flight.tab is not tab:
            raise DomainError("JOURNAL_BUSY")
        async with turn_of(lock):
            try:
                yield
            finally:
                self._inflight.pop(id(doc), None)

    def recording(self, doc: Document, flight: Inflight) -> None:
        """``flight`` is being journaled now: the person's actions abort it until :meth:`recorded`."""
        flight.recording = True
        self._inflight[id(doc)] = flight

    # --- the person's side ---------------------------------------------------------
    def observe(self, tx: Transaction) -> None:
        """Every change of a document's text by the person (an edit, a revert) aborts the agent write to it
        that is being recorded right now (``Session.apply`` calls this)."""
        if tx.origin in ("person", "revert"):
            self.person_event(tx.doc, "edited")

    def person_event(self, doc: Document, reason: str, window: str | None = None, tab_switch: bool = False) -> None:
        """Abort an agent write to ``doc`` that is being recorded right now."""
        flight = self._inflight.get(id(doc))
        if flight is None or not flight.recording or flight.aborted:
            return
        if tab_switch and not (flight.implicit_tab and flight.window == window):
            return
        flight.aborted = reason

    def abort_window_switch(self, window: str) -> None:
        for flight in self._inflight.values():
            if flight.recording and flight.implicit_tab and flight.window == window and not flight.aborted:
                flight.aborted = "selection"

    @staticmethod
    def is_composing(doc: Document) -> bool:
        if doc.composing:
            return True
        in_grace = time.monotonic() - doc.composition_ended_at < COMPOSITION_GRACE_SECONDS
        return doc.composing_mode == "source" and in_grace
