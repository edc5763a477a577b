"""The review of agent changes: per document, the agent's changes waiting for the person, word by word.

:meth:`Review.observe` sees every transaction as it applies (``Session.apply``): an agent's edit adds its
word-level changes (merged with a pending change it touches), and every edit by anyone moves the pending
ranges (:mod:`.pending`). The person judges a change: accept drops it; reject restores its old text as the
person's own edit, through ``Session.apply``. An AI revision of the history's backlog is reviewed once none
of its changes is pending (:mod:`.backlog`).

An agent edit's word diff (under a millisecond for a short one, tens of milliseconds for a rewrite of a long
document) waits until after the write's answer (:meth:`Review.settle_soon`) or until anything asks for the
document's review, whichever comes first: every reader (and the next change of that document) settles what
waits first, in order, so nothing ever sees a pending set without it. The agent's answer does not wait for
it. Its AI revision joins the backlog at once (the history's order needs its row there); should the edit turn
out to change nothing to review, the revision is marked reviewed then.

The pending set is saved with the content hash of the text its ranges apply to (:mod:`.saving`): a document
opened again (after a restart too) gets its changes back only when its text is that text; else the file
changed meanwhile, the ranges mean nothing there, and the changes end as ``superseded``. Every page showing a
document hears of each change of its pending set (:mod:`.push`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from typing import TYPE_CHECKING, Any, cast

from ...core.actor import Actor
from ...core.changes import splice_state
from ...core.document import DocState
from ...core.model import Document, Window
from ...core.review import Change, Judgement, reject_spans
from ...core.spans import Spans
from ...core.transaction import Transaction
from ...protocol import wire_types
from ...protocol.errors import ArgumentError
from ...storage.history import History
from ...storage.reviews import ReviewStore
from .backlog import Backlog
from .pending import DocReview, shown_spans
from .push import ReviewPusher
from .saving import ReviewSaver

if TYPE_CHECKING:
    from ..state import Session


@dataclass(frozen=True)
class _Waiting:
    """An agent's transaction whose word diff waits (see the module)."""

    tx: Transaction
    before: DocState
    spans: Spans


