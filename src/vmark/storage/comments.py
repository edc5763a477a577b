"""The comments store: threads, replies and agents' idempotence records in ``comments.db``.

Keyed by document identity (the canonical path; an untitled document by its key), so threads
survive restarts, and rekeyed when a document moves (Save as). Every write goes through one FIFO
worker, so the store always ends up as the app's in-memory threads were, in order. Deleted
threads stay (a revision's history still names them); the app lists only the live ones.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from pathlib import Path

from ..core.comments import Done, Reply, Thread
from .sqlite_worker import SqliteWorker

_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    key TEXT PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS threads (
    id TEXT PRIMARY KEY,
    doc TEXT NOT NULL,
    seq INTEGER NOT NULL,
    quote TEXT NOT NULL,
    body TEXT NOT NULL,
    author TEXT NOT NULL,
    created REAL NOT NULL,
    state TEXT NOT NULL,
    gen TEXT NOT NULL,
    anchor_from INTEGER,
    anchor_to INTEGER,
    hint INTEGER NOT NULL,
    changes INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS threads_doc ON threads (doc, seq);
CREATE TABLE IF NOT EXISTS replies (
    id TEXT PRIMARY KEY,
    thread TEXT NOT NULL,
    seq INTEGER NOT NULL,
    author TEXT NOT NULL,
    body TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS replies_thread ON replies (thread, seq);
CREATE TABLE IF NOT EXISTS done (
    thread TEXT NOT NULL,
    basis TEXT NOT NULL,
    op TEXT NOT NULL,
    body TEXT NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (thread, basis)
);
"""

_THREAD_COLUMNS = "id, doc, seq, quote, body, author, created, state, gen, anchor_from, anchor_to, hint, changes"


class CommentStore:
    def __init__(self, path: Path) -> None:
        self._db = SqliteWorker(path, _SCHEMA, synchronous="FULL")

    async def start(self) -> None:
        await self._db.start()

    def close(self) -> None:
        self._db.close()

    async def load(self) -> tuple[list[Thread], dict[str, str]]:
        """Every thread (oldest first, deleted ones too) and every document's uid."""
        return await self._db.run(_load)

    async def save_uid(self, key: str, uid: str) -> None:
        """A document's uid: cursors are bound to it, and it moves with the document."""
        await self._db.run(lambda c: c.execute("INSERT OR IGNORE INTO docs (key, uid) VALUES (?, ?)", (key, uid)))

    async def add_thread(self, thread: Thread) -> None:
        await self._db.run(functools.partial(_save_thread, thread=thread, insert=True))

    async def save_thread(self, thread: Thread, reply: Reply | None = None, basis: str | None = None) -> None:
        """Store the thread's fields, plus a new ``reply`` and the idempotence record under ``basis``."""
        await self._db.run(functools.partial(_save_change, thread=thread, reply=reply, basis=basis))

    async def save_anchors(self, threads: list[Thread]) -> None:
        rows = [(*(t.anchor or (None, None)), t.hint, t.id) for t in threads]
        await self._db.run(functools.partial(_save_anchors, rows=rows))

    async def rekey(self, old: str, new: str) -> None:
        await self._db.run(functools.partial(_rekey, old=old, new=new))


def _load(conn: sqlite3.Connection) -> tuple[list[Thread], dict[str, str]]:
    threads: dict[str, Thread] = {}
    for row in conn.execute(f"SELECT {_THREAD_COLUMNS} FROM threads ORDER BY seq"):
        anchor = (row[9], row[10]) if row[9] is not None else None
        threads[row[0]] = Thread(
            id=row[0],
            doc=row[1],
            seq=row[2],
            quote=row[3],
            body=row[4],
            author=row[5],
            created=row[6],
            state=row[7],
            gen=row[8],
            anchor=anchor,
            hint=row[11],
            changes=row[12],
        )
    for tid, rid, author, body, created in conn.execute(
        "SELECT thread, id, author, body, created FROM replies ORDER BY thread, seq"
    ):
        if tid in threads:
            threads[tid].replies.append(Reply(rid, author, body, created))
    for tid, basis, op, body, result in conn.execute("SELECT thread, basis, op, body, result FROM done"):
        if tid in threads:
            threads[tid].done[basis] = Done(op, body, json.loads(result))
    uids = dict(conn.execute("SELECT key, uid FROM docs").fetchall())
    return list(threads.values()), uids


def _thread_row(t: Thread) -> tuple[object, ...]:
    start, end = t.anchor or (None, None)
    return (t.id, t.doc, t.seq, t.quote, t.body, t.author, t.created, t.state, t.gen, start, end, t.hint, t.changes)


def _save_thread(conn: sqlite3.Connection, thread: Thread, insert: bool) -> None:
    verb = "INSERT" if insert else "REPLACE"
    conn.execute(f"{verb} INTO threads ({_THREAD_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", _thread_row(thread))


def _save_change(conn: sqlite3.Connection, thread: Thread, reply: Reply | None, basis: str | None) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        _save_thread(conn, thread, insert=False)
        if reply is not None:
            conn.execute(
                "INSERT INTO replies (id, thread, seq, author, body, created) VALUES (?,?,?,?,?,?)",
                (reply.id, thread.id, len(thread.replies), reply.author, reply.body, reply.created),
            )
        if basis is not None:
            done = thread.done[basis]
            conn.execute(
                "INSERT INTO done (thread, basis, op, body, result) VALUES (?,?,?,?,?)",
                (thread.id, basis, done.op, done.body, json.dumps(done.result)),
            )
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _save_anchors(conn: sqlite3.Connection, rows: list[tuple[object, ...]]) -> None:
    conn.execute("BEGIN IMMEDIATE")  # one transaction, one fsync, however many threads moved
    try:
        conn.executemany("UPDATE threads SET anchor_from=?, anchor_to=?, hint=? WHERE id=?", rows)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _rekey(conn: sqlite3.Connection, old: str, new: str) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("UPDATE threads SET doc=? WHERE doc=?", (new, old))
        if conn.execute("SELECT 1 FROM docs WHERE key=?", (new,)).fetchone() is None:
            conn.execute("UPDATE docs SET key=? WHERE key=?", (new, old))
        else:  # the target had threads of its own: its uid stays
            conn.execute("DELETE FROM docs WHERE key=?", (old,))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
