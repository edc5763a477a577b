"""The review of agent changes on disk: every document's pending changes, and the text they apply to.

A document's row names the text its pending changes' ranges apply to by content hash (revisions are per
run of the app): a document opened again, after a restart too, takes its changes back only when its text
is that text. Judged changes stay as rows (state ``accepted``, ``rejected``, ``edited``, ``superseded``).

An agent rewriting its own pending change again and again makes each time a new change that carries every
revision of the one it merged: stored whole, a run of N unreviewed rewrites would write N revisions per save
and N * N / 2 in all. A row names instead the earlier change its revisions continue (``base``: the one it
merged, kept as a judged row) and holds only the revisions after those; loading follows the chain. A save
writes only what changed since the store's last save of that document in this process (the first one
rewrites the document's pending rows whole).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

from ..core.review import Change, Judgement
from .sqlite_worker import Lane, SqliteWorker

_SCHEMA = """
CREATE TABLE IF NOT EXISTS review_docs (
    doc TEXT PRIMARY KEY,
    hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS review_changes (
    id TEXT PRIMARY KEY,
    doc TEXT NOT NULL,
    state TEXT NOT NULL,
    revisions TEXT NOT NULL,
    principal TEXT NOT NULL,
    tool TEXT NOT NULL,
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    old TEXT NOT NULL,
    at REAL NOT NULL,
    judged REAL,
    agent TEXT,
    base TEXT
);
CREATE INDEX IF NOT EXISTS review_changes_doc ON review_changes (doc, state);
"""


@dataclass
class StoredReview:
    """One document's review as stored: the hash of the text its pending changes apply to."""

    hash: str
    changes: list[Change] = field(default_factory=list)


class ReviewStore:
    def __init__(self, path: Path, *, lane: Lane | None = None) -> None:
        self._db = SqliteWorker(path, _SCHEMA, synchronous="NORMAL", lane=lane)
        #: per document: its pending changes as this process last saved them, each with the row's base (only
        #: read and written on the worker's thread, in the order of the calls)
        self._saved: dict[str, dict[str, _Saved]] = {}

    async def start(self) -> None:
        await self._db.start()
        await self._db.run(_add_columns)

    def close(self) -> None:
        self._db.close()

    async def load(self) -> dict[str, StoredReview]:
        """Every document with pending changes (or a recorded text), its pending changes in range order."""

        def query(c: sqlite3.Connection) -> dict[str, StoredReview]:
            reviews = {doc: StoredReview(hash_) for doc, hash_ in c.execute("SELECT doc, hash FROM review_docs")}
            rows = c.execute(
                "SELECT id, doc, revisions, base, principal, tool, start, end, old, at, agent FROM review_changes"
                " WHERE state='pending' ORDER BY doc, start, end"
            ).fetchall()
            ancestors = _ancestors(c)
            for change_id, doc, revisions, base, principal, tool, start, end, old, at, agent in rows:
                review = reviews.get(doc)
                if review is not None:
                    kept = (principal, tool, start, end, old, at, agent or "")
                    review.changes.append(Change(change_id, _revisions(ancestors, revisions, base), *kept))
            return reviews

        return await self._db.run(query)

    async def save(
        self, doc: str, text_hash: str, pending: Sequence[Change], judged: Sequence[tuple[str, Judgement]]
    ) -> None:
        """The document's pending set as it is now (it replaces the stored one), and what was judged."""
        now = time.time()

        def write(c: sqlite3.Connection) -> None:
            before = self._saved.pop(doc, None)  # until this commits: a failed save leaves a whole rewrite next
            saved = _bases(pending, before, {change_id for change_id, _ in judged})
            c.execute("BEGIN")
            try:
                c.execute("INSERT OR REPLACE INTO review_docs (doc, hash) VALUES (?,?)", (doc, text_hash))
                c.executemany(
                    "UPDATE review_changes SET state=?, judged=? WHERE id=? AND state='pending'",
                    [(state, now, change_id) for change_id, state in judged],
                )
                if before is None:
                    c.execute("DELETE FROM review_changes WHERE doc=? AND state='pending'", (doc,))
                else:  # what left the pending set unjudged (judged rows are no longer pending: untouched)
                    c.executemany(
                        "DELETE FROM review_changes WHERE id=? AND state='pending'",
                        [(change_id,) for change_id in before if change_id not in saved],
                    )
                c.executemany(
                    "INSERT OR REPLACE INTO review_changes"
                    " (id, doc, state, revisions, base, principal, tool, start, end, old, at, agent)"
                    " VALUES (?,?,'pending',?,?,?,?,?,?,?,?,?)",
                    [(row.change.id, doc, *row.stored(), *_columns(row.change)) for row in _changed(saved, before)],
                )
                c.execute("COMMIT")
            except BaseException:
                c.execute("ROLLBACK")
                raise
            self._saved[doc] = saved

        await self._db.run(write)

    async def judged(self, doc: str) -> dict[str, str]:
        """Every judged change of ``doc``: id -> how it was judged (for tests and the CLI's record)."""

        def query(c: sqlite3.Connection) -> dict[str, str]:
            rows = c.execute("SELECT id, state FROM review_changes WHERE doc=? AND state!='pending'", (doc,))
            return dict(rows.fetchall())

        return await self._db.run(query)

    async def rekey(self, old: str, new: str) -> None:
        def move(c: sqlite3.Connection) -> None:
            c.execute("DELETE FROM review_docs WHERE doc=?", (new,))
            c.execute("DELETE FROM review_changes WHERE doc=? AND state='pending'", (new,))  # of a file gone
            c.execute("UPDATE review_docs SET doc=? WHERE doc=?", (new, old))
            c.execute("UPDATE review_changes SET doc=? WHERE doc=?", (new, old))
            self._saved.pop(new, None)
            saved = self._saved.pop(old, None)
            if saved is not None:
                self._saved[new] = saved

        await self._db.run(move)


@dataclass(frozen=True)
class _Saved:
    """A pending change as saved, and the earlier change whose revisions its own continue: its id and how many
    revisions it has (None: they are all its own)."""

    change: Change
    base: tuple[str, int] | None

    def stored(self) -> tuple[str, str | None]:
        """The row's ``revisions`` (JSON: those after the base's) and ``base``."""
        if self.base is None:
            return json.dumps(list(self.change.revisions)), None
        base_id, base_count = self.base
        return json.dumps(list(self.change.revisions[base_count:])), base_id


def _bases(pending: Sequence[Change], before: dict[str, _Saved] | None, judged: set[str]) -> dict[str, _Saved]:
    """``pending`` as it is to be saved: each change with the row it continues (:func:`_base_of`)."""
    if before is None:
        return {change.id: _Saved(change, None) for change in pending}
    merged = {(len(s.change.revisions), s.change.revisions[-1]): s for k, s in before.items() if k in judged}
    return {change.id: _Saved(change, _base_of(change, before, merged)) for change in pending}


def _base_of(
    change: Change, before: dict[str, _Saved], merged: dict[tuple[int, str], _Saved]
) -> tuple[str, int] | None:
    """The row ``change`` continues: as it continued when saved before (a change moved, or left as it was), else
    a change judged in this save (merged into it: its row stays) that carried all of its revisions but the last.
    A change that merged several is stored whole (rare, and bounded by them)."""
    same = before.get(change.id)
    if same is not None:
        return same.base if same.change.revisions == change.revisions else None
    revisions = change.revisions
    earlier = merged.get((len(revisions) - 1, revisions[-2])) if len(revisions) > 1 else None
    if earlier is None or revisions[:-1] != earlier.change.revisions:
        return None
    return earlier.change.id, len(earlier.change.revisions)


def _changed(saved: dict[str, _Saved], before: dict[str, _Saved] | None) -> Iterable[_Saved]:
    """The rows to write: every one after a whole rewrite, else those new or not as they were."""
    if before is None:
        return saved.values()
    return (row for change_id, row in saved.items() if change_id not in before or not _same(before[change_id], row))


def _same(saved: _Saved, now: _Saved) -> bool:
    return saved.change is now.change or saved.change == now.change


def _ancestors(c: sqlite3.Connection) -> dict[str, tuple[str, str | None]]:
    """Every row some pending row's chain goes through, read once (rows shared by several chains too):
    id -> (its own revisions as stored, its base)."""
    rows = c.execute(
        "WITH RECURSIVE chain(id, revisions, base) AS ("
        " SELECT id, revisions, base FROM review_changes"
        "  WHERE id IN (SELECT base FROM review_changes WHERE state='pending' AND base IS NOT NULL)"
        " UNION"  # not UNION ALL: each row once, and a cycle (never written) would end
        " SELECT r.id, r.revisions, r.base FROM review_changes r JOIN chain ON r.id = chain.base"
        ") SELECT id, revisions, base FROM chain"
    )
    return {row_id: (revisions, base) for row_id, revisions, base in rows}


def _revisions(ancestors: dict[str, tuple[str, str | None]], own: str, base: str | None) -> tuple[str, ...]:
    """A row's revisions: its base's (followed to the first row without one), then its own."""
    parts: list[list[str]] = [json.loads(own)]
    seen: set[str] = set()
    while base is not None and base not in seen:
        seen.add(base)
        row = ancestors.get(base)
        if row is None:  # a base row gone (never deleted while one continues it): what is known
            break
        parts.append(json.loads(row[0]))
        base = row[1]
    return tuple(chain.from_iterable(reversed(parts)))


def _columns(change: Change) -> tuple[str, str, int, int, str, float, str]:
    return change.principal, change.tool, change.start, change.end, change.old, change.at, change.agent


def _add_columns(c: sqlite3.Connection) -> None:
    """A review store from before changes named their agent as the person sees it, or before rows named the
    change they continue, gets the column."""
    columns = {row[1] for row in c.execute("PRAGMA table_info(review_changes)")}
    for column in ("agent", "base"):
        if column not in columns:
            c.execute(f"ALTER TABLE review_changes ADD COLUMN {column} TEXT")
