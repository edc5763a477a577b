"""The write pipeline: every agent change to a document goes through here.

Order: validate -> wait for the document's turn -> composition, revision, parent,
journal health and review backlog checks -> record the journal entry (durable) ->
apply (``Session.apply``: the coherence ledger and the review of agent changes follow it) ->
save -> history snapshot -> answer. The person's edits, composition,
selection moves and tab closes that arrive while the entry is being recorded abort
the write (``ABORTED`` with a ``reason``) and nothing changes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.changes import Spans, covering, replaced_state, splice_state
from ..core.document import DocState, has_lone_surrogate, normalize_line_endings
from ..core.errors import DomainError
from ..core.limits import (
    COMPOSITION_GRACE_SECONDS,
    JOURNAL_ANSWER_SECONDS,
    MAX_ADDRESSES,
    WRITE_QUEUE_WAIT_SECONDS,
)
from ..core.model import Document, Tab, Window
from ..core.transaction import Actor, Transaction
from ..storage.journal import BeforePatch, JournalEntry, JournalRejected, JournalTransient, JournalUnavailable

if TYPE_CHECKING:
    from .service import App, RequestContext

log = logging.getLogger(__name__)

BUSY_COMPOSING = "The user is composing text with an input method; retry shortly"
#: the tools the review backlog can stop (REVIEW_BACKLOG_FULL)
_BACKLOG_TOOLS = ("document.write", "document.edit")


@dataclass
class Inflight:
    tab: Tab
    window: str
    implicit_tab: bool
    recording: bool = False
    aborted: str | None = None


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


@dataclass(frozen=True)
class Recorded:
    durable: bool
    journaled: str  # "yes" | "pending" | "no"
    entry_id: int | None


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
    def __init__(self, app: App) -> None:
        self.app = app
        self._locks: dict[int, asyncio.Lock] = {}
        self._inflight: dict[int, Inflight] = {}

    # --- the person's side ---------------------------------------------------------
    def observe(self, tx: Transaction) -> None:
        """Every change of a document's text by the person (an edit, a revert) aborts the agent write to it
        that is being recorded right now (``Session.apply`` calls this)."""
        if tx.origin in ("person", "revert"):
            self.person_event(tx.doc, "edited")

    def person_event(self, doc: Document, reason: str, window: str | None = None, tab_switch: bool = False) -> None:
        """Abort an agent write to ``doc`` that is being recorded right now."""
        flight = self._inflight.get(id(doc))
        if flight is None or not flight.recording or flight.aborted:
            return
        if tab_switch and not (flight.implicit_tab and flight.window == window):
            return
        flight.aborted = reason

    def abort_window_switch(self, window: str) -> None:
        for flight in self._inflight.values():
            if flight.recording and flight.implicit_tab and flight.window == window and not flight.aborted:
                flight.aborted = "selection"

    def is_composing(self, doc: Document) -> bool:
        if doc.composing:
            return True
        in_grace = time.monotonic() - doc.composition_ended_at < COMPOSITION_GRACE_SECONDS
        return doc.composing_mode == "source" and in_grace

    # --- the turn -------------------------------------------------------------------------
    async def turn(self, doc: Document, tab: Tab) -> asyncio.Lock:
        """The document's write turn (held by one write, comment reply or mark at a time); release it after."""
        lock = self._locks.setdefault(id(doc), asyncio.Lock())
        flight = self._inflight.get(id(doc))
        if flight is not None and flight.recording and flight.tab is not tab:
            raise DomainError("JOURNAL_BUSY")
        try:
            await asyncio.wait_for(lock.acquire(), WRITE_QUEUE_WAIT_SECONDS)
        except TimeoutError as exc:
            raise DomainError("WRITE_BUSY") from exc
        return lock

    async def record(self, entry: JournalEntry) -> Recorded:
        try:
            entry_id = await self.app.journal.record(entry, JOURNAL_ANSWER_SECONDS)
            return Recorded(True, "yes", entry_id)
        except JournalUnavailable as exc:
            raise DomainError("JOURNAL_UNAVAILABLE", str(exc)) from exc
        except JournalTransient:
            return Recorded(False, "pending", None)
        except JournalRejected as exc:
            log.warning("journal rejected an entry for %s (unrecorded): %s", entry.file or entry.doc, exc)
            return Recorded(False, "no", None)

    async def record_quietly(self, entry: JournalEntry) -> str:
        """Record a save: ``yes`` / ``pending`` / ``no``; a save is never an error because of the journal."""
        try:
            await self.app.journal.record(entry, JOURNAL_ANSWER_SECONDS)
            return "yes"
        except JournalTransient:
            return "pending"
        except (JournalUnavailable, JournalRejected):
            return "no"

    # --- document.write and friends ------------------------------------------------------
    async def write(self, ctx: RequestContext, window: Window, tab: Tab, request: WriteRequest) -> dict[str, Any]:
        doc = tab.doc
        linked = check_addresses(list(request.addresses), self.app.comments.addressable(doc.key))
        if doc.read_only:
            raise DomainError("READ_ONLY", f"{doc.path or tab.title} is read-only")
        lock = await self.turn(doc, tab)
        try:
            return await self._write_locked(ctx, window, tab, request, linked)
        finally:
            self._inflight.pop(id(doc), None)
            lock.release()

    def _check_turn(self, doc: Document, tab: Tab, window: Window, request: WriteRequest) -> None:
        if self.is_composing(doc):
            raise DomainError("BUSY", BUSY_COMPOSING)
        current = doc.state.revision
        if request.expected_revision is not None and request.expected_revision != current:
            raise DomainError("STALE", current_revision=current)
        if request.expected_revision is None and self._parent_is_stale(doc, tab, window):
            raise DomainError("STALE_PARENT", current_revision=current)
        if doc.key in self.app.journal.pending_docs:
            raise DomainError("JOURNAL_DEGRADED")

    async def _check_backlog(self, doc: Document, request: WriteRequest) -> None:
        if request.tool not in _BACKLOG_TOOLS:
            return
        limit = int(self.app.settings.get("review_backlog_limit"))
        if await self.app.review.unreviewed(doc) >= limit:
            raise DomainError(
                "REVIEW_BACKLOG_FULL",
                f"{limit} AI revisions of this document are unreviewed; ask the user to review them",
            )

    async def _write_locked(
        self, ctx: RequestContext, window: Window, tab: Tab, request: WriteRequest, addresses: tuple[str, ...]
    ) -> dict[str, Any]:
        doc = tab.doc
        if request.prepare is not None:
            await request.prepare()
        self._check_turn(doc, tab, window, request)
        await self._check_backlog(doc, request)
        current = doc.state.revision
        after = self._after(doc, request)  # its hash is computed once, for the journal and the next write
        if request.skip_unchanged and after.text == doc.state.text:
            return {"revision": current, "applied": False, "durable": True}
        flight = Inflight(tab, window.label, request.implicit_tab, recording=True)
        self._inflight[id(doc)] = flight
        recorded = await self.record(self._entry(ctx, tab, request, after, addresses))
        flight.recording = False
        if flight.aborted or tab not in window.tabs:
            reason = flight.aborted or "closed"
            if recorded.entry_id is not None:
                await self.app.journal.mark(recorded.entry_id, "aborted")
            raise DomainError(
                "ABORTED",
                f"The user changed the document while the write was recorded ({reason})",
                reason=reason,
            )
        actor = Actor(ctx.connection.id, ctx.connection.principal)
        await self._apply(doc, tab, window, Transaction(doc, after, "agent", actor, request.tool))
        failure = self.app.editor_faults.take()
        if failure is not None:
            return await self._editor_failure(failure, doc, recorded, actor)
        result: dict[str, Any] = {"revision": after.revision, "applied": True, "durable": recorded.durable}
        if request.save is None:
            return result
        if not request.save:
            result.update(saved=False, save_skipped="opt_out")
        elif doc.path is None:
            result.update(saved=False, save_skipped="untitled")
        else:
            result.update(await self.app.saver.save_after_write(ctx, window, tab, recorded, addresses))
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
        ctx: RequestContext, tab: Tab, request: WriteRequest, after: DocState, addresses: tuple[str, ...]
    ) -> JournalEntry:
        """What the journal keeps to restore the before-text: all of it for a whole-text write, or for a change
        of known spans only what they replaced, from the first to the last (a word changed in a 5 MB document
        is not a 5 MB entry)."""
        before, change = tab.doc.state, after.change
        patch = None
        if not request.whole_text and change is not None and change.spans is not None:
            start, old_end, new_end = covering(change.spans)
            patch = BeforePatch(start, new_end - start, before.text[start:old_end])
        return JournalEntry(
            tool=request.tool,
            doc=tab.doc.key,
            principal=ctx.connection.principal,
            tab=tab.id,
            file=tab.doc.path,
            rev_before=before.revision,
            rev_after=after.revision,
            hash_before=before.content_hash,
            hash_after=after.content_hash,
            before_text=before.text if patch is None else None,
            before_patch=patch,
            addresses=addresses,
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
        await self.app.session.apply(tx)

    async def _editor_failure(self, failure: str, doc: Document, recorded: Recorded, actor: Actor) -> dict[str, Any]:
        if failure == "after_apply":
            raise DomainError(
                "INTERNAL",
                "The editor failed after the write changed the document; read again before the next write",
                applied=True,
                durable=recorded.durable,
                current_revision=doc.state.revision,
            )
        # No tool made this state (the editor's failure did): nothing records it as the agent's write.
        half = DocState(doc.state.text[: len(doc.state.text) // 2])
        await self.app.session.apply(Transaction(doc, half, "agent", actor))
        raise DomainError("INTERNAL", "The write failed part-way; the document may have changed. Read it again")
