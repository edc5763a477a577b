"""The history's side of the review: an agent edit's revisions in the history, and the backlog of AI
revisions waiting for the person (``REVIEW_BACKLOG_FULL`` counts them). An AI revision is reviewed once none
of its changes is pending."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.document import DocState
from ...core.model import Document
from ...core.transaction import Transaction
from ...storage.history import History, SnapshotKind


@dataclass(frozen=True)
class _AgentEdit:
    """What ``follow`` needs of an agent transaction the review saw apply: the text before it, and whether it
    left anything to review."""

    before: DocState
    reviewable: bool


class Backlog:
    def __init__(self, history: History, background: Callable[[Coroutine[Any, Any, Any]], None]) -> None:
        self.history = history
        self._background = background
        #: per document key: how many of its AI revisions are unreviewed (read from the history once)
        self._unreviewed: dict[str, int] = {}
        self._agent_edits: dict[str, _AgentEdit] = {}

    async def unreviewed(self, doc: Document) -> int:
        if doc.key not in self._unreviewed:
            self._unreviewed[doc.key] = await self.history.unreviewed(doc.key)
        return self._unreviewed[doc.key]

    def saw_agent_edit(self, revision: str, before: DocState, reviewable: bool) -> None:
        """An agent's transaction applied (``Review.observe``): :meth:`follow` records it."""
        self._agent_edits[revision] = _AgentEdit(before, reviewable)

    def settle(self, key: str, done: Sequence[str]) -> None:
        """``done``: AI revisions that no pending change carries any more (:meth:`DocReview.uncarried`) are
        reviewed."""
        if not done:
            return
        if key in self._unreviewed:
            self._unreviewed[key] = max(0, self._unreviewed[key] - len(done))
        for revision in done:
            self._background(self.history.mark_reviewed(key, revision))

    async def mark_reviewed(self, doc: Document, revision: str | None) -> int:
        """The person's "Mark reviewed" (every AI revision, or one): how many revisions changed."""
        changed = await self.history.mark_reviewed(doc.key, revision)
        self._unreviewed.pop(doc.key, None)
        return changed

    def rekey(self, old: str, new: str) -> None:
        """A document moved (Save as): its backlog moves with it."""
        self._background(self.history.move_ai_revisions(old, new))
        count = self._unreviewed.pop(old, None)
        if count is not None:
            self._unreviewed[new] = count

    async def agent_opened(self, doc: Document) -> None:
        """An agent opened ``doc``: a document without history gets its text on disk as the first entry, so
        the agent's first revision has a "before" (when the text is not the file's, the first revision's
        entry comes after the person's unsaved text instead: see :meth:`follow`)."""
        if doc.path is not None and not doc.dirty and await self.history.last_revision(doc.key) is None:
            await self.history.snapshot(doc.key, doc.path, "disk", doc.state.revision, doc.state.text)

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
            principal, client = tx.actor.principal, tx.actor.client_name
            self._background(
                self.history.snapshot(
                    doc.key, doc.path, "mcp", state.revision, state.text, principal, tool=tx.tool, client=client
                )
            )
        elif tx.origin == "revert":
            await self.history.snapshot(doc.key, doc.path, "revert", state.revision, state.text)
