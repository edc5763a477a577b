"""The agent-edit journal: every agent change is recorded durably before it applies.

SQLite in WAL mode with ``synchronous=FULL``. An entry keeps who changed what, the
revisions and content hashes before and after, the full before-text (so the change
can be undone) and the comment ids it ``addresses``.

Tests inject a :class:`JournalFault` at construction (``Journal(path, fault)``) and set it later, so every
journal refusal of the reference is reachable: ``slow:SECONDS``, ``transient:N``, ``reject:N``,
``unavailable``; and ``hold:N`` stops the journal between a group commit of at least N entries and its
answers (the crash tests kill the app there). A person's app has none: its journal never looks for one.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import sqlite3
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .sqlite_worker import SqliteWorker

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    time REAL NOT NULL,
    tool TEXT NOT NULL,
    principal TEXT,
    tab TEXT,
    doc TEXT NOT NULL,
    file TEXT,
    rev_before TEXT,
    rev_after TEXT,
    hash_before TEXT,
    hash_after TEXT,
    before_text BLOB,
    before_patch TEXT,
    addresses TEXT NOT NULL DEFAULT '[]',
    state TEXT NOT NULL DEFAULT 'recorded'
);
CREATE INDEX IF NOT EXISTS entries_doc ON entries (doc, id);
"""


class JournalError(Exception):
    pass


class JournalUnavailable(JournalError):
    """Not running, or did not answer in time: refuse the write."""


class JournalTransient(JournalError):
    """Could not be saved yet: apply, answer ``durable: false``, retry in the background."""


class JournalRejected(JournalError):
    """Rejected outright: the write stays applied and is logged as unrecorded."""


@dataclass(frozen=True)
class BeforePatch:
    at: int
    length: int
    removed: str

    def restore(self, after: str) -> str:
        return after[: self.at] + self.removed + after[self.at + self.length :]


@dataclass(frozen=True)
class JournalEntry:
    tool: str
    doc: str
    principal: str | None = None
    tab: str | None = None
    file: str | None = None
    rev_before: str | None = None
    rev_after: str | None = None
    hash_before: str | None = None
    hash_after: str | None = None
    before_text: str | None = None
    #: instead of ``before_text`` when the change replaced one span: the after-text with
    #: ``[at, at + length)`` replaced by ``removed`` is the before-text (``hash_before`` checks it)
    before_patch: BeforePatch | None = None
    addresses: tuple[str, ...] = ()
    time: float = field(default_factory=time.time)


class JournalFault:
    """A fault the tests inject into a journal; ``set`` changes it (``none`` clears it)."""

    def __init__(self, spec: str | None = None) -> None:
        self.kind, self.value = "none", 0.0
        self.set(spec)

    def set(self, spec: str | None) -> None:
        if not spec or spec == "none":
            self.kind, self.value = "none", 0.0
            return
        kind, _, value = spec.partition(":")
        if kind not in ("slow", "transient", "reject", "unavailable", "hold"):
            raise ValueError(f"unknown journal fault {spec!r}")
        self.kind, self.value = kind, float(value or 0)

    def take(self, kind: str) -> bool:
        """One of the counted failures of ``kind`` happens now."""
        if self.kind != kind or self.value < 1:
            return False
        self.value -= 1
        return True

    def holds(self, batch: int) -> bool:
        """``hold:N``: a committed batch of ``batch`` entries is the one never answered (once)."""
        if self.kind != "hold" or batch < self.value:
            return False
        self.kind, self.value = "none", 0.0
        return True


