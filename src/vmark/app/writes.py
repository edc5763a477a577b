"""The write pipeline: every agent change to a document goes through here.

Order: validate -> wait for the document's turn -> composition, revision, parent,
journal health and review backlog checks -> record the journal entry (durable), and meanwhile write the
save's temp file (nothing visible: :mod:`vmark.app.prepared_save`) -> apply (``Session.apply``: the
coherence ledger and the review of agent changes follow it) -> save (the temp renamed into place) ->
history snapshot -> answer. The person's edits, composition,
selection moves and tab closes that arrive while the entry is being recorded abort
the write (``ABORTED`` with a ``reason``) and nothing changes.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..core.changes import Spans, replaced_state, splice_state
from ..core.document import DocState, normalize_line_endings
from ..core.model import Document, Tab, Window
from ..core.transaction import Transaction
from ..protocol import results
from ..protocol.errors import DomainError
from ..protocol.limits import MAX_ADDRESSES
from ..protocol.strings import has_lone_surrogate
from ..storage.journal import JournalEntry
from ..storage.settings import Settings
from .coherence import one_lookup_per_write
from .comments import CommentService
from .connection import Connection
from .faults import EditorFaults
from .journaling import Recorder, change_entry
from .prepared_save import PreparedSave
from .review import Review
from .state import Session
from .tab_save import Saver
from .turns import Inflight, WriteTurns

log = logging.getLogger(__name__)

BUSY_COMPOSING = "The user is composing text with an input method; retry shortly"
#: the tools the review backlog can stop (REVIEW_BACKLOG_FULL)
_BACKLOG_TOOLS = ("document.write", "document.edit")


@dataclass(frozen=True)
class WriteRequest:
    """One agent change, computed in the document's turn: ``edit`` maps the current text to the new one, or
    ``spans`` gives the change set (exactly one of them)."""

    tool: str
    edit: Callable[[str], str] | None = None
    expected_revision: str | None = None
    addresses: tuple[str, ...] = ()
    #: True/False: save after applying (``document.write``); None: the tool does not save.
    save: bool | None = None
    implicit_tab: bool = False
    #: A call that changes nothing is not journaled and keeps the revision (transform, apply_patch).
    skip_unchanged: bool = False
    #: Runs first in the document's turn, before any check: ``selection.set`` asks the editor for its
    #: selection there (the page passes on its keystrokes first, so they count for ``STALE``).
    prepare: Callable[[], Awaitable[None]] | None = None
    #: Instead of ``edit``, when it gives a change set: the spans of the text as pages show it (every line
    #: break ``\n``), applied on the current state (``selection.set``: the editor's replacement).
    spans: Callable[[], Spans] | None = None
    #: The call replaces the whole text (``document.write``): the journal keeps the whole before-text.
    whole_text: bool = False

    def __post_init__(self) -> None:
        if (self.edit is None) == (self.spans is None):
            raise TypeError("a WriteRequest takes either edit or spans")


def check_text(text: str) -> None:
    if has_lone_surrogate(text):
        raise DomainError("INVALID_TEXT")


def check_addresses(addresses: list[str], known: Callable[[str], bool]) -> tuple[str, ...]:
    if len(addresses) > MAX_ADDRESSES:
        raise DomainError("INVALID_ADDRESSES", f"addresses takes at most {MAX_ADDRESSES} ids, got {len(addresses)}")
    if len(set(addresses)) != len(addresses):
        raise DomainError("INVALID_ADDRESSES", "addresses names the same comment twice")
    unknown = [a for a in addresses if not known(a)]
    if unknown:
        raise DomainError(
            "INVALID_ADDRESSES",
            f"this edit cannot answer {', '.join(unknown)} (unknown, deleted, resolved or another document's)",
            invalid=unknown,
        )
    return tuple(addresses)


class Writer:
    def __init__(
        self,
        session: Session,
        turns: WriteTurns,
        recorder: Recorder,
        comments: CommentService,
        review: Review,
        saver: Saver,
        settings: Settings,
        faults: EditorFaults | None = None,
    ) -> None:
        self.session = session
        self.turns = turns
        self.recorder = recorder
        self.comments = comments
        self.review = review
        self.saver = saver
        self.settings = settings
        #: tests only: the editor fails after (or half-way through) applying the next write
        self.faults = faults

    # --- document.write and friends ------------------------------------------------------
    async def write(self, conn: Connection, window: Window, tab: Tab, request: WriteRequest) -> results.Written:
        doc = tab.doc
        linked = check_addresses(list(request.addresses), self.comments.addressable(doc.key))
        if doc.read_only:
            raise DomainError("READ_ONLY", f"{doc.path or tab.title} is read-only")
        try:
            with one_lookup_per_write():
                async with self.turns.turn(doc, tab):
                    return await self._write_locked(conn, window, tab, request, linked)
        finally:
            self.review.settle_soon(doc)  # a long rewrite's word diff, after the answer (Review.settle)

    def _check_turn(self, doc: Document, tab: Tab, window: Window, request: WriteRequest) -> None:
        if self.turns.is_composing(doc):
            raise DomainError("BUSY", BUSY_COMPOSING)
        current = doc.state.revision
        if request.expected_revision is not None and request.expected_revision != current:
            raise DomainError("STALE", current_revision=current)
        if request.expected_revision is None and self._parent_is_stale(doc, tab, window):
            raise DomainError("STALE_PARENT", current_revision=current)
        if self.recorder.degraded(doc.key):
            raise DomainError("JOURNAL_DEGRADED")

    async def _check_backlog(self, doc: Document, request: WriteRequest) -> None:
        if request.tool not in _BACKLOG_TOOLS:
            return
        limit = int(self.settings.get("review_backlog_limit"))
        if await self.review.unreviewed(doc) >= limit:
            raise DomainError(
                "REVIEW_BACKLOG_FULL",
                f"{limit} AI revisions of this document are unreviewed; ask the user to review them",
            )

    async def _write_locked(
        self, conn: Connection, window: Window, tab: Tab, request: WriteRequest, addresses: tuple[str, ...]
    ) -> results.Written:
        doc = tab.doc
        if request.prepare is not None:
            await request.prepare()
        self._check_turn(doc, tab, window, request)
        await self._check_backlog(doc, request)
        current = doc.state.revision
        after = self._after(doc, request)  # its hash is computed once, for the journal and the next write
        if request.skip_unchanged and after.text == doc.state.text:
            return {"revision": current, "applied": False, "durable": True}
        prepared = self.saver.prepare(window, tab, after) if request.save and doc.path is not None else None
        try:
            return await self._record_apply_save(conn, window, tab, request, addresses, after, prepared)
        finally:
            if prepared is not None:
                await prepared.close()  # a refused, aborted or failed write leaves no temp file

    async def _record_apply_save(
        self,
        conn: Connection,
        window: Window,
        tab: Tab,
        request: WriteRequest,
        addresses: tuple[str, ...],
        after: DocState,
        prepared: PreparedSave | None,
    ) -> results.Written:
        doc = tab.doc
        flight = Inflight(tab, window.label, request.implicit_tab)
        self.turns.recording(doc, flight)
        recorded = await self.recorder.record(self._entry(conn, tab, request, after, addresses))
        flight.recording = False
        if flight.aborted or tab not in window.tabs:
            reason = flight.aborted or "closed"
            await self.recorder.abort(recorded.entry_id)
            raise DomainError(
                "ABORTED",
                f"The user changed the document while the write was recorded ({reason})",
                reason=reason,
            )
        actor = conn.actor
        await self._apply(doc, tab, window, Transaction(doc, after, "agent", actor, request.tool))
        if self.faults is not None:
            await self.faults.after_apply(self.session, doc, recorded, actor)
        result: results.Written = {"revision": after.revision, "applied": True, "durable": recorded.durable}
        if request.save is None:
            return result
        if not request.save:
            result["saved"], result["save_skipped"] = False, "opt_out"
        elif doc.path is None:
            result["saved"], result["save_skipped"] = False, "untitled"
        else:
            saved = await self.saver.save_after_write(conn, window, tab, recorded, addresses, prepared)
            result["saved"] = saved.saved
            if saved.journaled is not None:
                result["journaled"] = saved.journaled
            if saved.error is not None:
                result["save_error"] = saved.error
        return result

    @staticmethod
    def _after(doc: Document, request: WriteRequest) -> DocState:
        """The state the write makes: the request's spans applied, or its text (Markdown gets the file's line
        endings; other kinds keep the agent's bytes exactly), its change the span that differs."""
        if request.spans is not None:
            return splice_state(doc.state, request.spans(), doc.line_ending)
        assert request.edit is not None  # __post_init__: one of the two
        text = request.edit(doc.state.text)
        # A computed text is checked (document.write's content and a span's insert were, on arrival).
        if request.skip_unchanged:
            check_text(text)
        if doc.kind == "markdown":
            text = normalize_line_endings(text, doc.line_ending)
        return replaced_state(doc.state, text)

    @staticmethod
    def _entry(
        conn: Connection, tab: Tab, request: WriteRequest, after: DocState, addresses: tuple[str, ...]
    ) -> JournalEntry:
        """Recorded before the write applies: the document's current state is its before-state."""
        return change_entry(
            request.tool, conn, tab, tab.doc.state, after, addresses=addresses, whole_text=request.whole_text
        )

    def _parent_is_stale(self, doc: Document, tab: Tab, window: Window) -> bool:
        if tab.basis_seq is None or doc.write_seq <= tab.basis_seq:
            return False
        return doc.last_write_window not in (None, window.label)

    async def _apply(self, doc: Document, tab: Tab, window: Window, tx: Transaction) -> None:
        """The agent's change, through the one transaction path (coherence recording and the review of agent
        changes follow it there); the write's tab has read what it wrote."""
        doc.write_seq += 1
        doc.last_write_window = window.label
        tab.basis_seq = doc.write_seq
        await self.session.apply(tx)
