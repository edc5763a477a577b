"""The save of a tab, the person's and an agent's alike: it lands the tab's text in its file (atomic, through
the file's queue in :mod:`vmark.app.save_queue`), then journals (agents) and snapshots it."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass

from ..core.actor import PERSON, Actor
from ..core.document import DocState
from ..core.kinds import MARKDOWN_SUFFIXES, WORKFLOW_SUFFIXES, kind_for_path
from ..core.model import Tab, Window
from ..protocol import results, wire_types
from ..protocol.errors import DomainError
from ..protocol.results import Journaled
from ..protocol.wire_types import Kind
from ..storage.files import SaveError, save_new, save_replace
from ..storage.history import SAVE_KINDS, History, SnapshotKind
from ..storage.pathscope import PathScope, ScopeError
from ..storage.settings import Settings
from .coherence import CoherenceService
from .connection import Connection
from .journaling import Recorded, Recorder, tab_entry
from .page_push import PageEvents
from .prepared_save import PreparedSave
from .save_queue import SaveQueue
from .state import Session, canonical_or_invalid
from .tasks import Spawn


@dataclass(frozen=True)
class SavedTo:
    """Where :meth:`Saver.save_as` saved and at which revision; ``journaled`` for an agent's save (``None`` for
    the person's, which is never journaled)."""

    file_path: str
    revision: str
    journaled: Journaled | None


@dataclass(frozen=True)
class AfterWrite:
    """The save that follows an agent's write: done, or why not (the write itself stands either way)."""

    saved: bool
    journaled: Journaled | None = None
    error: str | None = None


def already_exists(real: str) -> DomainError:
    """Save as never replaces a file that is not the tab's own (the spec's ``APPROVAL_REQUIRED``)."""
    return DomainError("APPROVAL_REQUIRED", _EXISTS.format(path=real), filePath=real)


_EXISTS = "{path} already exists; Save as never replaces a file. Choose another name"


