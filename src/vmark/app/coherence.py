"""The app's side of the coherence layer: one kernel per tracked workspace, fed by saves and agent
writes, asked by the ``coherence`` tools, the person's panel and the CLI.

A workspace is tracked when it has ``.vmark/ledger``; a document belongs to the nearest tracked folder
above it. Kernel calls do file I/O (fsync on append), so every one runs in a worker thread, never on the
event loop, and the tools bound them by :data:`COHERENCE_TIMEOUT_SECONDS`. A semantic check holds no
lock a save needs (see :mod:`vmark.coherence.kernel`), so a slow checker delays only the ``edges`` call
that runs it.

Tracking never rewrites a file by itself: an identity lands in a document's front matter when VMark
saves it, or when the person chooses "Add identities" (:meth:`CoherenceService.add_identities`), which
saves through the file's save queue and leaves alone every open document with unsaved changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

from ..coherence.checker import checker_from_settings
from ..coherence.identity import content_of
from ..coherence.kernel import CoherenceError, Kernel, MissingIdentity, ReadPin
from ..coherence.layout import VMARK_DIR
from ..core.actor import Actor
from ..core.model import Document
from ..core.transaction import Transaction
from ..protocol.errors import ArgumentError
from ..protocol.limits import COHERENCE_TIMEOUT_SECONDS
from ..protocol.wire_types import IdentitiesAdded
from ..storage.datadir import installation_writer
from ..storage.delegations import Delegations
from ..storage.settings import SETTINGS, Settings
from .connection import Connection
from .faults import Delay
from .page_push import PageEvents
from .save_queue import SaveQueue
from .state import Session
from .tasks import Spawn
from .turns import turn_of

log = logging.getLogger(__name__)
T = TypeVar("T")

#: the folders looked up during the current agent write, and the tracked folder each is in (see
#: :func:`one_lookup_per_write`); None outside one
_looked_up: ContextVar[dict[str, str | None] | None] = ContextVar("vmark_coherence_looked_up", default=None)


@contextlib.contextmanager
def one_lookup_per_write() -> Iterator[None]:
    """Within an agent write, each folder's tracked folder is looked up once. The write asks four times (its
    save's text ahead of the journal, the recording, the save's text, the save's record), each a walk of
    ``isdir`` calls up to ``/``. A folder becomes tracked (``coherence init``, from any process) at any moment
    and the app is not told: one write takes one look, as if the change came before or after it, so its
    prepared save and its save agree too; the next write looks again. Tasks the write starts share it (a
    context variable is copied into them), and forget it with the write."""
    looked_up: dict[str, str | None] = {}
    token = _looked_up.set(looked_up)
    try:
        yield
    finally:
        _looked_up.reset(token)
        looked_up.clear()


class CoherenceTimeout(Exception):
    """A kernel call did not finish in time (it may still be running)."""


class CoherenceService:
    def __init__(
        self,
        session: Session,
        saves: SaveQueue,
        settings: Settings,
        data_dir: Path,
        background: Spawn,
        delay: Delay | None = None,
        *,
        pages: PageEvents,
    ) -> None:
        self.session = session
        self.pages = pages
        self.saves = saves
        self.settings = settings
        self.background = background
        self.delegations = Delegations(data_dir / "delegations.json")
        #: this installation's id in every ledger it appends to (a record's ``writer``)
        self.installation_id = installation_writer(data_dir)
        self._kernels: dict[str, Kernel] = {}
        self._reads: dict[str, dict[str, str]] = {}
        self._turns: dict[str, asyncio.Lock] = {}
        #: tests only: how long every kernel call sleeps first (to reach TIMEOUT)
        self._delay = delay

    # --- kernels ---------------------------------------------------------------------------
    def kernel(self, workspace_root: Any) -> Kernel:
        """The kernel of a workspace named by an agent or the person (absolute directory, else an error)."""
        if not isinstance(workspace_root, str) or not workspace_root:
            raise ArgumentError("workspace_root is required: the absolute path of the workspace")
        if not os.path.isabs(workspace_root):
            raise ArgumentError(f"workspace_root must be an absolute path, got {workspace_root!r}")
        if not os.path.isdir(workspace_root):
            raise ArgumentError(f"workspace_root {workspace_root!r} is not a directory")
        return self._kernel_at(os.path.realpath(workspace_root))

    def _kernel_at(self, root: str) -> Kernel:
        kernel = self._kernels.get(root)
        if kernel is None:
            kernel = self._kernels[root] = Kernel(root, self.installation_id, watch=True)
        kernel.checker = checker_from_settings(self._checker_settings())
        return kernel

    def close(self) -> None:
        for kernel in self._kernels.values():
            kernel.close()

    def turn(self, kernel: Kernel) -> AbstractAsyncContextManager[None]:
        """``async with`` the workspace's write turn (resolutions one at a time, WRITE_BUSY after 3 s)."""
        return turn_of(self._turns.setdefault(str(kernel.root), asyncio.Lock()))

    def tracking(self, path: str) -> Kernel | None:
        """The kernel of the nearest tracked folder holding canonical ``path`` (a document's path is: it was
        resolved when the document was opened or saved as; no ``realpath`` walk on every write), if any."""
        return self._tracking_in(os.path.dirname(path))

    def _tracking_in(self, folder: str) -> Kernel | None:
        """The kernel of the nearest tracked folder at or above canonical ``folder``."""
        looked_up = _looked_up.get()
        if looked_up is None:
            root = _tracked_root(folder)
        elif folder in looked_up:
            root = looked_up[folder]
        else:
            root = looked_up[folder] = _tracked_root(folder)
        return None if root is None else self._kernel_at(root)

    def _checker_settings(self) -> dict[str, Any]:
        return {key: self.settings.get(key) for key in SETTINGS if key.startswith("coherence.")}

    async def run(self, call: Callable[[], T]) -> T:
        """A kernel call in a worker thread, bounded; ``CoherenceTimeout`` if it overran."""

        def timed() -> T:
            if self._delay is not None and (seconds := self._delay.take()):
                time.sleep(seconds)
            return call()

        try:
            return await asyncio.wait_for(asyncio.to_thread(timed), COHERENCE_TIMEOUT_SECONDS)
        except TimeoutError as exc:
            raise CoherenceTimeout from exc

    # --- recording ----------------------------------------------------------------------------
    def note_read(self, conn: Connection, doc: Document) -> None:
        """An agent read ``doc``: it becomes an input of that connection's next write."""
        if doc.path is not None and self.tracking(doc.path) is not None:
            self._reads.setdefault(conn.id, {})[doc.path] = doc.state.text

    def forget(self, conn: Connection) -> None:
        self._reads.pop(conn.id, None)

    async def text_to_save(self, path: str, text: str) -> str:
        """``text`` as VMark saves it at canonical ``path`` (the save just resolved it: no second walk over its
        components, a dozen system calls a write): with its object's identity when the file is tracked."""
        kernel = self._tracking_in(os.path.dirname(path))
        if kernel is None:
            return text
        try:
            return await asyncio.to_thread(kernel.text_to_save, path, text)
        except (OSError, CoherenceError, ValueError):
            log.exception("coherence: no identity for %s", path)
            return text  # the save goes on without it: the identity lands with a later save

    async def add_identities(self, kernel: Kernel) -> IdentitiesAdded:
        """The person's "Add identities": every tracked Markdown file without one gets its identity, saved
        through its file's save queue like any save; an open document with unsaved changes is skipped
        (it gets its identity when the person saves it), so no tab sees "changed on disk"."""
        missing = await self.run(kernel.missing_identities)
        added: list[str] = []
        skipped: list[str] = []
        for item in missing:
            if self._unsaved(item.path):
                skipped.append(item.rel)
                continue

            async def put(item: MissingIdentity = item) -> bool:
                if self._unsaved(item.path):
                    return False
                stamp = await asyncio.to_thread(kernel.add_identity, item)
                if stamp is None:
                    return False
                doc = self.session.doc_by_path(item.path)
                if doc is not None:
                    doc.disk = stamp  # only the front matter moved: not a change on disk for the tab
                return True

            landed = await self.saves.run(item.path, self.saves.ticket(), put)
            (added if landed else skipped).append(item.rel)
        if added:
            self.changed()
        return {"added": added, "skipped": skipped}

    def _unsaved(self, path: str) -> bool:
        doc = self.session.doc_by_path(path)
        return doc is not None and (doc.dirty or doc.divergent)

    async def saved(self, path: str, text: str, by: Actor) -> None:
        """``text`` landed at canonical ``path`` (as :meth:`text_to_save`)."""
        kernel = self._tracking_in(os.path.dirname(path))
        if kernel is not None:
            await self._quietly(lambda: kernel.record_save(path, text, by))

    async def follow(self, tx: Transaction) -> None:
        """An agent's write changed ``tx.doc``: a transformation with the connection's reads as inputs
        (``Session.apply`` calls this for every change; the person's changes are recorded when saved)."""
        if tx.origin != "agent" or tx.tool is None:
            return
        doc, state, tool = tx.doc, tx.state, tx.tool
        reads = self._reads.pop(tx.actor.connection or "", {})
        if doc.path is None:
            return
        kernel = self.tracking(doc.path)
        if kernel is None:
            return
        path = doc.path
        pins = [ReadPin(p, t) for p, t in reads.items() if p != path]
        await self._quietly(lambda: kernel.record_write(path, state.text, tx.actor, tool, pins))

    async def _quietly(self, call: Callable[[], Any]) -> None:
        """Recording must never fail the save or write it follows: a failure is logged."""
        try:
            await asyncio.to_thread(call)
        except (OSError, CoherenceError, ValueError):
            log.exception("coherence: recording failed")
        else:
            self.changed()

    def changed(self) -> None:
        """Tell the pages something in the coherence layer moved."""
        if self.session.pages:
            self.background(self.pages.notify("coherence", {}))

    @staticmethod
    def same_document(a: str, b: str) -> bool:
        """Two texts that differ only by identity front matter are the same document."""
        return content_of(a) == content_of(b)


def _tracked_root(folder: str) -> str | None:
    """The nearest tracked folder at or above canonical ``folder`` (it has ``.vmark/ledger``)."""
    while True:
        if os.path.isdir(os.path.join(folder, VMARK_DIR, "ledger")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
