"""The review of agent changes: per document, the agent's changes waiting for the person, word by word.

:meth:`Review.observe` sees every transaction as it applies (``Session.apply``): an agent's edit adds its
word-level changes (merged with a pending change it touches), and every edit by anyone moves the pending
ranges (:mod:`vmark.core.review` says how). The person judges a change: accept drops it; reject restores its
old text as the person's own edit, through ``Session.apply``. An AI revision of the history's backlog is
reviewed once none of its changes is pending (``REVIEW_BACKLOG_FULL`` counts the others).

The pending set is saved with the content hash of the text its ranges apply to: a document opened again
(after a restart too) gets its changes back only when its text is that text; else the file changed
meanwhile, the ranges mean nothing there, and the changes end as ``superseded``. Every page showing a
document gets a ``review`` event after each change of its pending set, after the document's own ``doc``
event for that revision (the page applies the ranges only to the text they belong to).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..core.changes import diff, splice_state
from ..core.document import DocState
from ..core.errors import ArgumentError
from ..core.ids import new_id
from ..core.model import Document, Window
from ..core.review import Change, Judgement, map_change, reject_spans
from ..core.review_merge import Author, merge_edit
from ..core.spans import Spans
from ..core.transaction import Actor, Transaction
from ..storage.history import History, SnapshotKind
from ..storage.reviews import ReviewStore, StoredReview

if TYPE_CHECKING:
    from .state import Session

#: moves of pending ranges by typing wait this long to be saved together
REVIEW_SAVE_DELAY = 0.5


@dataclass
class _DocReview:
    """One document's review: the state its ranges apply to (None: only its hash is known, from the store)."""

    basis: DocState | None
    hash: str | None = None
    changes: list[Change] = field(default_factory=list)
    #: judged since the last save: (id, judgement)
    judged: list[tuple[str, Judgement]] = field(default_factory=list)


@dataclass(frozen=True)
class Rejection:
    """What a rejection did: how many changes, and the text before and after it (None: it rejected none)."""

    count: int
    before: DocState | None
    after: DocState | None


@dataclass(frozen=True)
class _AgentEdit:
    """What ``follow`` needs of an agent transaction ``observe`` saw: the text before it, and whether it left
    anything to review."""

    before: DocState
    reviewable: bool


