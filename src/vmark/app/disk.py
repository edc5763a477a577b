"""Documents and their files on disk: another program's change reloads a clean tab or marks a dirty one
divergent, and the person decides which text a divergent one keeps."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from ..core.document import DocState
from ..core.model import DiskStamp, Document
from ..core.transaction import Transaction
from ..storage.files import disk_stamp, read_document
from ..storage.pathscope import PathScope, ScopeError
from .page_push import PageEvents
from .save_queue import SaveQueue
from .state import Session


class DiskWatcher:
    def __init__(
        self, session: Session, pages: PageEvents, saves: SaveQueue, same_document: Callable[[str, str], bool]
    ) -> None:
        self.session = session
        self.pages = pages
        self.saves = saves
        #: two texts that differ only in what VMark adds on save (identity front matter) are one document
        self.same_document = same_document
        #: told when the file of a document with unsaved changes changed on disk (it is divergent now)
        self.diverged_listeners: list[Callable[[Document], None]] = []

    async def resolve_divergence(self, doc: Document, keep: str) -> None:
        if keep == "disk" and doc.path is not None:
            text, stamp, _ = await _reread(doc.path)
            state = DocState(text)
            doc.saved_revision, doc.disk = state.revision, stamp
            doc.divergent = False
            await self.session.apply(Transaction(doc, state, "disk"))
        else:
            doc.divergent = doc.divergence_kept = True
            self.session.changed()

    async def check(self) -> None:
        """A file changed by another program: reload a clean tab, mark a dirty one divergent; a file gone from
        disk is marked missing (its tab keeps the text: saving writes it again), and unmarked when it is back."""
        for doc in list(self.session.docs.values()):
            if doc.path is None or self.saves.busy(doc.path):
                continue
            stamp = disk_stamp(doc.path)
            missing = stamp is None and not os.path.lexists(doc.path)
            if missing != doc.missing:
                doc.missing = missing
                self.session.changed()
            if stamp is None or stamp == doc.disk:
                continue
            try:
                text, stamp, read_only = await _reread(doc.path)
            except ScopeError:
                continue
            if self.saves.busy(doc.path) or doc.key not in self.session.docs:
                continue
            doc.disk, doc.read_only = stamp, read_only
            if text == doc.state.text or self.same_document(text, doc.state.text):
                doc.saved_revision = doc.state.revision if not doc.dirty else doc.saved_revision
                continue
            if doc.dirty:
                doc.divergent, doc.divergence_kept = True, False  # a new outside change asks again
                for listener in self.diverged_listeners:
                    listener(doc)
                await self.pages.notify("divergent", {"filePath": doc.path})
                self.session.changed()
            else:
                state = DocState(text)
                doc.saved_revision = state.revision
                await self.session.apply(Transaction(doc, state, "disk"))


async def _reread(path: str) -> tuple[str, DiskStamp, bool]:
    """An open document's file read again (its own directory is its scope: it is already open)."""
    return await asyncio.to_thread(read_document, path, PathScope.of([os.path.dirname(path)]))
