"""Saving the pending sets: each with the content hash of the text its ranges apply to (a document opened
again, after a restart too, gets its changes back only when its text is that text). A change of the set is
saved at once; moves of ranges by typing wait a little to be saved together."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

from ...storage.reviews import ReviewStore, StoredReview
from .pending import DocReview

#: moves of pending ranges by typing wait this long to be saved together
REVIEW_SAVE_DELAY = 0.5


class ReviewSaver:
    def __init__(
        self,
        store: ReviewStore,
        docs: dict[str, DocReview],
        background: Callable[[Coroutine[Any, Any, Any]], None],
        settle: Callable[[str], None],
    ) -> None:
        self.store = store
        self._docs = docs
        self._background = background
        #: runs a document's waiting word diffs (``Review.settle``): what is saved includes them
        self._settle = settle
        self._later: set[str] = set()
        self._saver: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Open the store and take its pending sets (their texts known by hash only, until opened)."""
        await self.store.start()
        stored: dict[str, StoredReview] = await self.store.load()
        for key, review in stored.items():
            self._docs[key] = DocReview(None, review.hash, review.changes)

    async def close(self) -> None:
        if self._saver is not None:
            self._saver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._saver
        for key in list(self._later):
            await self.save(key)
        self.store.close()

    def rekey(self, old: str, new: str) -> None:
        self._background(self.store.rekey(old, new))

    def now(self, key: str) -> None:
        self._later.discard(key)
        self._background(self.save(key))

    def soon(self, key: str) -> None:
        self._later.add(key)
        if self._saver is None or self._saver.done():
            self._saver = asyncio.ensure_future(self._save_after_delay())

    async def _save_after_delay(self) -> None:
        await asyncio.sleep(REVIEW_SAVE_DELAY)
        for key in list(self._later):
            await self.save(key)

    async def save(self, key: str) -> None:
        self._later.discard(key)
        self._settle(key)
        review = self._docs.get(key)
        if review is None:
            return
        text_hash = review.basis.content_hash if review.basis is not None else review.hash
        if text_hash is None:
            return
        judged, review.judged = review.judged, []
        await self.store.save(key, text_hash, list(review.changes), judged)
