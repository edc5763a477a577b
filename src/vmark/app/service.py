"""The app service: state, storage and handlers wired together, and request dispatch."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import settings_keys  # noqa: F401  (registers every package's settings)
from ..core.document import DocState
from ..core.errors import ArgumentError, DomainError, VMarkError
from ..core.limits import DISK_POLL_SECONDS, JOURNAL_RETRY_SECONDS, UI_ROUND_TRIP_SECONDS
from ..core.model import DiskStamp, Document, Tab, Window
from ..core.tools import check_request
from ..core.transaction import Transaction
from ..storage.files import disk_stamp, read_document
from ..storage.history import History
from ..storage.journal import Journal
from ..storage.pathscope import PathScope, ScopeError
from ..storage.principals import Principals
from ..storage.reviews import ReviewStore
from ..storage.settings import Settings
from .approvals import Approval, Approvals
from .browser import BrowserService
from .browser_runs import Runs
from .coherence import CoherenceService
from .comments import CommentService
from .connection import Connection
from .faults import EditorFaults
from .handlers import (
    browser,
    browser_sessions,
    browser_workflows,
    coherence,
    comments,
    document,
    person,
    selection,
    session,
    workflow,
    workspace,
)
from .review import Review
from .saver import Saver
from .saves import SaveQueue
from .state import Session
from .writes import Writer

log = logging.getLogger(__name__)

#: tool -> action -> handler (each ``async (ctx, args) -> result``)
TOOL_HANDLERS: dict[str, Mapping[str, Callable[..., Awaitable[Any]]]] = {
    "session": session.ACTIONS,
    "workspace": workspace.ACTIONS,
    "document": document.ACTIONS,
    "workflow": workflow.ACTIONS,
    "selection": selection.ACTIONS,
    "comments": comments.ACTIONS,
    "browser": {**browser.ACTIONS, **browser_workflows.ACTIONS, **browser_sessions.ACTIONS},
    "browser_read": {**browser.READ_ACTIONS, **browser_workflows.READ_ACTIONS},
    "coherence": coherence.ACTIONS,
    "coherence_resolve": coherence.RESOLVE_ACTIONS,
}


@dataclass
class RequestContext:
    app: App
    connection: Connection


class App:
    def __init__(
        self,
        data_dir: Path,
        *,
        test_hooks: bool = False,
        journal_fault: str | None = None,
        chromium_args: Sequence[str] = (),
        browser_loopback_only: bool = False,
    ) -> None:
        self.data_dir = data_dir
        self.test_hooks = test_hooks
        #: the machine's extra Chromium launch flags (``VMARK_CHROMIUM_ARGS``), added to the product's
        self.chromium_args = tuple(chromium_args)
        #: tests and benchmarks: the embedded browser reaches nothing but this machine
        self.browser_loopback_only = browser_loopback_only
        self.session = Session()
        self.journal = Journal(data_dir / "journal.db", journal_fault)
        self.history = History(data_dir / "history.db")
        self.settings = Settings(data_dir / "settings.json")
        self.principals = Principals(data_dir / "principals.json")
        self.approvals = Approvals(self._approval_changed)
        self.saves = SaveQueue()
        self.saver = Saver(self)
        self.writer = Writer(self)
        self.comments = CommentService(self)
        self.coherence = CoherenceService(self)
        self.browser = BrowserService(self)
        self.browser_runs = Runs(self)
        self.editor_faults = EditorFaults()
        self.review = Review(self.history, ReviewStore(data_dir / "reviews.db"), self.session, self.background)
        self.session.follow_review(self.review)
        # What follows every change of a document's text (Session.apply), in this order: the abort of an agent
        # write being recorded, the comment anchors and the pending agent changes at once; then the coherence
        # ledger and the history.
        self.session.observers += [self.writer.observe, self.comments.observe, self.review.observe]
        self.session.followers += [self.coherence.follow, self.review.follow]
        self.folder_grants: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._background: set[asyncio.Task[Any]] = set()

    # --- lifecycle -----------------------------------------------------------------
    async def start(self, folder: str | None = None) -> None:
        await self.journal.start()
        await self.history.start()
        await self.comments.start()
        await self.review.start()
        if folder is not None:
            self.session.open_workspace(self.session.windows["main"], os.path.realpath(folder))
        self._tasks = [
            asyncio.create_task(self._every(JOURNAL_RETRY_SECONDS, self.journal.retry_pending)),
            asyncio.create_task(self._every(DISK_POLL_SECONDS, self._check_disk)),
        ]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await asyncio.gather(*self._background, return_exceptions=True)  # history writes land before close
        await self.comments.close()
        await self.review.close()
        self.coherence.close()
        await self.browser_runs.aclose()
        await self.browser.stop()
        self.journal.close()
        self.history.close()

    async def _every(self, seconds: float, job: Any) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await job()
            except Exception:
                log.exception("background job %s failed", getattr(job, "__name__", job))

    # --- dispatch ------------------------------------------------------------------
    async def dispatch(self, conn: Connection, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Answer one request: ``{success, data}`` or ``{success: false, error}``."""
        ctx = RequestContext(self, conn)
        try:
            handler, args = self._route(conn, kind, payload)
            data = await handler(ctx, args)
            return {"success": True, "data": data}
        except VMarkError as exc:
            return {"success": False, "error": exc.wire()}
        except Exception as exc:  # one handler's bug must not take the app down
            log.exception("handler %s failed", kind)
            return {
                "success": False,
                "error": DomainError("INTERNAL", f"Unexpected handler error: {exc}").wire(),
            }

    def _route(self, conn: Connection, kind: str, payload: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        if not isinstance(payload, dict):
            raise ArgumentError("payload must be an object")
        if kind.startswith("vmark."):
            tool, _, action = kind[len("vmark.") :].partition(".")
            handlers = TOOL_HANDLERS.get(tool)
            if handlers is None:
                raise ArgumentError(f"unknown tool {tool!r}")
            action, args = check_request(tool, {**payload, "action": action})
            return handlers[action], args
        handler = person.ACTIONS.get(kind)
        if handler is None:
            raise ArgumentError(f"unknown request type {kind!r}")
        if conn.role != "person" and kind != "test.fault":
            raise ArgumentError(f"{kind!r} is a person's action; agents cannot send it")
        return handler, payload

    def background(self, job: Coroutine[Any, Any, Any]) -> None:
        """Run ``job`` without waiting for it. History writes go through one FIFO worker, so a later read
        still sees them; the answer to the agent does not wait for them."""
        task = asyncio.ensure_future(job)
        self._background.add(task)
        task.add_done_callback(self._forget_background)

    def _forget_background(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background job failed", exc_info=task.exception())

    # --- shared operations ------------------------------------------------------------
    def page_window(self, conn: Connection) -> Window:
        if conn.window is None:
            raise ArgumentError("attach to a window first (ui.attach)")
        return self.session.windows[conn.window]

    def activate(self, window: Window, tab: Tab) -> bool:
        """Make ``tab`` the active tab; return whether the workspace instance switched."""
        switched = bool(
            window.workspace_bar and tab.workspace_instance and window.active_workspace != tab.workspace_instance
        )
        if switched:
            window.active_workspace = tab.workspace_instance
        window.active_tab = tab.id
        self.session.touch(window)
        self.session.changed()
        return switched

    def close_tab(self, window: Window, tab: Tab) -> None:
        self.writer.person_event(tab.doc, "closed")
        self.session.remove_tab(window, tab)

    async def flush_pages(self, window: Window) -> None:
        """Ask the window's pages to pass on keystrokes they still hold."""
        pages = self.session.pages.get(window.label, [])
        await asyncio.gather(*(p.ask("flush", {}, UI_ROUND_TRIP_SECONDS) for p in pages))

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

    async def _check_disk(self) -> None:
        """A file changed by another program: reload a clean tab, mark a dirty one divergent."""
        for doc in list(self.session.docs.values()):
            if doc.path is None or self.saves.busy(doc.path):
                continue
            stamp = disk_stamp(doc.path)
            if stamp is None or stamp == doc.disk:
                continue
            try:
                text, stamp, read_only = await _reread(doc.path)
            except ScopeError:
                continue
            if self.saves.busy(doc.path) or doc.key not in self.session.docs:
                continue
            doc.disk, doc.read_only = stamp, read_only
            if text == doc.state.text or self.coherence.same_document(text, doc.state.text):
                doc.saved_revision = doc.state.revision if not doc.dirty else doc.saved_revision
                continue
            if doc.dirty:
                doc.divergent, doc.divergence_kept = True, False  # a new outside change asks again
                await self.session.notify("divergent", {"filePath": doc.path})
                self.session.changed()
            else:
                state = DocState(text)
                doc.saved_revision = state.revision
                await self.session.apply(Transaction(doc, state, "disk"))

    def _approval_changed(self, approval: Approval) -> None:
        if approval.state == "pending" and self.session.pages:
            event = {"open_workspace": "prompt", "folder_access": "folder_picker"}.get(approval.kind, "browser_prompt")
            task = asyncio.ensure_future(self.session.notify(event, approval.describe(), approval.window))
            self._tasks.append(task)
            task.add_done_callback(self._tasks.remove)


async def _reread(path: str) -> tuple[str, DiskStamp, bool]:
    """An open document's file read again (its own directory is its scope: it is already open)."""
    return await asyncio.to_thread(read_document, path, PathScope.of([os.path.dirname(path)]))