class Review:
    def __init__(
        self,
        history: History,
        store: ReviewStore,
        session: Session,
        background: Callable[[Coroutine[Any, Any, Any]], None],
    ) -> None:
        self.history = history
        self.store = store
        self.session = session
        self._background = background
        #: per document key: how many of its AI revisions are unreviewed (read from the history once)
        self._unreviewed: dict[str, int] = {}
        self._docs: dict[str, _DocReview] = {}
        self._agent_edits: dict[str, _AgentEdit] = {}
        #: documents whose pages get a ``review`` event after their next ``doc`` event, and the notice to add
        self._to_push: set[str] = set()
        self._notices: dict[str, dict[str, Any]] = {}
        self._save_later: set[str] = set()
        self._saver: asyncio.Task[None] | None = None
        #: False: agents' edits make no changes to review (a benchmark's peer run: ``test.fault {review: false}``)
        self.enabled = True

    async def start(self) -> None:
        await self.store.start()
        stored: dict[str, StoredReview] = await self.store.load()
        for key, review in stored.items():
            self._docs[key] = _DocReview(None, review.hash, review.changes)

    async def close(self) -> None:
        if self._saver is not None:
            self._saver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._saver
        for key in list(self._save_later):
            await self._save(key)
        self.store.close()

    # --- lookups ------------------------------------------------------------------------------------------
    def pending(self, doc: Document) -> list[Change]:
        """The document's pending changes in range order."""
        review = self._docs.get(doc.key)
        return [] if review is None else sorted(review.changes, key=lambda c: (c.start, c.end))

    def count(self, doc: Document) -> int:
        review = self._docs.get(doc.key)
        return 0 if review is None else len(review.changes)

    def listing(self, doc: Document) -> dict[str, Any]:
        return {"revision": doc.state.revision, "changes": [c.wire() for c in self.pending(doc)]}

    async def unreviewed(self, doc: Document) -> int:
        if doc.key not in self._unreviewed:
            self._unreviewed[doc.key] = await self.history.unreviewed(doc.key)
        return self._unreviewed[doc.key]

    # --- following the session ------------------------------------------------------------------------
    def opened(self, doc: Document) -> None:
        """A tab shows ``doc`` (``Session.add_tab``): a document seen again takes its pending changes back
        when its text is the one they apply to, else they are superseded (the file changed meanwhile)."""
        review = self._docs.get(doc.key)
        if review is None:
            self._docs[doc.key] = _DocReview(doc.state)
            return
        if review.basis is not None and review.basis.revision == doc.state.revision:
            return  # another tab of the same document
        expected = review.basis.content_hash if review.basis is not None else review.hash
        review.basis = doc.state
        if review.changes and expected != doc.state.content_hash:
            self._end(doc.key, review, list(review.changes), "superseded")
            self._save_now(doc.key)
        self._to_push.add(doc.key)
        if review.changes:
            self._background(self.push(doc))

    async def agent_opened(self, doc: Document) -> None:
        """An agent opened ``doc``: a document without history gets its text on disk as the first entry, so
        the agent's first revision has a "before" (when the text is not the file's, the first revision's
        entry comes after the person's unsaved text instead: see :meth:`follow`)."""
        if doc.path is not None and not doc.dirty and await self.history.last_revision(doc.key) is None:
            await self.history.snapshot(doc.key, doc.path, "disk", doc.state.revision, doc.state.text)

    def attached(self, window: Window) -> None:
        """A page attached to ``window``: it gets the review of every document it shows that has one."""
        for doc in {id(t.doc): t.doc for t in window.tabs}.values():
            if self.count(doc):
                self._background(self.push(doc))

    def rekey(self, old: str, new: str) -> None:
        """A document moved (Save as): its review moves with it."""
        review = self._docs.pop(old, None)
        if review is not None:
            self._docs[new] = review
            self._background(self.store.rekey(old, new))
        self._background(self.history.move_ai_revisions(old, new))  # their backlog moves too
        count = self._unreviewed.pop(old, None)
        if count is not None:
            self._unreviewed[new] = count

    def observe(self, tx: Transaction) -> None:
        """Every change of a document's text, as it applies: pending ranges move; an agent's edit adds its
        changes. Runs before anything else on the loop (an observer of ``Session.apply``)."""
        doc = tx.doc
        review = self._docs.setdefault(doc.key, _DocReview(None))
        before = review.basis
        review.basis = tx.state
        if before is None:  # never happens for a document a tab shows (``opened`` saw it first)
            if review.changes:
                self._end(doc.key, review, list(review.changes), "superseded")
                self._save_now(doc.key)
            return
        had = bool(review.changes)
        spans = _shown_spans(before, tx.state)
        if tx.origin == "agent" and tx.tool is not None and self.enabled:
            added = self._merge(review, tx, before, spans)
            self._agent_edits[tx.state.revision] = _AgentEdit(before, added > 0)
            if added:
                notice = self._notices.get(doc.key)
                count = added + (notice["count"] if notice else 0)
                self._notices[doc.key] = {"principal": _principal(tx.actor), "tool": tx.tool, "count": count}
                self._save_now(doc.key)
        elif tx.origin == "revert" and review.changes:
            self._merge(review, tx, before, spans)
            self._save_now(doc.key)
        elif review.changes:
            self._move(doc.key, review, spans, "superseded" if tx.origin == "disk" else "edited")
        if had or review.changes:
            self._to_push.add(doc.key)

    def _merge(self, review: _DocReview, tx: Transaction, before: DocState, spans: Spans) -> int:
        """An agent's edit (or a revert) over the pending changes (:func:`merge_edit`); returns how many changes
        the agent's edit made. The revisions whose changes it undid are settled once the new set is in (a new
        change may carry them on)."""
        author = None
        if tx.origin == "agent":
            author = Author(tx.state.revision, _principal(tx.actor), tx.tool or "", time.time())
        merged = merge_edit(review.changes, before.shown, tx.state.shown, spans, author, lambda: new_id("rc"))
        key = tx.doc.key
        self._end(key, review, merged.merged, "merged", settle=False)
        self._end(key, review, merged.undone, "merged" if author else "edited", settle=False)
        review.changes = merged.changes
        self._settle_revisions(key, [r for c in merged.undone for r in c.revisions])
        return merged.made

    def _move(self, key: str, review: _DocReview, spans: Spans, judgement: Judgement) -> None:
        """Move the pending ranges through someone else's edit; the changes it took away are judged by it."""
        kept: list[Change] = []
        gone: list[Change] = []
        for change in review.changes:
            moved = map_change(change, spans)
            if moved is None:
                gone.append(change)
            else:
                kept.append(moved)
        review.changes = kept
        if gone:
            self._end(key, review, gone, judgement)
            self._save_now(key)
        elif spans:
            self._save_soon(key)

    def _end(
        self,
        key: str,
        review: _DocReview,
        changes: Sequence[Change],
        judgement: Judgement,
        settle: bool = True,
    ) -> None:
        ids = {c.id for c in changes}
        review.changes = [c for c in review.changes if c.id not in ids]
        review.judged += [(c.id, judgement) for c in changes]
        if settle:
            self._settle_revisions(key, [r for c in changes for r in c.revisions])

    def _settle_revisions(self, key: str, revisions: Sequence[str]) -> None:
        """The AI revisions among ``revisions`` that have no pending change any more are reviewed."""
        review = self._docs.get(key)
        still = {r for c in (review.changes if review else []) for r in c.revisions}
        done = [r for r in dict.fromkeys(revisions) if r not in still]
        if not done:
            return
        if key in self._unreviewed:
            self._unreviewed[key] = max(0, self._unreviewed[key] - len(done))
        for revision in done:
            self._background(self.history.mark_reviewed(key, revision))

    async def follow(self, tx: Transaction) -> None:
        """After the transaction: the history gets an agent edit's revision (after the text before it, when
        that is not the history's latest) and, when it left changes to judge, the backlog gets it too; a revert
        is snapshotted. The answer to the agent does not wait for the writes: they keep their order (one FIFO
        worker), the backlog row between the text before and the revision's own entry (a revert to that entry
        does not undo it; a revert to the one before does)."""
        doc, state = tx.doc, tx.state
        edit = self._agent_edits.pop(state.revision, None)
        if tx.origin == "agent" and tx.tool is not None and edit is not None:
            if edit.reviewable:
                await self.unreviewed(doc)  # the count is known before this revision joins it
            if await self.history.last_revision(doc.key) != edit.before.revision:
                kind: SnapshotKind = "disk" if doc.saved_revision == edit.before.revision else "edit"
                self._background(self.history.snapshot(doc.key, doc.path, kind, edit.before.revision, edit.before.text))
            if edit.reviewable:
                self._background(self.history.add_ai_revision(doc.key, state.revision))
                self._unreviewed[doc.key] = self._unreviewed.get(doc.key, 0) + 1
            principal = tx.actor.principal
            self._background(
                self.history.snapshot(doc.key, doc.path, "mcp", state.revision, state.text, principal, tool=tx.tool)
            )
        elif tx.origin == "revert":
            await self.history.snapshot(doc.key, doc.path, "revert", state.revision, state.text)

    # --- the person's judgement --------------------------------------------------------------------------
    def _picked(self, doc: Document, ids: Sequence[str] | None) -> list[Change]:
        pending = self.pending(doc)
        if ids is None:
            return pending
        by_id = {c.id: c for c in pending}
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            raise ArgumentError(f"no pending change {', '.join(map(repr, unknown))} in this document")
        return [by_id[i] for i in dict.fromkeys(ids)]

    async def accept(self, doc: Document, ids: Sequence[str] | None) -> int:
        """Keep the text of the changes (``ids``, or all of them) and stop showing them."""
        picked = self._picked(doc, ids)
        if picked:
            review = self._docs[doc.key]
            self._end(doc.key, review, picked, "accepted")
            await self._save(doc.key)
            await self.push(doc)
            self.session.changed()  # the tabs' reviewCount
        return len(picked)

    async def reject(self, doc: Document, ids: Sequence[str] | None, actor: Actor) -> Rejection:
        """Restore the old text of the changes (``ids``, or all of them): the person's edit, like any other
        (an agent write being recorded is aborted; an agent holding the old revision gets ``STALE``)."""
        picked = self._picked(doc, ids)
        if not picked:
            return Rejection(0, None, None)
        review = self._docs[doc.key]
        self._end(doc.key, review, picked, "rejected")
        self._to_push.add(doc.key)  # the pages hear of it after the restored text, even with nothing left
        before = doc.state
        state = splice_state(before, reject_spans(picked), doc.line_ending)
        await self.session.apply(Transaction(doc, state, "person", actor))
        snapshot = self.history.snapshot(doc.key, doc.path, "reject", state.revision, state.text, tool="review.reject")
        self._background(snapshot)
        await self._save(doc.key)
        return Rejection(len(picked), before, state)

    async def mark_reviewed(self, doc: Document, revision: str | None) -> int:
        """ "Mark reviewed": accept every pending change (or, for one AI revision, its part in them: a change that
        carries other revisions too stays for them), and mark the AI revisions reviewed; return how many
        revisions changed."""
        review = self._docs.get(doc.key)
        if review is not None and review.changes:
            if revision is None:
                self._end(doc.key, review, list(review.changes), "accepted", settle=False)
            else:
                carrying = [c for c in review.changes if revision in c.revisions]
                alone = [c for c in carrying if c.revisions == (revision,)]
                self._end(doc.key, review, alone, "accepted", settle=False)
                review.changes = [
                    replace(c, revisions=tuple(r for r in c.revisions if r != revision)) for c in review.changes
                ]
            await self._save(doc.key)
            await self.push(doc)
            self.session.changed()  # the tabs' reviewCount
        changed = await self.history.mark_reviewed(doc.key, revision)
        self._unreviewed.pop(doc.key, None)
        return changed

    # --- pushing and saving ---------------------------------------------------------------------------
    async def after_doc_push(self, doc: Document) -> None:
        """The pages got the document's new revision (``Session``): now its review, when it changed."""
        if doc.key in self._to_push:
            await self.push(doc)

    async def push(self, doc: Document) -> None:
        """A ``review`` event to every page of a window showing ``doc``."""
        self._to_push.discard(doc.key)
        notice = self._notices.pop(doc.key, None)
        listing = self.listing(doc)
        payload: dict[str, Any] = {"filePath": doc.path, "docKey": doc.key, **listing}
        if notice is not None:
            payload["notice"] = notice
        for label, conns in list(self.session.pages.items()):
            window = self.session.windows.get(label)
            tab_ids = [t.id for t in window.tabs if t.doc is doc] if window is not None else []
            if not tab_ids:
                continue
            event = {"type": "event", "event": "review", "payload": {**payload, "tabIds": tab_ids}}
            for conn in list(conns):
                with contextlib.suppress(ConnectionError):
                    await conn.send(event)

    def _save_now(self, key: str) -> None:
        self._save_later.discard(key)
        self._background(self._save(key))

    def _save_soon(self, key: str) -> None:
        self._save_later.add(key)
        if self._saver is None or self._saver.done():
            self._saver = asyncio.ensure_future(self._save_after_delay())

    async def _save_after_delay(self) -> None:
        await asyncio.sleep(REVIEW_SAVE_DELAY)
        for key in list(self._save_later):
            await self._save(key)

    async def _save(self, key: str) -> None:
        self._save_later.discard(key)
        review = self._docs.get(key)
        if review is None:
            return
        text_hash = review.basis.content_hash if review.basis is not None else review.hash
        if text_hash is None:
            return
        judged, review.judged = review.judged, []
        await self.store.save(key, text_hash, list(review.changes), judged)


def _principal(actor: Actor) -> str:
    return actor.principal or (f"anonymous ({actor.connection})" if actor.connection else "anonymous")


def _shown_spans(before: DocState, after: DocState) -> Spans:
    """The change from ``before`` to ``after`` as spans of the shown text: the state's own when it came
    from ``before``, else the one span that differs."""
    change = after.change
    if change is not None and change.parent == before.revision:
        return change.shown
    span = diff(before.shown, after.shown)
    return () if span is None else (span,)
