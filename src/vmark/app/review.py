"""The review of agent changes, as the history keeps it: every agent write is an AI revision waiting for the
person (its count stops writes at ``review_backlog_limit``), and every revert is a ``revert`` snapshot.

:meth:`Review.follow` follows every transaction (``Session.apply``), so no write or revert has to remember it.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from ..core.model import Document
from ..core.transaction import Transaction
from ..storage.history import History


class Review:
    def __init__(self, history: History, background: Callable[[Coroutine[Any, Any, Any]], None]) -> None:
        self.history = history
        self._background = background
        #: per document key: how many of its AI revisions are unreviewed (read from the history once)
        self._unreviewed: dict[str, int] = {}

    async def follow(self, tx: Transaction) -> None:
        doc, state = tx.doc, tx.state
        if tx.origin == "agent" and tx.tool is not None:
            # The answer to the agent does not wait for it: history writes keep their order (one FIFO worker).
            self._background(self.history.add_ai_revision(doc.key, state.revision))
            self._unreviewed[doc.key] = self._unreviewed.get(doc.key, 0) + 1
        elif tx.origin == "revert":
            await self.history.snapshot(doc.key, doc.path, "revert", state.revision, state.text)

    async def unreviewed(self, doc: Document) -> int:
        if doc.key not in self._unreviewed:
            self._unreviewed[doc.key] = await self.history.unreviewed(doc.key)
        return self._unreviewed[doc.key]

    async def mark_reviewed(self, doc: Document, revision: str | None) -> int:
        changed = await self.history.mark_reviewed(doc.key, revision)
        self._unreviewed.pop(doc.key, None)
        return changed
