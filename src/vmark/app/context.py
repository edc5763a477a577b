"""What a handler is given: the services by name and the connection that asked.

The names are App's (``ctx.session``, ``ctx.writer``, ...): a handler reads ``ctx.X`` where it once read
``ctx.app.X``. Handlers never see App, so no handler can reach a service it does not name here. What App
itself did moved to services: ``page_window`` / ``activate`` / ``close_tab`` / ``flush_pages`` are
``ctx.windows.*``, ``resolve_divergence`` is ``ctx.disk.*``, the writer's ``person_event`` /
``abort_window_switch`` / ``is_composing`` / ``turn`` are ``ctx.turns.*`` and its ``record`` /
``record_quietly`` are ``ctx.recorder.*``; ``views_of(app)`` is ``ctx.browser_views``; the test hooks
(``test_hooks``, ``editor_faults``) are ``ctx.hooks``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from ..browser.recording import Recordings
from ..browser.runs import Runs
from ..browser.saved_sessions import SavedSessions
from ..browser.views import BrowserViews
from ..export.run import Exporter
from ..storage.history import History
from ..storage.journal import Journal
from ..storage.principals import Principals
from ..storage.recents import Recents
from ..storage.settings import Settings
from .approvals import Approvals
from .browser import BrowserService
from .changes_log import ChangesLog
from .coherence import CoherenceService
from .comments import CommentService
from .connection import Connection
from .disk import DiskWatcher
from .faults import TestHooks
from .journaling import Recorder
from .modes import EditorModes
from .page_push import PagePush
from .prompts import PromptService
from .resources import Resources
from .review import Review
from .save_queue import SaveQueue
from .state import Session
from .tab_save import Saver
from .tasks import Background
from .turns import WriteTurns
from .windows import Windows
from .writes import Writer


@dataclass(frozen=True, kw_only=True)
class Services:
    """Every service of one app, made once by App (the composition root)."""

    data_dir: Path
    session: Session
    journal: Journal
    history: History
    settings: Settings
    principals: Principals
    approvals: Approvals
    saves: SaveQueue
    recorder: Recorder
    turns: WriteTurns
    saver: Saver
    writer: Writer
    comments: CommentService
    coherence: CoherenceService
    review: Review
    #: what agents hear of since they last looked (``session.changes``)
    changes: ChangesLog
    #: documents as MCP resources, and the person's prompt templates as MCP prompts
    resources: Resources
    prompts: PromptService
    #: work started without waiting for it (history writes, a rejection's journal entry)
    tasks: Background
    windows: Windows
    #: what the person's pages are told when the session changes (``doc`` and ``state`` events, ``ui.state``)
    page_push: PagePush
    #: the mode a tab opens in, and the files' remembered modes
    modes: EditorModes
    disk: DiskWatcher
    #: the agents' browser: who may do what (grants, prompts), tabs, navigation
    browser: BrowserService
    #: the browser's services (:mod:`vmark.browser`): workflow runs, recordings, saved sessions, the person's views
    browser_runs: Runs
    browser_recordings: Recordings
    browser_sessions: SavedSessions
    browser_views: BrowserViews
    #: the person's exports (``ui.export``), with the app's Chromium flags
    exporter: Exporter
    #: the folders the person granted this session (``folder_access``), shared by every request
    folder_grants: set[str]
    #: the recent folders and files, and the main window's last workspace (``recents.json``)
    recents: Recents
    #: tests only: the faults and delays they inject (None in a person's app: ``test.*`` is not routed)
    hooks: TestHooks | None = None


@dataclass(frozen=True, kw_only=True)
class RequestContext(Services):
    """One request: the services and the connection it came on."""

    connection: Connection

    @classmethod
    def of(cls, services: Services, connection: Connection) -> RequestContext:
        """Made for every request: the services' fields copied as one dict (the frozen dataclass's ``__init__``
        would set each of some forty fields through ``object.__setattr__``, a tenth of a 1 KB read's time)."""
        ctx = object.__new__(cls)
        ctx.__dict__.update({name: getattr(services, name) for name in _SERVICE_FIELDS})
        ctx.__dict__["connection"] = connection
        return ctx


#: the names of the services' fields, once
_SERVICE_FIELDS = tuple(f.name for f in fields(Services))
