"""The comment service: every document's threads in memory, kept in step with the store and the text.

All threads are loaded at start (a person's review comments are few next to the documents), so
lookups are synchronous: the write pipeline asks :meth:`CommentService.addressable` while it
checks ``addresses``. Anchors follow each change of a document's text (:meth:`observe`, called by
``Session.apply``);
anchor moves are saved in one coalesced transaction, since a stale anchor is found again from its
quote anyway (``settle``). Agents' changes (``reply``, ``mark_addressed``) take the document's
write turn and are journaled before they apply, like writes.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import Literal, overload

from ..core import comments as model
from ..core.comment_pages import PageHeader, Pager, Position
from ..core.comments import AgentAnswer, AgentOp, Change, Reply, Thread
from ..core.document import DocState, Splice
from ..core.ids import new_id
from ..core.model import Tab
from ..core.transaction import Transaction
from ..protocol import results, wire_types
from ..protocol.errors import DomainError
from ..protocol.wire_types import SnapshotRecord, ThreadState
from ..storage.comments import CommentStore
from ..storage.journal import Journal
from .connection import Connection
from .journaling import Recorder, tab_entry
from .page_push import PageEvents
from .state import Session
from .tasks import Spawn
from .turns import WriteTurns

log = logging.getLogger(__name__)

#: anchor moves wait this long to be saved together (typing moves every anchor after the caret)
ANCHOR_SAVE_DELAY = 1.0
_CURSOR_PREFIX = "cc-"


class CommentService:
    def __init__(
        self,
        session: Session,
        store: CommentStore,
        turns: WriteTurns,
        recorder: Recorder,
        journal: Journal,
        background: Spawn,
        *,
        pages: PageEvents,
    ) -> None:
        self.session = session
        self.pages = pages
        self.store = store
        self.turns = turns
        self.recorder = recorder
        #: the journal's links of comments to the edits that answered them (:meth:`links`)
        self.journal = journal
        self.background = background
        self._threads: dict[str, Thread] = {}
        self._by_doc: dict[str, list[Thread]] = {}
        self._uids: dict[str, str] = {}
        #: per document key: the (revision, text) its anchors were computed for
        self._basis: dict[str, tuple[str | None, str]] = {}
        self._seq = 0
        self._moved: dict[str, Thread] = {}
        self._saver: asyncio.Task[None] | None = None
        #: told of what the person wrote or decided: (thread, its path, the reply or None, action) with action
        #: ``created``, ``replied``, ``resolved``, ``reopened`` or ``deleted``
        self.person_listeners: list[Callable[[Thread, str | None, Reply | None, str], None]] = []

    async def start(self) -> None:
        await self.store.start()
        threads, self._uids = await self.store.load()
        for thread in threads:
            self._index(thread)
        self._seq = max((t.seq for t in threads), default=0)
        self.session.rekey_listeners.append(self.rekey)

    async def close(self) -> None:
        if self._saver is not None:
            self._saver.cancel()
        await self._save_moved()
        self.store.close()

    def _index(self, thread: Thread) -> None:
        self._threads[thread.id] = thread
        self._by_doc.setdefault(thread.doc, []).append(thread)

    # --- lookups ---------------------------------------------------------------------
    def live(self, key: str) -> list[Thread]:
        """The document's threads that are not deleted, oldest first."""
        return [t for t in self._by_doc.get(key, ()) if not t.deleted]

    def thread(self, comment_id: str, key: str | None = None) -> Thread:
        """``INVALID_COMMENT`` for a malformed id, an unknown one, or (with ``key``) another document's."""
        thread = self._threads.get(comment_id) if model.is_comment_id(comment_id) else None
        if thread is None or (key is not None and thread.doc != key):
            raise DomainError(
                "INVALID_COMMENT", f"{comment_id!r} is not a comment of this document", comment=comment_id
            )
        return thread

    def addressable(self, key: str) -> Callable[[str], bool]:
        """Whether an edit of document ``key`` may name a comment in ``addresses``: one of its own threads,
        neither deleted nor resolved."""

        def known(comment_id: str) -> bool:
            thread = self._threads.get(comment_id)
            return thread is not None and thread.doc == key and thread.state not in ("deleted", "resolved")

        return known

    def generation(self, key: str) -> str:
        """Opaque; changes with every change to any thread of the document (deletions too)."""
        digest = hashlib.sha256()
        for thread in self._by_doc.get(key, ()):
            digest.update(f"{thread.id}:{thread.gen};".encode())
        return "gen-" + digest.hexdigest()[:16]

    # --- anchors ---------------------------------------------------------------------
    def observe(self, tx: Transaction) -> None:
        """A document's text changed (``Session.apply``): its anchors move through the change's spans."""
        self.sync(tx.doc.key, tx.doc.path, tx.state)

    def sync(self, key: str, path: str | None, state: DocState) -> None:
        """Bring the document's anchors to ``state``'s text."""
        self.sync_text(key, path, state.revision, state.text, state.change)

    def sync_text(
        self, key: str, path: str | None, revision: str | None, text: str, splice: Splice | None = None
    ) -> None:
        basis = self._basis.get(key)
        self._basis[key] = (revision, text)
        threads = self.live(key)
        if not threads or (basis is not None and basis[0] == revision and basis[1] is text):
            return
        before = {t.id: (t.anchor, t.hint) for t in threads}
        if basis is None:
            model.settle(threads, text)
        else:
            changes = _changes(basis, text, splice)
            if not changes:
                return
            model.reanchor(threads, text, changes)
        moved = [t for t in threads if (t.anchor, t.hint) != before[t.id]]
        self._moved.update((t.id, t) for t in moved)
        self._schedule_anchor_save()
        if any((before[t.id][0] is None) != (t.anchor is None) for t in moved):  # orphaned, or found again
            self.background(self.notify(key, path))

    def _schedule_anchor_save(self) -> None:
        if self._moved and (self._saver is None or self._saver.done()):
            self._saver = asyncio.ensure_future(self._save_moved_later())

    async def _save_moved_later(self) -> None:
        await asyncio.sleep(ANCHOR_SAVE_DELAY)
        await self._save_moved()

    async def _save_moved(self) -> None:
        moved, self._moved = list(self._moved.values()), {}
        if moved:
            await self.store.save_anchors(moved)

    def rekey(self, old: str, new: str) -> None:
        """A document moved (Save as): its threads, anchors' basis and cursor binding move with it."""
        moving = self._by_doc.pop(old, [])
        for thread in moving:
            thread.doc = new
        self._by_doc[new] = sorted(self._by_doc.get(new, []) + moving, key=lambda t: t.seq)
        basis = self._basis.pop(old, None)
        if basis is not None:
            self._basis[new] = basis
        uid = self._uids.pop(old, None)
        if uid is not None and new not in self._uids:
            self._uids[new] = uid
        self.background(self.store.rekey(old, new))
        if moving:
            self.background(self.notify(new, new))

    # --- the person's changes ----------------------------------------------------------
    async def add(self, key: str, path: str | None, quote: str, body: str, anchor: tuple[int, int]) -> Thread:
        self._seq += 1
        thread = Thread(
            id=new_id("c"),
            doc=key,
            seq=self._seq,
            quote=quote,
            body=body,
            author="person",
            created=time.time(),
            anchor=anchor,
            hint=anchor[0],
        )
        await self.store.add_thread(thread)
        self._index(thread)
        await self.notify(key, path)
        self._tell(thread, None, "created")
        return thread

    async def person_reply(self, thread: Thread, body: str) -> Reply:
        if thread.deleted:
            raise DomainError("STALE_COMMENT", f"{thread.id} was deleted", comment=thread.id)
        model.check_reply_room(thread)
        reply = Reply(new_id("r"), "person", body, time.time())
        model.add_reply(thread, reply)
        await self._saved(thread, reply)
        self._tell(thread, reply, "replied")
        return reply

    async def set_state(self, thread: Thread, state: ThreadState) -> None:
        """The person resolves, reopens or deletes; a deleted thread takes no other state."""
        if thread.deleted and state != "deleted":
            raise DomainError("STALE_COMMENT", f"{thread.id} was deleted", comment=thread.id)
        if model.set_state(thread, state):
            await self._saved(thread)
            self._tell(thread, None, state)

    def _tell(self, thread: Thread, reply: Reply | None, action: str) -> None:
        path = self._path_of(thread.doc)
        for listener in self.person_listeners:
            listener(thread, path, reply, action)

    async def _saved(self, thread: Thread, reply: Reply | None = None, basis: str | None = None) -> None:
        await self.store.save_thread(thread, reply, basis)
        await self.notify(thread.doc, self._path_of(thread.doc))

    def _path_of(self, key: str) -> str | None:
        doc = self.session.docs.get(key)
        if doc is not None:
            return doc.path
        return None if key.startswith("untitled:") else key

    async def notify(self, key: str, path: str | None) -> None:
        await self.pages.notify("comments", {"doc": key, "filePath": path})

    # --- agents' changes ------------------------------------------------------------------
    @overload
    async def agent_change(
        self, conn: Connection, tab: Tab, comment_id: str, op: Literal["reply"], expected_gen: str, body: str
    ) -> results.Replied: ...

    @overload
    async def agent_change(
        self, conn: Connection, tab: Tab, comment_id: str, op: Literal["mark_addressed"], expected_gen: str
    ) -> results.Addressed: ...

    async def agent_change(
        self, conn: Connection, tab: Tab, comment_id: str, op: AgentOp, expected_gen: str, body: str = ""
    ) -> AgentAnswer:
        """``reply`` / ``mark_addressed``: checked, journaled in the document's write turn, then applied.
        Any refusal changes nothing; the identical call repeated answers the first result."""
        doc = tab.doc
        if op == "reply":
            model.check_body(body)
        thread = self.thread(comment_id, doc.key)
        earlier = model.check_agent_change(thread, op, expected_gen, body)
        if earlier is not None:
            return earlier
        if op == "mark_addressed" and thread.state == "addressed":  # already so: nothing to change or record
            return {"comment": thread.id, "state": thread.state, "commentGen": thread.gen}
        async with self.turns.turn(doc, tab):
            earlier = model.check_agent_change(thread, op, expected_gen, body)  # it may have changed meanwhile
            if earlier is not None:
                return earlier
            if self.recorder.degraded(doc.key):
                raise DomainError("JOURNAL_DEGRADED")
            # The document's text does not change: both revisions and hashes are its current ones.
            recorded = await self.recorder.record(tab_entry(f"comments.{op}", conn, tab, addresses=(comment_id,)))
            try:  # the person may have resolved or deleted it while it was being recorded
                model.check_agent_change(thread, op, expected_gen, body)
            except DomainError:
                await self.recorder.abort(recorded.entry_id)
                raise
            return await self._apply(conn, thread, op, expected_gen, body, recorded.durable)

    async def _apply(
        self, conn: Connection, thread: Thread, op: AgentOp, basis: str, body: str, durable: bool
    ) -> AgentAnswer:
        reply = None
        result: AgentAnswer
        if op == "reply":
            reply = Reply(new_id("r"), conn.label, body, time.time())
            model.add_reply(thread, reply)
            result = {"reply": reply.id, "commentGen": thread.gen, "durable": durable}
        else:
            model.set_state(thread, "addressed")
            result = {"comment": thread.id, "state": thread.state, "commentGen": thread.gen, "durable": durable}
        model.remember(thread, basis, op, body, result)
        await self._saved(thread, reply, basis)
        return result

    # --- listing ------------------------------------------------------------------------
    def page(self, key: str, cursor: str | None) -> results.CommentPage:
        """One page of ``comments.list`` from ``cursor`` (None: the first page)."""
        threads = self.live(key)
        header: PageHeader = {"doc": key, "generation": self.generation(key)}
        at = Position(0) if cursor is None else self._decode(key, threads, cursor)
        items, following = Pager(header).page(threads, at)
        result: results.CommentPage = {"doc": header["doc"], "generation": header["generation"], "threads": items}
        if following is not None:
            result["nextCursor"] = self._encode(key, threads[following.thread].id, following)
        return result

    def _uid(self, key: str) -> str:
        uid = self._uids.get(key)
        if uid is None:
            uid = self._uids[key] = new_id("d")
            self.background(self.store.save_uid(key, uid))
        return uid

    def _encode(self, key: str, thread_id: str, at: Position) -> str:
        raw = json.dumps([self._uid(key), thread_id, at.reply, int(at.continued)], separators=(",", ":"))
        return _CURSOR_PREFIX + base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    def _decode(self, key: str, threads: list[Thread], cursor: str) -> Position:
        """A cursor of this document whose thread still lives, else ``STALE_COMMENT``."""
        stale = DomainError("STALE_COMMENT", "The cursor is stale or was issued for another document; list again")
        if not cursor.startswith(_CURSOR_PREFIX):
            raise stale
        try:
            text = cursor[len(_CURSOR_PREFIX) :]
            uid, thread_id, reply, continued = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        except (ValueError, TypeError, binascii.Error) as exc:
            raise stale from exc
        if uid != self._uids.get(key):
            raise stale
        index = next((i for i, t in enumerate(threads) if t.id == thread_id), None)
        if index is None or not isinstance(reply, int) or not 0 <= reply <= len(threads[index].replies):
            raise stale
        return Position(index, reply, bool(continued))

    # --- history -------------------------------------------------------------------------
    async def addressed_in(self, key: str, snapshots: Sequence[SnapshotRecord]) -> list[list[wire_types.Addressed]]:
        """For each snapshot, ``[{comment, quote, state}]``: the comments named by the edits that made its revision
        (journaled, not aborted) and by the save that took it."""
        linked: dict[str, list[str]] = {}
        for tool, state, rev_after, addresses in await self.journal.links(key):
            if tool.startswith("comments.") or state == "aborted" or rev_after is None:
                continue
            linked.setdefault(rev_after, []).extend(json.loads(addresses))
        found = []
        for snap in snapshots:
            ids = dict.fromkeys([*linked.get(snap["revision"], []), *snap["addresses"]])
            found.append([self._addressed(comment_id) for comment_id in ids])
        return found

    def _addressed(self, comment_id: str) -> wire_types.Addressed:
        thread = self._threads.get(comment_id)
        if thread is None:  # gone from the store: it can only have been deleted
            return {"comment": comment_id, "quote": "", "state": "deleted"}
        return {"comment": comment_id, "quote": thread.quote, "state": thread.state}


def _changes(basis: tuple[str | None, str], text: str, splice: Splice | None) -> list[Change]:
    """How the anchors' text became ``text``: the state's spans when it came from that text, else one diff."""
    revision, old = basis
    if splice is not None and splice.spans is not None and revision is not None and splice.parent == revision:
        return model.changes_of(splice.spans)
    change = model.diff_span(old, text)
    return [] if change is None else [change]