class Saver:
    def __init__(
        self,
        session: Session,
        saves: SaveQueue,
        coherence: CoherenceService,
        recorder: Recorder,
        history: History,
        settings: Settings,
        background: Spawn,
        *,
        pages: PageEvents,
    ) -> None:
        self.session = session
        self.pages = pages
        self.saves = saves
        self.coherence = coherence
        self.recorder = recorder
        self.history = history
        self.settings = settings
        self.background = background
        #: told of every save that landed: the tab, the state saved, and who saved it
        self.listeners: list[Callable[[Tab, DocState, Actor], None]] = []

    async def land(
        self,
        window: Window,
        tab: Tab,
        real_path: str,
        scope: Callable[[], PathScope],
        by: Actor,
        *,
        new_kind: Kind | None = None,
        ticket: int | None = None,
        prepared: PreparedSave | None = None,
    ) -> DocState:
        """Put the tab's current text at ``real_path`` through the file's save queue: the one save of a tab,
        the person's and an agent's alike. ``scope`` is asked when the save's turn comes (the path is checked
        again then). With ``new_kind`` the target is a new file, created without replacing anything that
        appeared there meanwhile, and the document moves to it. Refusals: ``INVALID_PATH`` (scope),
        ``APPROVAL_REQUIRED`` (a file exists there), ``STALE`` (a later save reached the file), SaveError
        (the disk failed: nothing was kept). ``prepared``: the temp file an agent's write made while it was
        journaled, used if it holds exactly the text this save writes (:mod:`vmark.app.prepared_save`)."""
        doc = tab.doc

        async def put() -> DocState:
            if tab not in window.tabs:
                raise SaveError("the tab was closed before it was saved; nothing was written")
            try:
                allowed = scope()
                real = allowed.resolve(real_path)
            except ScopeError as exc:
                raise exc.refusal(real_path) from exc
            state = doc.state
            text = await self.coherence.text_to_save(real, state.text)
            temp = None if prepared is None else await prepared.claim(real, text)
            try:
                data = text.encode("utf-8") if temp is None else temp.data
            except UnicodeEncodeError as exc:
                raise SaveError("the text holds characters that cannot be saved as UTF-8") from exc
            try:
                if new_kind is None:
                    stamp = await asyncio.to_thread(save_replace, real, data, allowed, temp)
                else:
                    stamp = await asyncio.to_thread(save_new, real, data, allowed)
            except FileExistsError as exc:
                raise already_exists(real) from exc
            except ScopeError as exc:
                raise exc.refusal(real_path) from exc
            if new_kind is not None:
                self.session.rekey(doc, real, new_kind)
                doc.read_only = False
            doc.disk = stamp
            if doc.path == real:
                doc.saved_revision = state.revision
            if by.kind == "person":
                doc.divergent = False  # the person chose this text over the file's
            self.session.changed(tabs=False)  # dirty no more; a move to another path told the tabs (rekey)
            await self.coherence.saved(real, text, by)
            return state

        saved = await self.saves.run(real_path, self.saves.ticket() if ticket is None else ticket, put)
        for listener in self.listeners:
            listener(tab, saved, by)
        return saved

    async def person_save(
        self, window: Window, tab: Tab, real: str, new_kind: Kind | None = None
    ) -> wire_types.SaveResult:
        """The person's save (or Save as, with ``new_kind``), then its ``manual`` snapshot. The person may
        save anywhere, so the scope is the target's own folder."""
        doc = tab.doc
        try:
            state = await self.land(
                window, tab, real, lambda: PathScope.of([os.path.dirname(real)]), PERSON, new_kind=new_kind
            )
        except SaveError as exc:
            raise DomainError("INTERNAL", f"Saving failed: {exc}", filePath=real) from exc
        await self.history.snapshot(doc.key, doc.path, "manual", state.revision, state.text)
        return {"filePath": real, "revision": state.revision}

    async def _land(
        self,
        conn: Connection,
        window: Window,
        tab: Tab,
        real_path: str,
        ticket: int,
        kind: Kind | None = None,
        prepared: PreparedSave | None = None,
    ) -> str:
        """An agent's save: the window's scope binds it."""
        state = await self.land(
            window,
            tab,
            real_path,
            lambda: self.session.scope(window),
            conn.actor,
            new_kind=kind,
            ticket=ticket,
            prepared=prepared,
        )
        return state.revision

    def prepare(self, window: Window, tab: Tab, after: DocState) -> PreparedSave:
        """Start writing the temp file of an agent write's save of ``after`` (the tab's document has a path);
        the caller closes it (:meth:`PreparedSave.close`) whatever becomes of the write."""
        assert tab.doc.path is not None
        return PreparedSave(tab.doc.path, lambda: self.session.scope(window), after.text, self.coherence.text_to_save)

    async def _snapshot(
        self, conn: Connection, tab: Tab, kind: SnapshotKind, addresses: tuple[str, ...], tool: str | None = None
    ) -> None:
        doc, by = tab.doc, conn.actor
        if not addresses and kind in SAVE_KINDS and self.history.ends_with(doc.key, doc.state.revision, doc.path):
            return  # an agent write's revision is in the history already (the review's follower put it there)
        self.background(
            self.history.snapshot(
                doc.key,
                doc.path,
                kind,
                doc.state.revision,
                doc.state.text,
                by.principal,
                addresses,
                tool,
                client=by.client_name,
            )
        )

    async def save_after_write(
        self,
        conn: Connection,
        window: Window,
        tab: Tab,
        recorded: Recorded,
        addresses: tuple[str, ...],
        prepared: PreparedSave | None = None,
    ) -> AfterWrite:
        assert tab.doc.path is not None
        try:
            await self._land(conn, window, tab, tab.doc.path, self.saves.ticket(), prepared=prepared)
        except SaveError as exc:
            return AfterWrite(False, error=str(exc))
        except DomainError as exc:
            return AfterWrite(False, error=exc.message)
        await self._snapshot(conn, tab, "mcp", addresses)
        return AfterWrite(True, recorded.journaled)

    async def _journal_save(self, conn: Connection, tab: Tab, tool: str) -> Journaled:
        return await self.recorder.record_quietly(tab_entry(tool, conn, tab))

    async def save(self, conn: Connection, window: Window, tab: Tab) -> results.Saved:
        doc = tab.doc
        if doc.path is None:
            raise DomainError("INVALID_PATH", "The tab is untitled and has no path yet; use save_as", tabId=tab.id)
        if doc.read_only:
            raise DomainError("READ_ONLY", f"{doc.path} is read-only")
        ticket = self.saves.ticket()
        try:
            revision = await self._land(conn, window, tab, doc.path, ticket)
        except SaveError as exc:
            raise DomainError("INTERNAL", f"Saving failed: {exc}", filePath=doc.path) from exc
        journaled = await self._journal_save(conn, tab, "workspace.save")
        await self._snapshot(conn, tab, "mcp", (), "workspace.save")
        return {"filePath": doc.path, "revision": revision, "journaled": journaled}

    async def save_as(self, conn: Connection, window: Window, tab: Tab, file_path: str) -> SavedTo:
        """Save as, the person's (``ui.save_as``) and an agent's (``workspace.save_as``): one path, one set of
        refusals in one order; the actor's :class:`SaveAsPolicy` decides where the target may be, what a new
        location needs, and what the save leaves behind. It never replaces a file; onto the document's own
        file it is the actor's save."""
        by = conn.actor
        policy = policy_of(by)
        doc = tab.doc
        real = canonical_or_invalid(file_path) if policy.anywhere else self._in_scope(window, file_path)
        if real == doc.path:
            if policy.journaled:
                result = await self.save(conn, window, tab)
                return SavedTo(real, result["revision"], result.get("journaled"))
            return self._person_saved(await self.person_save(window, tab, real))
        kind = kind_for_path(real)
        if kind is None:
            raise DomainError("INVALID_PATH", _UNSUPPORTED.format(path=real), filePath=real)
        if policy.anywhere:
            folder = os.path.dirname(real)
            if not os.path.isdir(folder):
                raise DomainError("INVALID_PATH", f"There is no folder {folder}", filePath=real)
        if policy.needs_approval and not self.settings.get("auto_approve_save_as"):
            await self.pages.notify(
                "notification",
                {"level": "warning", "message": f"Blocked an AI save to a new location: {real}"},
                window.label,
            )
            raise DomainError(
                "APPROVAL_REQUIRED",
                "Saving to a new location needs 'Auto-approve saves to a new location' in settings",
                filePath=real,
            )
        if os.path.lexists(real):
            raise already_exists(real)
        if self.session.doc_by_path(real) is not None:  # open, though its file is gone from the disk
            raise DomainError("INVALID_PATH", f"{real} is open in another tab; close it first", filePath=real)
        if not policy.journaled:
            return self._person_saved(await self.person_save(window, tab, real, new_kind=kind))
        try:
            revision = await self._land(conn, window, tab, real, self.saves.ticket(), kind)
        except SaveError as exc:
            raise DomainError("INTERNAL", f"Saving failed: {exc}", filePath=real) from exc
        journaled = await self._journal_save(conn, tab, "workspace.save_as")
        await self._snapshot(conn, tab, "mcp", (), "workspace.save_as")
        return SavedTo(real, revision, journaled)

    @staticmethod
    def _person_saved(saved: wire_types.SaveResult) -> SavedTo:
        return SavedTo(saved["filePath"], saved["revision"], None)

    def _in_scope(self, window: Window, file_path: str) -> str:
        try:
            return self.session.scope(window).resolve(file_path)
        except ScopeError as exc:
            raise exc.refusal(file_path) from exc


@dataclass(frozen=True)
class SaveAsPolicy:
    """What Save as lets an actor do (:meth:`Saver.save_as`)."""

    #: the target may be anywhere its folder exists (the person), else only inside the window's scope
    anywhere: bool
    #: a new location needs the setting "Auto-approve saves to a new location" (a refusal notifies the pages)
    needs_approval: bool
    #: the save is journaled and leaves an ``mcp`` snapshot (an agent's); else a ``manual`` snapshot (the person's)
    journaled: bool


PERSON_SAVE_AS = SaveAsPolicy(anywhere=True, needs_approval=False, journaled=False)
AGENT_SAVE_AS = SaveAsPolicy(anywhere=False, needs_approval=True, journaled=True)


def policy_of(actor: Actor) -> SaveAsPolicy:
    """The person's policy for the person; an agent's for anyone else."""
    return PERSON_SAVE_AS if actor.kind == "person" else AGENT_SAVE_AS


_UNSUPPORTED = (
    "{path} is not a Markdown or workflow file: end its name with "
    + ", ".join(sorted(MARKDOWN_SUFFIXES))
    + ", or save "
    + "/".join(sorted(WORKFLOW_SUFFIXES, reverse=True))
    + " files inside .github/workflows"
)
