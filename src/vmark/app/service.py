"""The app: every service made and wired together (the composition root), and request dispatch."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import settings_keys  # noqa: F401  (registers every package's settings)
from ..browser.asks import Ask, Asker, Authorize
from ..browser.recording import Recordings
from ..browser.runs import Runs
from ..browser.saved_sessions import SavedSessions
from ..browser.tabs import BrowserTab
from ..browser.views import BrowserViews, PanelHooks
from ..core.model import Window, WorkspaceInstance
from ..export.run import Exporter
from ..protocol import wire_types, wirecheck
from ..protocol.errors import ArgumentError, DomainError, VMarkError
from ..protocol.limits import DISK_POLL_SECONDS, JOURNAL_RETRY_SECONDS, TREE_POLL_SECONDS
from ..protocol.requests import payload_keys
from ..protocol.tools import check_request
from ..storage.atomic import write_text_atomic
from ..storage.comments import CommentStore
from ..storage.history import History
from ..storage.journal import Journal
from ..storage.modes import ModeMemory
from ..storage.principals import Principals
from ..storage.recents import Recents
from ..storage.reviews import ReviewStore
from ..storage.settings import Settings
from ..storage.sqlite_worker import Lane
from .agent_feed import AgentFeed
from .approvals import Approval, Approvals
from .browser import BrowserPrompts, BrowserService
from .changes_log import ChangesLog
from .coherence import CoherenceService
from .comments import CommentService
from .connection import Connection
from .context import RequestContext, Services
from .disk import DiskWatcher
from .faults import TestHooks
from .handlers import (
    agent,
    browser,
    browser_runs,
    browser_sessions,
    coherence,
    comments,
    document,
    ghactions,
    person,
    selection,
    session,
    testing,
    workspace,
)
from .handlers.registry import check_person_request
from .journaling import Recorder
from .modes import EditorModes
from .page_push import PageEvents, PagePush
from .prompts import PromptService
from .resources import Resources
from .review import Review
from .save_queue import SaveQueue
from .state import Session
from .tab_save import Saver
from .tasks import Background
from .tree_watch import TreeWatcher
from .turns import WriteTurns
from .windows import Windows
from .writes import Writer

log = logging.getLogger(__name__)

#: tool -> action -> handler (each ``async (ctx, args) -> result``)
TOOL_HANDLERS: dict[str, Mapping[str, Callable[..., Awaitable[Any]]]] = {
    "session": session.ACTIONS,
    "workspace": workspace.ACTIONS,
    "document": document.ACTIONS,
    "workflow": ghactions.ACTIONS,
    "selection": selection.ACTIONS,
    "comments": comments.ACTIONS,
    "browser": {**browser.ACTIONS, **browser_runs.ACTIONS, **browser_sessions.ACTIONS},
    "browser_read": {**browser.READ_ACTIONS, **browser_runs.READ_ACTIONS},
    "coherence": coherence.ACTIONS,
    "coherence_resolve": coherence.RESOLVE_ACTIONS,
}


class App:
    """The composition root: it makes every service with the collaborators it needs, starts and stops them,
    and dispatches each request to its handler with a :class:`RequestContext`."""

    def __init__(
        self,
        data_dir: Path,
        *,
        hooks: TestHooks | None = None,
        chromium_args: Sequence[str] = (),
        browser_loopback_only: bool = False,
    ) -> None:
        self.data_dir = data_dir
        #: tests only: the faults and delays they inject (None in a person's app)
        self.hooks = hooks
        self.tasks = Background()
        spawn = self.tasks.spawn
        self.session = session = Session()
        #: what the services that tell the person's pages something are given (not the session)
        self.page_events = pages = PageEvents(session.pages)
        self.journal = Journal(data_dir / "journal.db", None if hooks is None else hooks.journal)
        # The history and the review store are written after every agent write, off its answer's path: one
        # thread for both, so a write's entries and its review's save go there in one wake-up.
        self._background_lane = Lane("sqlite-background")
        self.history = History(data_dir / "history.db", lane=self._background_lane)
        self.settings = settings = Settings(data_dir / "settings.json")
        self.principals = Principals(data_dir / "principals.json")
        self.approvals = Approvals(self._approval_changed)
        self.saves = SaveQueue(None if hooks is None else hooks.save_delay)
        self.recorder = Recorder(self.journal)
        self.turns = WriteTurns()
        self.coherence = CoherenceService(
            session,
            self.saves,
            settings,
            data_dir,
            spawn,
            None if hooks is None else hooks.coherence_delay,
            pages=pages,
        )
        self.saver = Saver(
            session, self.saves, self.coherence, self.recorder, self.history, settings, spawn, pages=pages
        )
        self.comments = CommentService(
            session, CommentStore(data_dir / "comments.db"), self.turns, self.recorder, self.journal, spawn, pages=pages
        )
        self.review = Review(
            self.history, ReviewStore(data_dir / "reviews.db", lane=self._background_lane), session, spawn
        )
        # The pages follow the session (each change, pushed once per loop turn); a document a tab opens is
        # told to them first, then to the review (it takes back the changes still pending in it).
        self.page_push = PagePush(session, pages, self.review)
        self.page_push.follow()
        session.open_listeners.append(self.review.opened)
        session.rekey_listeners.append(self.review.rekey)
        self.writer = Writer(
            session,
            self.turns,
            self.recorder,
            self.comments,
            self.review,
            self.saver,
            settings,
            None if hooks is None else hooks.editor,
        )
        self.windows = Windows(session, self.turns)
        self.modes = EditorModes(settings, ModeMemory(data_dir / "modes.json"))
        session.initial_mode = self.modes.initial
        session.rekey_listeners.append(self.modes.moved)
        self.disk = DiskWatcher(session, pages, self.saves, self.coherence.same_document)
        self.tree_watch = TreeWatcher(session, pages)
        self.browser = browser = BrowserService(
            session,
            settings,
            self.approvals,
            data_dir / "browser",
            # tests and benchmarks: the embedded browser reaches nothing but this machine
            loopback_only=browser_loopback_only,
            # the machine's extra Chromium launch flags (``VMARK_CHROMIUM_ARGS``), added to the product's
            chromium_args=chromium_args,
        )
        # The browser's services (vmark.browser), each given the few callbacks it needs: an agent's ask goes
        # through the person's grants and prompts here; the person's views reach the pages through the session.
        authorize = _by_name(browser)
        self.browser_runs = runs = Runs(
            browser.tabs, authorize=authorize, navigate=browser.navigate, prompts=BrowserPrompts(self.approvals)
        )
        browser.closed_listeners.append(runs.tab_closed)
        browser.changed_listeners.append(self.page_push.browser_changed)
        self.browser_recordings = Recordings(authorize)
        self.browser_sessions = SavedSessions(data_dir, write_text_atomic, authorize)
        panel = PanelHooks(
            require_enabled=browser.require_enabled,
            open_tab=browser.open_human_tab,
            close_tab=lambda tab_id: browser.close(tab_id, ai_only=False),
            opener=browser.openers.get,
            attached=lambda viewer: any(conn is viewer for conn in session.person_connections()),
            notify=pages.notify,
            spawn=spawn,
        )
        self.browser_views = BrowserViews(browser.tabs, runs, panel)
        # What follows every change of a document's text (Session.apply), in this order: the abort of an agent
        # write being recorded, the comment anchors and the pending agent changes at once; then the coherence
        # ledger and the history.
        session.observers += [self.turns.observe, self.comments.observe, self.review.observe]
        session.followers += [self.coherence.follow, self.review.follow]
        # What agents hear (session.changes): the log follows the same paths, and adds no calls of its own.
        self.changes = changes = ChangesLog(session)
        session.observers.append(changes.observe)
        session.tab_listeners.append(changes.session_changed)
        session.selection_listeners.append(changes.selection)
        session.rekey_listeners.append(changes.rekey)
        self.saver.listeners.append(changes.saved)
        self.review.judged_listeners.append(changes.judged)
        self.comments.person_listeners.append(changes.comment)
        self.disk.diverged_listeners.append(changes.diverged)
        # What agents' MCP clients are notified of: documents as resources, the person's prompts.
        self.resources = Resources(session)
        self.prompts = PromptService(session, pages, data_dir)
        self.feed = feed = AgentFeed(session)
        session.observers.append(feed.observe)
        session.tab_listeners.append(feed.session_changed)
        self.prompts.listeners.append(feed.prompts_changed)
        self.folder_grants: set[str] = set()
        self.recents = recents = Recents(data_dir / "recents.json")
        recents.on_change = lambda: spawn(asyncio.to_thread(recents.save))
        session.workspace_listeners.append(self._workspace_opened)
        self.services = Services(
            data_dir=data_dir,
            session=session,
            journal=self.journal,
            history=self.history,
            settings=settings,
            principals=self.principals,
            approvals=self.approvals,
            saves=self.saves,
            recorder=self.recorder,
            turns=self.turns,
            saver=self.saver,
            writer=self.writer,
            comments=self.comments,
            coherence=self.coherence,
            review=self.review,
            changes=changes,
            resources=self.resources,
            prompts=self.prompts,
            tasks=self.tasks,
            windows=self.windows,
            page_push=self.page_push,
            modes=self.modes,
            disk=self.disk,
            browser=self.browser,
            browser_runs=self.browser_runs,
            browser_recordings=self.browser_recordings,
            browser_sessions=self.browser_sessions,
            browser_views=self.browser_views,
            exporter=Exporter(chromium_args),
            folder_grants=self.folder_grants,
            recents=recents,
            hooks=hooks,
        )
        self._tasks: list[asyncio.Task[None]] = []

    # --- lifecycle -----------------------------------------------------------------
    async def start(self, folder: str | None = None, *, reopen_last: bool = False) -> list[str]:
        """Start the services; the main window opens ``folder``, else (``reopen_last``) the folders it held when
        it last opened one, those still there. Answers the folders the main window opened."""
        await self.journal.start()
        await self.history.start()
        await self.comments.start()
        await self.review.start()
        await self.prompts.start()
        main = self.session.windows["main"]
        if folder is not None:
            self.session.open_workspace(main, os.path.realpath(folder))
        elif reopen_last:
            self._reopen_last(main)
        self._tasks = [
            asyncio.create_task(self._every(JOURNAL_RETRY_SECONDS, self.journal.retry_pending)),
            asyncio.create_task(self._every(DISK_POLL_SECONDS, self._check_disk)),
            asyncio.create_task(self._every(DISK_POLL_SECONDS, self.prompts.check)),
            asyncio.create_task(self._every(TREE_POLL_SECONDS, self.tree_watch.check)),
        ]
        return [w.root for w in main.workspaces]

    def _reopen_last(self, main: Window) -> None:
        last = self.recents.last_workspace()
        if last is None:
            return
        # A folder now reached through a link that was swapped in since is not the folder that was opened.
        roots = [r for r in last.roots if os.path.isdir(r) and os.path.realpath(r) == r]
        for root in sorted(roots, key=lambda r: r == last.active):  # the one it showed opens last: it shows
            self.session.open_workspace(main, root)

    def _workspace_opened(self, window: Window, wsi: WorkspaceInstance) -> None:
        self.recents.opened("folder", wsi.root)
        if window.label == "main":
            self.recents.main_workspaces([w.root for w in window.workspaces], wsi.root)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.tasks.drain()  # history writes land before close
        await self.comments.close()
        await self.review.close()
        self.coherence.close()
        await self.browser_runs.aclose()
        await self.browser.stop()
        self.journal.close()
        self.history.close()
        self._background_lane.shutdown()

    async def _check_disk(self) -> None:
        await self.disk.check()
        if self.hooks is not None:
            self.hooks.disk_checks += 1

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
        ctx = RequestContext.of(self.services, conn)
        try:
            handler, args = self._route(conn, kind, payload)
            strays = None if self.hooks is None else _strays(kind, args)
            data = await handler(ctx, args)
            if strays is not None:
                _check_accepted(kind, strays, data)
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
        if kind in agent.ACTIONS:
            return check_person_request(agent.ACTIONS, kind, payload)
        if self.hooks is not None and kind in testing.ACTIONS:
            return testing.ACTIONS[kind], payload
        if kind in person.ACTIONS and conn.role != "person":
            raise ArgumentError(f"{kind!r} is a person's action; agents cannot send it")
        return check_person_request(person.ACTIONS, kind, payload)

    def _approval_changed(self, approval: Approval) -> None:
        self.changes.approval(approval)
        if approval.state == "pending" and self.session.pages:
            event = {"open_workspace": "prompt", "folder_access": "folder_picker"}.get(approval.kind, "browser_prompt")
            task = asyncio.ensure_future(self.page_events.notify(event, approval.describe(), approval.window))
            self._tasks.append(task)
            task.add_done_callback(self._tasks.remove)


def _strays(kind: str, payload: dict[str, Any]) -> list[str] | None:
    """Where a person's request strays from its ``wire_types`` payload, also in the values its handler checks
    itself; ``None`` for a request that is not a person's. A ``None`` where the type has no null counts as leaving
    the key out, as in the checks before the handler."""
    if kind not in wire_types.REQUESTS:
        return None
    keys = payload_keys(kind)
    given = {k: v for k, v in payload.items() if v is not None or k not in keys or not wirecheck.problems(v, keys[k])}
    return wirecheck.request_problems(kind, given)


def _check_accepted(kind: str, strays: list[str], data: Any) -> None:
    """Under the tests, a person's request is accepted only as its ``wire_types`` payload declares it, and answered
    only as its result declares (a handler that lets a stray value through or answers one is a bug: the test sees
    ``INTERNAL`` naming it, not a page that misreads it). Too slow to run always: a whole page state costs about
    as much to check as its request takes (``bench/bench_person_checks.py``)."""
    found = strays + wirecheck.result_problems(kind, data)
    if found:
        raise DomainError("INTERNAL", f"{kind} does not fit its declared types: {'; '.join(found[:3])}")


def _by_name(browser: BrowserService) -> Authorize:
    """The browser's services ask for an element by role + name (what the prompt shows), never by ref."""

    async def authorize(asker: Asker, tab: BrowserTab, ask: Ask) -> None:
        await browser.authorize(asker, tab, ask, by_ref=False)

    return authorize