@dataclass(frozen=True)
class Rejection:
    """What a rejection did: how many changes, and the text before and after it (None: it rejected none)."""

    count: int
    before: DocState | None
    after: DocState | None


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
        self._docs: dict[str, DocReview] = {}
        #: per document key: the agent edit whose word diff waits (at most one: any later change settles it first)
        self._waiting: dict[str, _Waiting] = {}
        self._backlog = Backlog(history, background)
        self._saver = ReviewSaver(store, self._docs, background, self.settle)
        self._pusher = ReviewPusher(session, self.listing)
        #: False: agents' edits make no changes to review (a benchmark's peer run: ``test.fault {review: false}``)
        self.enabled = True
        #: told when changes leave the pending set, judged (before a rejection restores their old text)
        self.judged_listeners: list[Callable[[Document, Sequence[Change], Judgement], None]] = []

    async def start(self) -> None:
        await self._saver.start()

    async def close(self) -> None:
        for key in list(self._waiting):
            self.settle(key)
        await self._saver.close()

    # --- lookups ------------------------------------------------------------------------------------------
    def pending(self, doc: Document) -> list[Change]:
        """The document's pending changes in range order."""
        self.settle(doc.key)
        review = self._docs.get(doc.key)
        return [] if review is None else review.pending()

    def count(self, doc: Document) -> int:
        self.settle(doc.key)
        review = self._docs.get(doc.key)
        return 0 if review is None else len(review.changes)

    def listing(self, doc: Document) -> wire_types.ReviewList:
        # a ReviewChange is a ListedChange without its optional ``new`` (``review.list`` by file adds it)
        changes = [cast(wire_types.ListedChange, c.wire()) for c in self.pending(doc)]
        return {"revision": doc.state.revision, "changes": changes}

    async def unreviewed(self, doc: Document) -> int:
        self.settle(doc.key)
        return await self._backlog.unreviewed(doc)

    # --- word diffs after the answer ---------------------------------------------------------------------
    def settle_soon(self, doc: Document) -> None:
        """The write's answer is on its way: the word diff waiting for ``doc`` runs next on the loop."""
        if doc.key in self._waiting:
            asyncio.get_running_loop().call_soon(self.settle, doc.key)

    def settle(self, key: str) -> None:
        """Run the word diff waiting for the document ``key``, if any."""
        edit = self._waiting.pop(key, None)
        review = self._docs.get(key)
        if edit is None or review is None:
            return
        added = self._merge(key, review, edit.tx, edit.before, edit.spans)
        if added:
            self._pusher.notice(key, edit.tx.actor.label, edit.tx.tool or "", added)
        else:  # its revision joined the backlog in advance: nothing of it is pending, so it is reviewed
            self._backlog.settle(key, review.uncarried([edit.tx.state.revision]))
        self._pusher.due.add(key)
        self._saver.now(key)

    # --- following the session ------------------------------------------------------------------------
    def opened(self, doc: Document) -> None:
        """A tab shows ``doc`` (``Session.add_tab``): a document seen again takes its pending changes back
        when its text is the one they apply to, else they are superseded (the file changed meanwhile)."""
        self.settle(doc.key)
        review = self._docs.get(doc.key)
        if review is None:
            self._docs[doc.key] = DocReview(doc.state)
            return
        if review.basis is not None and review.basis.revision == doc.state.revision:
            return  # another tab of the same document
        expected = review.basis.content_hash if review.basis is not None else review.hash
        review.basis = doc.state
        if review.changes and expected != doc.state.content_hash:
            self._end(doc.key, review, list(review.changes), "superseded")
            self._saver.now(doc.key)
        self._pusher.due.add(doc.key)
        if review.changes:
            self._background(self.push(doc))

    async def agent_opened(self, doc: Document) -> None:
        """An agent opened ``doc`` (:meth:`Backlog.agent_opened`)."""
        await self._backlog.agent_opened(doc)

    def attached(self, window: Window) -> None:
        """A page attached to ``window``: it gets the review of every document it shows that has one."""
        for doc in {id(t.doc): t.doc for t in window.tabs}.values():
            if self.count(doc):
                self._background(self.push(doc))

    def rekey(self, old: str, new: str) -> None:
        """A document moved (Save as): its review moves with it."""
        self.settle(old)
        review = self._docs.pop(old, None)
        if review is not None:
            self._docs[new] = review
            self._saver.rekey(old, new)
        self._backlog.rekey(old, new)

    def observe(self, tx: Transaction) -> None:
        """Every change of a document's text, as it applies: pending ranges move; an agent's edit adds its
        changes. Runs before anything else on the loop (an observer of ``Session.apply``). An agent edit's word
        diff waits (see the module); any other change first settles what waits."""
        doc = tx.doc
        self.settle(doc.key)
        review = self._docs.setdefault(doc.key, DocReview(None))
        before = review.basis
        review.basis = tx.state
        if before is None:  # never happens for a document a tab shows (``opened`` saw it first)
            if review.changes:
                self._end(doc.key, review, list(review.changes), "superseded")
                self._saver.now(doc.key)
            return
        had = bool(review.changes)
        spans = shown_spans(before, tx.state)
        if tx.origin == "agent" and tx.tool is not None and self.enabled and spans:
            self._waiting[doc.key] = _Waiting(tx, before, spans)
            self._backlog.saw_agent_edit(tx.state.revision, before, True)
            self._pusher.due.add(doc.key)
        elif tx.origin == "agent" and tx.tool is not None and self.enabled:  # nothing the person sees changed
            added = self._merge(doc.key, review, tx, before, spans)
            self._backlog.saw_agent_edit(tx.state.revision, before, added > 0)
            if added:
                self._pusher.notice(doc.key, tx.actor.label, tx.tool, added)
                self._saver.now(doc.key)
        elif tx.origin == "revert" and review.changes:
            self._merge(doc.key, review, tx, before, spans)
            self._saver.now(doc.key)
        elif review.changes:
            gone = review.move(spans)
            if gone:
                self._end(doc.key, review, gone, "superseded" if tx.origin == "disk" else "edited")
                self._saver.now(doc.key)
            elif spans:
                self._saver.soon(doc.key)
        if had or review.changes:
            self._pusher.due.add(doc.key)

    def _merge(self, key: str, review: DocReview, tx: Transaction, before: DocState, spans: Spans) -> int:
        made, undone = review.merge(tx, before, spans)
        self._backlog.settle(key, review.uncarried(undone))
        return made

    def _end(self, key: str, review: DocReview, changes: Sequence[Change], judgement: Judgement) -> None:
        """``changes`` are judged: they leave the pending set, and the revisions they alone carried are reviewed."""
        review.end(changes, judgement)
        self._backlog.settle(key, review.uncarried(list(chain.from_iterable(c.revisions for c in changes))))
        self._tell(key, changes, judgement)

    def _tell(self, key: str, changes: Sequence[Change], judgement: Judgement) -> None:
        doc = self.session.docs.get(key)
        if doc is not None and changes:
            for listener in self.judged_listeners:
                listener(doc, changes, judgement)

    async def follow(self, tx: Transaction) -> None:
        """After the transaction: its revisions in the history (:meth:`Backlog.follow`)."""
        await self._backlog.follow(tx)

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
        self.settle(doc.key)
        picked = self._picked(doc, ids)
        if picked:
            review = self._docs[doc.key]
            self._end(doc.key, review, picked, "accepted")
            await self._saver.save(doc.key)
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
        self._pusher.due.add(doc.key)  # the pages hear of it after the restored text, even with nothing left
        before = doc.state
        state = splice_state(before, reject_spans(picked), doc.line_ending)
        await self.session.apply(Transaction(doc, state, "person", actor))
        snapshot = self.history.snapshot(doc.key, doc.path, "reject", state.revision, state.text, tool="review.reject")
        self._background(snapshot)
        await self._saver.save(doc.key)
        return Rejection(len(picked), before, state)

    async def mark_reviewed(self, doc: Document, revision: str | None) -> int:
        """ "Mark reviewed": accept every pending change (or, for one AI revision, its part in them: a change that
        carries other revisions too stays for them), and mark the AI revisions reviewed; return how many
        revisions changed."""
        self.settle(doc.key)
        review = self._docs.get(doc.key)
        if review is not None and review.changes:
            if revision is None:
                accepted = list(review.changes)
            else:
                carrying = [c for c in review.changes if revision in c.revisions]
                accepted = [c for c in carrying if c.revisions == (revision,)]
            review.end(accepted, "accepted")
            self._tell(doc.key, accepted, "accepted")
            if revision is not None:
                review.changes = [
                    replace(c, revisions=tuple(r for r in c.revisions if r != revision)) for c in review.changes
                ]
            await self._saver.save(doc.key)
            await self.push(doc)
            self.session.changed()  # the tabs' reviewCount
        return await self._backlog.mark_reviewed(doc, revision)

    # --- telling the pages --------------------------------------------------------------------------------
    def follows(self, doc: Document) -> bool:
        """Whether the pages get a ``review`` event right after the document's next ``doc`` event."""
        return doc.key in self._pusher.due or doc.key in self._waiting

    async def after_doc_push(self, doc: Document) -> None:
        """The pages got the document's new revision (``Session``): now its review, when it changed."""
        self.settle(doc.key)
        await self._pusher.after_doc_push(doc)

    async def push(self, doc: Document) -> None:
        """A ``review`` event to every page of a window showing ``doc``."""
        self.settle(doc.key)
        await self._pusher.push(doc)