class Journal:
    def __init__(self, path: Path, fault: JournalFault | None = None) -> None:
        self._db = SqliteWorker(path, _SCHEMA, synchronous="FULL")
        #: tests only (None in a person's app)
        self._fault = fault
        self._running = False
        self._pending: list[JournalEntry] = []
        self._batch: list[tuple[JournalEntry, asyncio.Future[int]]] = []
        self._flusher: asyncio.Task[None] | None = None
        #: marks of entries whose callers gave up as their commit answered (kept until done)
        self._marking: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        await self._db.start()
        await self._db.run(_add_missing_columns)
        self._running = True

    def close(self) -> None:
        if self._running:
            self._running = False
            self._db.close()

    @property
    def pending_docs(self) -> set[str]:
        return {e.doc for e in self._pending}

    async def record(self, entry: JournalEntry, timeout: float) -> int:
        """Record ``entry`` durably and return its id, or raise a :class:`JournalError`."""
        if not self._running or self._faulted("unavailable"):
            raise JournalUnavailable("the agent edit journal is not running")
        try:
            return await asyncio.wait_for(self._record(entry), timeout)
        except TimeoutError as exc:
            raise JournalUnavailable("the agent edit journal did not answer in time") from exc

    async def _record(self, entry: JournalEntry) -> int:
        if self._fault is not None:
            await self._injected(self._fault, entry)
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        # A caller that timed out no longer waits: its outcome is still consumed, never "unretrieved".
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._batch.append((entry, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            self._withdraw(future)
            raise

    def _withdraw(self, future: asyncio.Future[int]) -> None:
        """The caller gave up (its change is refused, ``JOURNAL_UNAVAILABLE``): the entry must not say it was
        recorded. Still queued, it is never written; in a commit already, it lands marked ``aborted``."""
        queued = len(self._batch)
        self._batch = [(entry, waiting) for entry, waiting in self._batch if waiting is not future]
        if len(self._batch) < queued:
            return
        if future.done() and not future.cancelled() and future.exception() is None:
            # committed and answered in the same moment the caller gave up
            task = asyncio.create_task(self._mark_abandoned([future.result()]))
            self._marking.add(task)
            task.add_done_callback(self._marking.discard)
        else:
            future.cancel()  # the flusher marks the committed entry (:meth:`_flush`)

    def _faulted(self, kind: str) -> bool:
        return self._fault is not None and self._fault.kind == kind

    async def _injected(self, fault: JournalFault, entry: JournalEntry) -> None:
        if fault.kind == "slow":
            await asyncio.sleep(fault.value)
        elif fault.take("transient"):
            self._pending.append(entry)
            raise JournalTransient("disk I/O error (injected)")
        elif fault.take("reject"):
            raise JournalRejected("entry rejected (injected)")

    async def _flush(self) -> None:
        """Group commit: every entry queued meanwhile lands in one transaction, one fsync."""
        while self._batch:
            batch, self._batch = self._batch, []
            entries = [entry for entry, _ in batch]
            try:
                ids = await self._db.run(functools.partial(_insert_all, entries=entries))
            except sqlite3.OperationalError as exc:
                self._pending.extend(entry for entry, future in batch if not future.cancelled())
                _fail_all(batch, JournalTransient(str(exc)))
            except sqlite3.Error as exc:
                _fail_all(batch, JournalRejected(str(exc)))
            else:
                if self._fault is not None and self._fault.holds(len(batch)):
                    log.warning("journal: a committed batch of %d entries is held unanswered (test fault)", len(batch))
                    await asyncio.Event().wait()  # until the test kills the app
                abandoned = [entry_id for (_, future), entry_id in zip(batch, ids, strict=True) if future.cancelled()]
                for (_, future), entry_id in zip(batch, ids, strict=True):
                    if not future.done():
                        future.set_result(entry_id)
                if abandoned:
                    await self._mark_abandoned(abandoned)

    async def _mark_abandoned(self, ids: list[int]) -> None:
        try:
            await self._db.run(functools.partial(_mark_all, ids=ids, state="aborted"))
        except sqlite3.Error as exc:  # the flusher goes on: other writers' entries wait for it
            log.warning("journal: entries %s of refused changes could not be marked aborted: %s", ids, exc)

    async def retry_pending(self) -> set[str]:
        """Try to save what is waiting; return the documents that are clean again."""
        if not self._pending or self._faulted("unavailable"):
            return set()
        if self._fault is not None and self._fault.take("transient"):
            return set()
        waiting, self._pending = self._pending, []
        still: list[JournalEntry] = []
        for entry in waiting:
            try:
                await self._db.run(functools.partial(_insert, e=entry))
            except sqlite3.Error:
                still.append(entry)
        self._pending = still
        return {e.doc for e in waiting} - self.pending_docs

    async def mark(self, entry_id: int, state: str) -> None:
        await self._db.run(functools.partial(_mark_all, ids=[entry_id], state=state))

    async def entries(self, doc: str | None = None) -> list[dict[str, Any]]:
        def query(c: sqlite3.Connection) -> list[dict[str, Any]]:
            c.row_factory = sqlite3.Row
            sql = "SELECT * FROM entries" + (" WHERE doc=?" if doc else "") + " ORDER BY id"
            rows = [dict(r) for r in c.execute(sql, (doc,) if doc else ())]
            c.row_factory = None
            return rows

        return await self._db.run(query)

    async def links(self, doc: str) -> list[tuple[str, str, str | None, str]]:
        """``(tool, state, rev_after, addresses)`` of ``doc``'s entries, oldest first: without their texts."""

        def query(c: sqlite3.Connection) -> list[tuple[str, str, str | None, str]]:
            sql = "SELECT tool, state, rev_after, addresses FROM entries WHERE doc=? ORDER BY id"
            return [tuple(row) for row in c.execute(sql, (doc,))]

        return await self._db.run(query)


def _fail_all(batch: list[tuple[JournalEntry, asyncio.Future[int]]], error: JournalError) -> None:
    for _, future in batch:
        if not future.done():
            future.set_exception(error)


def _mark_all(conn: sqlite3.Connection, ids: list[int], state: str) -> None:
    conn.executemany("UPDATE entries SET state=? WHERE id=?", [(state, entry_id) for entry_id in ids])


def _add_missing_columns(conn: sqlite3.Connection) -> None:
    """A journal written by an earlier version gains the columns added since."""
    present = {row[1] for row in conn.execute("PRAGMA table_info(entries)")}
    if "before_patch" not in present:
        conn.execute("ALTER TABLE entries ADD COLUMN before_patch TEXT")


def _insert_all(conn: sqlite3.Connection, entries: list[JournalEntry]) -> list[int]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        ids = [_insert(conn, e) for e in entries]
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return ids


def _insert(conn: sqlite3.Connection, e: JournalEntry) -> int:
    cur = conn.execute(
        "INSERT INTO entries (time, tool, principal, tab, doc, file, rev_before, rev_after,"
        " hash_before, hash_after, before_text, before_patch, addresses) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            e.time,
            e.tool,
            e.principal,
            e.tab,
            e.doc,
            e.file,
            e.rev_before,
            e.rev_after,
            e.hash_before,
            e.hash_after,
            None if e.before_text is None else e.before_text.encode("utf-8", "surrogatepass"),
            None if e.before_patch is None else json.dumps(asdict(e.before_patch), ensure_ascii=False),
            json.dumps(list(e.addresses)),
        ),
    )
    return int(cur.lastrowid or 0)
