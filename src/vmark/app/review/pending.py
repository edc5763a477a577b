"""A document's pending changes as the app keeps them, and how one transaction moves them: values and their
bookkeeping only (saving, the backlog and the pages are the review service's, from what these return).

:mod:`vmark.core.review` says how a range moves; :mod:`vmark.core.review_merge` how an agent's edit (or a
revert) merges with the pending changes it meets.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain

from ...core.changes import diff
from ...core.document import DocState
from ...core.ids import new_id
from ...core.review import Change, Judgement, SpanIndex, map_change
from ...core.review_merge import Author, merge_edit
from ...core.spans import Spans
from ...core.transaction import Transaction


@dataclass
class DocReview:
    """One document's review: the state its ranges apply to (None: only its hash is known, from the store)."""

    basis: DocState | None
    hash: str | None = None
    changes: list[Change] = field(default_factory=list)
    #: judged since the last save: (id, judgement)
    judged: list[tuple[str, Judgement]] = field(default_factory=list)

    def pending(self) -> list[Change]:
        """The pending changes in range order."""
        return sorted(self.changes, key=lambda c: (c.start, c.end))

    def uncarried(self, revisions: Sequence[str]) -> list[str]:
        """Those of ``revisions`` (once each, in order) that no pending change carries any more. Usually none
        are asked about, or the first changes carry them all: the pending changes' revisions are not gathered
        whole (a run of N unreviewed rewrites carries N)."""
        left = set(revisions)
        for change in self.changes:
            if not left:
                return []
            left.difference_update(change.revisions)
        return [r for r in dict.fromkeys(revisions) if r in left]

    def end(self, changes: Sequence[Change], judgement: Judgement) -> None:
        """``changes`` leave the pending set, judged so (saved with it next time)."""
        ids = {c.id for c in changes}
        self.changes = [c for c in self.changes if c.id not in ids]
        self.judged += [(c.id, judgement) for c in changes]

    def merge(self, tx: Transaction, before: DocState, spans: Spans) -> tuple[int, list[str]]:
        """An agent's edit (or a revert) over the pending changes (:func:`merge_edit`): how many changes the
        agent's edit made, and the revisions of the changes it undid (to settle once the new set is in: a new
        change may carry them on)."""
        author = None
        if tx.origin == "agent":
            author = Author(tx.state.revision, tx.actor.requester, tx.tool or "", time.time(), tx.actor.label)
        merged = merge_edit(self.changes, before.shown, tx.state.shown, spans, author, lambda: new_id("rc"))
        self.end(merged.merged, "merged")
        self.end(merged.undone, "merged" if author else "edited")
        self.changes = merged.changes
        return merged.made, list(chain.from_iterable(c.revisions for c in merged.undone))

    def move(self, spans: Spans) -> list[Change]:
        """Move the pending ranges through someone else's edit; returns the changes it took away (still to be
        ended: the edit judged them)."""
        kept: list[Change] = []
        gone: list[Change] = []
        moves = SpanIndex(spans)
        for change in self.changes:
            moved = map_change(change, moves)
            if moved is None:
                gone.append(change)
            else:
                kept.append(moved)
        self.changes = kept
        return gone


def shown_spans(before: DocState, after: DocState) -> Spans:
    """The change from ``before`` to ``after`` as spans of the shown text: the state's own when it came
    from ``before``, else the one span that differs."""
    change = after.change
    if change is not None and change.parent == before.revision:
        return change.shown
    span = diff(before.shown, after.shown)
    return () if span is None else (span,)
