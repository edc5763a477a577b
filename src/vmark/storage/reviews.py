"""The review of agent changes on disk: every document's pending changes, and the text they apply to.

A document's row names the text its pending changes' ranges apply to by content hash (revisions are per
run of the app): a document opened again, after a restart too, takes its changes back only when its text
is that text. Judged changes stay as rows (state ``accepted``, ``rejected``, ``edited``, ``superseded``).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
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
    agent TEXT
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

    async def start(self) -> None:
        await self._db.start()
        await self._db.run(_add_agent_column)

    def close(self) -> None:
        self._db.close()

    async def load(self) -> dict[str, StoredReview]:
        """Every document with pending changes (or a recorded text), its pending changes in range order."""

        def query(c: sqlite3.Connection) -> dict[str, StoredReview]:
            reviews = {doc: StoredReview(hash_) for doc, hash_ in c.execute("SELECT doc, hash FROM review_docs")}
            rows = c.execute(
                "SELECT id, doc, revisions, principal, tool, start, end, old, at, agent FROM review_changes"
                " WHERE state='pending' ORDER BY doc, start, end"
            )
            for change_id, doc, revisions, principal, tool, start, end, old, at, agent in rows:
                review = reviews.get(doc)
                if review is not None:
                    kept = (principal, tool, start, end, old, at, agent or "")
                    review.changes.append(Change(change_id, tuple(json.loads(revisions)), *kept))
            return reviews

        return await self._db.run(query)

    async def save(
        self, doc: str, text_hash: str, pending: Sequence[Change], judged: Sequence[tuple[str, Judgement]]
    ) -> None:
        """The document's pending set as it is now (it replaces the stored one), and what was judged."""
        now = time.time()

        def write(c: sqlite3.Connection) -> None:
            c.execute("BEGIN")
            try:
                c.execute("INSERT OR REPLACE INTO review_docs (doc, hash) VALUES (?,?)", (doc, text_hash))
                c.executemany(
                    "UPDATE review_changes SET state=?, judged=? WHERE id=? AND state='pending'",
                    [(state, now, change_id) for change_id, state in judged],
                )
                c.execute("DELETE FROM review_changes WHERE doc=? AND state='pending'", (doc,))
                c.executemany(
                    "INSERT OR REPLACE INTO review_changes"
                    " (id, doc, state, revisions, principal, tool, start, end, old, at, agent)"
                    " VALUES (?,?,'pending',?,?,?,?,?,?,?,?)",
                    [(c.id, doc, json.dumps(list(c.revisions)), *_columns(c)) for c in pending],
                )
                c.execute("COMMIT")
            except BaseException:
                c.execute("ROLLBACK")
                raise

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

        await self._db.run(move)


def _columns(change: Change) -> tuple[str, str, int, int, str, float, str]:
    return change.principal, change.tool, change.start, change.end, change.old, change.at, change.agent


def _add_agent_column(c: sqlite3.Connection) -> None:
    """A review store from before changes named their agent as the person sees it gets the column."""
    columns = {row[1] for row in c.execute("PRAGMA table_info(review_changes)")}
    if "agent" not in columns:
        c.execute("ALTER TABLE review_changes ADD COLUMN agent TEXT")
