"""History snapshots per document, and the review backlog of AI revisions.

Kinds: ``manual``, ``auto`` (the person's saves), ``mcp`` (every AI revision, and every save by an AI
client), ``revert``, ``reject`` (the person rejected agent changes), ``disk`` (a document's text on disk before
its first AI revision) and ``edit`` (the person's unsaved text before an AI revision). ``mcp`` snapshots are
never merged with a neighbour or skipped for their size. A save of the revision the history ends with (an AI
revision, a rejection) is that entry (its addresses join it), not a second one with the same text.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from ..protocol.wire_types import SnapshotKind as SnapshotKind  # the history's kinds are the wire's
from ..protocol.wire_types import SnapshotRecord
from .sqlite_worker import Lane, SqliteWorker

_SCHEMA = """
CREATE TABLE IF NOT EXISTS snapshots (
    id INTEGER PRIMARY KEY,
    doc TEXT NOT NULL,
    path TEXT,
    kind TEXT NOT NULL,
    revision TEXT NOT NULL,
    content BLOB NOT NULL,
    time REAL NOT NULL,
    principal TEXT,
    addresses TEXT NOT NULL DEFAULT '[]',
    tool TEXT,
    client TEXT
);
CREATE INDEX IF NOT EXISTS snapshots_doc ON snapshots (doc, id);
CREATE TABLE IF NOT EXISTS ai_revisions (
    doc TEXT NOT NULL,
    revision TEXT NOT NULL,
    time REAL NOT NULL,
    reviewed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (doc, revision)
);
"""


class History:
    def __init__(self, path: Path, *, lane: Lane | None = None) -> None:
        self._db = SqliteWorker(path, _SCHEMA, synchronous="NORMAL", lane=lane)
        #: per document: the revision of its latest snapshot, as of the latest call (writes run in call order)
        self._last: dict[str, str] = {}
        #: per document: (revision, path) of the latest snapshot asked for (see :meth:`ends_with`)
        self._last_at: dict[str, tuple[str, str | None]] = {}

    async def start(self) -> None:
        await self._db.start()
        await self._db.run(_add_columns)

    def close(self) -> None:
        self._db.close()

    def snapshot(
        self,
        doc: str,
        path: str | None,
        kind: SnapshotKind,
        revision: str,
        content: str,
        principal: str | None = None,
        addresses: tuple[str, ...] = (),
        tool: str | None = None,
        client: str | None = None,
    ) -> Coroutine[Any, Any, int]:
        """The snapshot's write (await it, or run it in the background): the history's latest revision is
        ``revision`` from this call on (a save of the revision the history ends with keeps it so too). ``client``
        is the name the agent's MCP client gave itself (shown beside the principal; never an identity)."""
        self._last[doc] = revision
        self._last_at[doc] = (revision, path)

        def insert(c: sqlite3.Connection) -> int:
            last = c.execute(
                "SELECT id, kind, revision, addresses FROM snapshots WHERE doc=? ORDER BY id DESC LIMIT 1", (doc,)
            )
            row = last.fetchone()
            if row is not None and kind in SAVE_KINDS and row[2] == revision:
                joined = list(dict.fromkeys([*json.loads(row[3]), *addresses]))
                c.execute("UPDATE snapshots SET addresses=?, path=? WHERE id=?", (json.dumps(joined), path, row[0]))
                return int(row[0])
            if kind == "auto" and row is not None and row[1] == "auto":
                c.execute("DELETE FROM snapshots WHERE id=?", (row[0],))  # auto saves merge
            cur = c.execute(
                "INSERT INTO snapshots (doc, path, kind, revision, content, time, principal, addresses, tool, client)"
                " VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    doc,
                    path,
                    kind,
                    revision,
                    content.encode("utf-8", "surrogatepass"),
                    time.time(),
                    principal,
                    json.dumps(list(addresses)),
                    tool,
                    client,
                ),
            )
            return int(cur.lastrowid or 0)

        return self._db.run(insert)

    def ends_with(self, doc: str, revision: str, path: str | None) -> bool:
        """The latest snapshot asked for ``doc`` is ``revision`` at ``path``: a save snapshot of it without
        addresses would change nothing (it joins that row), so it need not be asked for."""
        return self._last_at.get(doc) == (revision, path)

    async def snapshots(self, doc: str, content: bool = True) -> list[SnapshotRecord]:
        """The document's snapshots, oldest first; without ``content`` the texts are left out (a listing)."""
        columns = _COLUMNS if content else _LISTING_COLUMNS

        def query(c: sqlite3.Connection) -> list[SnapshotRecord]:
            rows = c.execute(f"SELECT {columns} FROM snapshots WHERE doc=? ORDER BY id", (doc,)).fetchall()
            return [_snapshot(r, content) for r in rows]

        return await self._db.run(query)

    async def last_revision(self, doc: str) -> str | None:
        """The revision of the document's latest snapshot (None: it has none), without waiting for the writes
        queued before (an agent's answer asks it)."""
        if doc in self._last:
            return self._last[doc]

        def query(c: sqlite3.Connection) -> str | None:
            row = c.execute("SELECT revision FROM snapshots WHERE doc=? ORDER BY id DESC LIMIT 1", (doc,)).fetchone()
            return None if row is None else str(row[0])

        revision = await self._db.run(query)
        if revision is not None:
            self._last.setdefault(doc, revision)  # unless a snapshot was asked for meanwhile (it is later)
        return self._last.get(doc, revision)

    async def snapshot_of(self, doc: str, snapshot_id: int) -> SnapshotRecord | None:
        """One snapshot of ``doc`` with its text, or None (another document's id is not this one's)."""

        def query(c: sqlite3.Connection) -> SnapshotRecord | None:
            row = c.execute(f"SELECT {_COLUMNS} FROM snapshots WHERE doc=? AND id=?", (doc, snapshot_id)).fetchone()
            return None if row is None else _snapshot(row, True)

        return await self._db.run(query)

    async def add_ai_revision(self, doc: str, revision: str) -> None:
        await self._db.run(
            lambda c: c.execute(
                "INSERT OR IGNORE INTO ai_revisions (doc, revision, time) VALUES (?,?,?)",
                (doc, revision, time.time()),
            )
        )

    async def unreviewed(self, doc: str) -> int:
        def count(c: sqlite3.Connection) -> int:
            return int(c.execute("SELECT COUNT(*) FROM ai_revisions WHERE doc=? AND reviewed=0", (doc,)).fetchone()[0])

        return await self._db.run(count)

    async def unreviewed_after(self, doc: str, snapshot_id: int) -> list[str]:
        """The unreviewed AI revisions of ``doc`` made after snapshot ``snapshot_id`` was taken: a revert to
        that snapshot undoes them. (Both rows are written through this one FIFO worker, so the row of a
        revision saved as that very snapshot is never later than the snapshot.)"""

        def query(c: sqlite3.Connection) -> list[str]:
            rows = c.execute(
                "SELECT revision FROM ai_revisions WHERE doc=? AND reviewed=0"
                " AND time > (SELECT time FROM snapshots WHERE doc=? AND id=?) ORDER BY time",
                (doc, doc, snapshot_id),
            ).fetchall()
            return [r[0] for r in rows]

        return await self._db.run(query)

    async def move_ai_revisions(self, old: str, new: str) -> None:
        """A document moved (Save as): its AI revisions are the new path's backlog (its snapshots stay: the
        new file's history starts with its save)."""
        await self._db.run(lambda c: c.execute("UPDATE OR REPLACE ai_revisions SET doc=? WHERE doc=?", (new, old)))

    async def mark_reviewed(self, doc: str, revision: str | None = None) -> int:
        """Mark one AI revision (or all of them) reviewed; return how many changed."""

        def update(c: sqlite3.Connection) -> int:
            if revision is None:
                cur = c.execute("UPDATE ai_revisions SET reviewed=1 WHERE doc=? AND reviewed=0", (doc,))
            else:
                cur = c.execute("UPDATE ai_revisions SET reviewed=1 WHERE doc=? AND revision=?", (doc, revision))
            return cur.rowcount

        return await self._db.run(update)


#: the kinds a save takes: saving the revision the history ends with adds no entry (its addresses join that one)
SAVE_KINDS = ("manual", "auto", "mcp")

_COLUMNS = "id, path, kind, revision, content, time, principal, addresses, tool, client"
#: the same row shape without reading the texts
_LISTING_COLUMNS = "id, path, kind, revision, NULL, time, principal, addresses, tool, client"


def _add_columns(c: sqlite3.Connection) -> None:
    """A history from before snapshots named their tool (or their agent's client) gets the column (its old rows
    have none)."""
    columns = {row[1] for row in c.execute("PRAGMA table_info(snapshots)")}
    for column in ("tool", "client"):
        if column not in columns:
            c.execute(f"ALTER TABLE snapshots ADD COLUMN {column} TEXT")


def _snapshot(row: tuple[Any, ...], content: bool) -> SnapshotRecord:
    snap: SnapshotRecord = {
        "id": row[0],
        "path": row[1],
        "kind": row[2],
        "revision": row[3],
        "time": row[5],
        "principal": row[6],
        "addresses": json.loads(row[7]),
        "tool": row[8],
        "client": row[9],
    }
    if content:
        snap["content"] = bytes(row[4]).decode("utf-8", "surrogatepass")
    return snap
