"""Telling the pages: every page of a window showing a document gets a ``review`` event after each change of
its pending set, after the document's own ``doc`` event for that revision (the page applies the ranges only
to the text they belong to), with a notice naming the agent when its edit made new changes."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from ...core.model import Document
from ...protocol.wire_types import ReviewEvent, ReviewList, ReviewNotice

if TYPE_CHECKING:
    from ..state import Session


class ReviewPusher:
    def __init__(self, session: Session, listing: Callable[[Document], ReviewList]) -> None:
        self.session = session
        self._listing = listing
        #: documents whose pages get a ``review`` event after their next ``doc`` event
        self.due: set[str] = set()
        #: the notice to add to a document's next ``review`` event
        self._notices: dict[str, ReviewNotice] = {}

    def notice(self, key: str, principal: str, tool: str, added: int) -> None:
        """An agent's edit made ``added`` changes: the next event says so (counting those not yet told)."""
        told = self._notices.get(key)
        count = added + (told["count"] if told else 0)
        self._notices[key] = {"principal": principal, "tool": tool, "count": count}

    async def after_doc_push(self, doc: Document) -> None:
        """The pages got the document's new revision (``Session``): now its review, when it changed."""
        if doc.key in self.due:
            await self.push(doc)

    async def push(self, doc: Document) -> None:
        """A ``review`` event to every page of a window showing ``doc``."""
        self.due.discard(doc.key)
        notice = self._notices.pop(doc.key, None)
        listing = self._listing(doc)
        for label, conns in list(self.session.pages.items()):
            window = self.session.windows.get(label)
            tab_ids = [t.id for t in window.tabs if t.doc is doc] if window is not None else []
            if not tab_ids:
                continue
            payload: ReviewEvent = {
                "filePath": doc.path,
                "docKey": doc.key,
                "revision": listing["revision"],
                "changes": [*listing["changes"]],
                "tabIds": tab_ids,
            }
            if notice is not None:
                payload["notice"] = notice
            event = {"type": "event", "event": "review", "payload": payload}
            for conn in list(conns):
                with contextlib.suppress(ConnectionError):
                    await conn.send(event)
