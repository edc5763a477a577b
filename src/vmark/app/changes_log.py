"""What happened since an agent last looked: the events behind ``session.changes``.

The log follows the app's existing paths and adds no calls of its own to handlers: every change of a document's
text (an observer of ``Session.apply``: the person's edits, another agent's, a reload from disk), the session's
state (tabs opened, closed and switched, seen by comparing the session with what the log saw last, each time the
session says it changed), saves (``Saver``), the review's verdicts, the person's comments and replies, approvals
decided, a file that diverged on disk, and the selection the person's page reports once it rests.

Events are numbered; a cursor names the last one an agent has seen (``cur-<run>-<n>``: a cursor of another run
of the app is expired, not misread). The log keeps :data:`CHANGES_LOG_EVENTS`; an older cursor answers
``CURSOR_EXPIRED`` with the oldest cursor still held. Events nobody has been handed a cursor past yet may still
grow: the person's typing in one document is one ``edit`` until an agent looks, and a selection that moves again
replaces the one not yet seen.

Who sees what: an event about a file only while the file is inside the scope (the workspaces and the folders of
open documents, as ``workspace.open`` checks them); verdicts and approvals only the agent they are about (its
principal, or its connection when it has none); and nobody hears of their own edits and saves.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..core.actor import Actor
from ..core.change_lines import LineChange, line_change, map_ranges, wire_ranges
from ..core.comments import Reply, Thread
from ..core.document import DocState
from ..core.ids import new_id
from ..core.model import Document, Tab, Window
from ..core.review import Change, Judgement
from ..core.text_pages import compact_json
from ..core.transaction import Transaction
from ..protocol import results
from ..protocol.errors import ArgumentError, DomainError
from ..protocol.limits import CHANGES_LOG_EVENTS, CHANGES_PAGE_BYTES, CHANGES_TEXT_CHARS
from ..protocol.tools import CHANGE_KINDS
from .approvals import Approval
from .connection import Connection
from .review.pending import shown_spans
from .state import Session

KINDS = CHANGE_KINDS
_CURSOR = re.compile(r"cur-([0-9A-Za-z]+)-(\d{1,18})")


@dataclass
class Event:
    seq: int
    kind: str
    at: float
    body: dict[str, Any]
    #: the file it is about (the scope decides who sees it); None: an untitled document, or no file
    path: str | None = None
    #: the tabs it is about (``tabId`` filters on them)
    tabs: tuple[str, ...] = ()
    #: only this agent (a principal, or ``anonymous (conn-...)``) sees it; None: every agent
    audience: str | None = None
    #: the agent that did it (it does not hear of it); None: the person, the disk, the app
    actor: str | None = None
    #: an edit's changed lines (an unseen edit grows by the next one)
    line_ranges: tuple[tuple[int, int], ...] = ()
    _json: str | None = field(default=None, repr=False)

    def wire(self) -> dict[str, Any]:
        at = datetime.fromtimestamp(self.at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return {"kind": self.kind, "at": at, **self.body}

    def size(self) -> int:
        if self._json is None:
            self._json = compact_json(self.wire())
        return len(self._json.encode("utf-8"))


@dataclass(frozen=True)
class _TabSeen:
    window: str
    path: str | None
    title: str
    kind: str


class ChangesLog:
    def __init__(self, session: Session, limit: int = CHANGES_LOG_EVENTS, clock: Callable[[], float] = time.time):
        self.session = session
        self.limit = limit
        self._clock = clock
        self._run = new_id("x").removeprefix("x-")
        self._events: deque[Event] = deque()
        self._seq = 0
        #: the highest event number some agent was handed a cursor for (events after it may still grow)
        self._seen = 0
        self._arrived = asyncio.Event()
        #: per document key: the state the log saw last, and its latest event (not a selection)
        self._states: dict[str, DocState] = {}
        self._last_of_doc: dict[str, Event] = {}
        self._last_selection: dict[str, Event] = {}
        #: what the session looked like the last time it changed: tabs, and each window's active tab
        self._tabs: dict[str, _TabSeen] = {}
        self._active: dict[str, str | None] = {}
        #: called with each new event (the agents' resource notifications follow the log)
        self.listeners: list[Callable[[Event], None]] = []

    # --- cursors ----------------------------------------------------------------------------------------------
    def cursor(self, seq: int | None = None) -> str:
        return f"cur-{self._run}-{self._seq if seq is None else seq}"

    def _oldest(self) -> int:
        """The oldest cursor still answered in full: the event before the first one kept."""
        return self._events[0].seq - 1 if self._events else self._seq

    def _after(self, since: str) -> int:
        match = _CURSOR.fullmatch(since)
        if match is None:
            raise ArgumentError(
                f"session.changes: argument 'since' must be a cursor from an earlier answer, got {since!r}"
            )
        run, seq = match.group(1), int(match.group(2))
        if run == self._run and seq > self._seq:
            raise ArgumentError(f"session.changes: no cursor {since!r} was handed out (the latest is {self.cursor()})")
        if run != self._run or seq < self._oldest():
            self._expired(since)
        return seq

    def _expired(self, since: str) -> None:
        raise DomainError(
            "CURSOR_EXPIRED",
            f"The events after {since} are no longer kept (the app keeps the last {self.limit}, and a cursor of an"
            " earlier run of the app names none); call again with oldest_cursor, or without since for the current"
            " cursor",
            oldest_cursor=self.cursor(self._oldest()),
        )

    # --- reading ----------------------------------------------------------------------------------------------
    async def read(
        self,
        viewer: Connection,
        in_scope: Callable[[str], bool],
        since: str | None,
        tab_id: str | None,
        kinds: Sequence[str] | None,
        wait_ms: int,
    ) -> results.SessionChanges:
        if kinds is not None:
            unknown = [k for k in kinds if k not in KINDS]
            if unknown:
                raise ArgumentError(
                    f"session.changes: argument 'kinds' has unknown kind {unknown[0]!r}; known: {', '.join(KINDS)}"
                )
        if since is None:
            return self._answer(self._seq, [], more=False)
        after = self._after(since)
        wanted = set(kinds) if kinds is not None else set(KINDS)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_ms / 1000
        while True:
            events, last, more = self._page(after, viewer.requester, in_scope, tab_id, wanted)
            remaining = deadline - loop.time()
            if events or remaining <= 0:
                return self._answer(last, events, more)
            after = last  # nothing for this agent up to here: wait for what comes next
            arrived = self._arrived
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(arrived.wait(), remaining)
            if after < self._oldest():  # the log moved on past us while we waited
                self._expired(self.cursor(after))

    def _page(
        self, after: int, viewer: str, in_scope: Callable[[str], bool], tab_id: str | None, kinds: set[str]
    ) -> tuple[list[Event], int, bool]:
        """The visible events after ``after`` that fit one answer; the last event looked at; whether more remain."""
        found: list[Event] = []
        budget = CHANGES_PAGE_BYTES
        last = self._seq
        for event in self._from(after):
            if not _visible(event, viewer, in_scope, tab_id, kinds):
                continue
            size = event.size()
            if found and size > budget:
                return found, found[-1].seq, True
            found.append(event)
            budget -= size
        return found, last, False

    def _from(self, after: int) -> list[Event]:
        if not self._events or after >= self._seq:
            return []
        start = max(0, after - self._events[0].seq + 1)  # events are numbered without gaps
        return list(self._events)[start:]

    def _answer(self, last: int, events: list[Event], more: bool) -> results.SessionChanges:
        self._seen = max(self._seen, last)
        answer: results.SessionChanges = {"cursor": self.cursor(last), "events": [e.wire() for e in events]}
        if more:
            answer["more"] = True
        return answer

    # --- recording --------------------------------------------------------------------------------------------
    def _add(self, event: Event) -> None:
        self._events.append(event)
        while len(self._events) > self.limit:
            self._events.popleft()
        self._arrived.set()
        self._arrived = asyncio.Event()
        for listener in self.listeners:
            listener(event)

    def _new(self, kind: str, body: dict[str, Any], **where: Any) -> Event:
        self._seq += 1
        return Event(self._seq, kind, self._clock(), body, **where)

    def _unseen(self, event: Event | None) -> bool:
        return event is not None and event.seq > self._seen

    def _doc_event(self, doc: Document, kind: str, body: dict[str, Any], **where: Any) -> Event:
        tabs = tuple(t.id for _w, t in self.session.tabs_of(doc))
        event = self._new(kind, {"tabIds": list(tabs), "filePath": doc.path, **body}, path=doc.path, tabs=tabs, **where)
        self._last_of_doc[doc.key] = event
        self._add(event)
        return event

    # --- following Session.apply --------------------------------------------------------------------------------
    def observe(self, tx: Transaction) -> None:
        """Every change of a document's text: the person's edit, another agent's, the disk's."""
        doc = tx.doc
        before = self._states.get(doc.key)
        self._states[doc.key] = tx.state
        if before is None:
            change = tx.state.change
            parent = change.parent if change is not None else None
            lines = None
        else:
            parent = before.revision
            lines = line_change(before.shown, shown_spans(before, tx.state))
        actor = tx.actor.requester if tx.origin == "agent" else None
        if tx.origin == "disk":
            self._doc_event(doc, "file_changed", _edit_body(parent, tx.state, lines, reloaded=True))
            return
        last = self._last_of_doc.get(doc.key)
        if (
            lines is not None
            and last is not None
            and self._unseen(last)
            and last.kind == "edit"
            and last.actor == actor
            and last.body.get("revisionAfter") == parent
            and last.body.get("revert") is None
            and tx.origin != "revert"
        ):
            _grow(last, tx.state, lines)
            self._arrived.set()
            self._arrived = asyncio.Event()
            for listener in self.listeners:
                listener(last)
            return
        body = _edit_body(parent, tx.state, lines)
        body["by"] = "agent" if tx.origin == "agent" else "person"
        if actor is not None:
            body["principal"] = actor
        if tx.origin == "revert":
            body["revert"] = True
        event = self._doc_event(doc, "edit", body, actor=actor)
        if lines is not None:
            event.line_ranges = lines.ranges

    # --- following the session's state ------------------------------------------------------------------------
    def session_changed(self) -> None:
        """The session changed (``Session.changed``): tabs that came or went, and each window's active tab."""
        session = self.session
        now: dict[str, _TabSeen] = {}
        for window, tab in session.tabs():
            now[tab.id] = _TabSeen(window.label, tab.doc.path, tab.title, tab.doc.kind)
            if tab.doc.key not in self._states:
                self._states[tab.doc.key] = tab.doc.state
        for tab_id, seen in self._tabs.items():
            if tab_id not in now:
                body = {"tabId": tab_id, "windowLabel": seen.window, "filePath": seen.path}
                self._add(self._new("tab_closed", body, path=seen.path, tabs=(tab_id,)))
        for tab_id, seen in now.items():
            if tab_id not in self._tabs:
                body = {
                    "tabId": tab_id,
                    "windowLabel": seen.window,
                    "filePath": seen.path,
                    "title": seen.title,
                    "documentKind": seen.kind,
                }
                self._add(self._new("tab_opened", body, path=seen.path, tabs=(tab_id,)))
        for label, window in session.windows.items():
            previous = self._active.get(label)
            if window.active_tab != previous and window.active_tab is not None:
                seen_now = now.get(window.active_tab)
                body = {"windowLabel": label, "tabId": window.active_tab, "previousTabId": previous}
                self._add(
                    self._new("tab_switched", body, path=seen_now.path if seen_now else None, tabs=(window.active_tab,))
                )
        self._tabs = now
        self._active = {label: w.active_tab for label, w in session.windows.items()}
        open_keys = {t.doc.key for _w, t in session.tabs()}
        for key in [k for k in self._states if k not in open_keys]:
            del self._states[key]
            self._last_of_doc.pop(key, None)

    def rekey(self, old: str, new: str) -> None:
        """A document moved (Save as): what the log keeps of it moves with it."""
        state, last = self._states.pop(old, None), self._last_of_doc.pop(old, None)
        if state is not None:
            self._states[new] = state
        if last is not None:
            self._last_of_doc[new] = last

    # --- following saves, the review, comments, approvals, the disk and the person's selection ------------------
    def saved(self, tab: Tab, state: DocState, by: Actor) -> None:
        by_agent = by.requester if by.kind == "agent" else None
        body: dict[str, Any] = {"revision": state.revision, "by": "agent" if by_agent else "person"}
        if by_agent:
            body["principal"] = by_agent
        self._doc_event(tab.doc, "save", body, actor=by_agent)

    def judged(self, doc: Document, changes: Sequence[Change], judgement: Judgement) -> None:
        """The person accepted or rejected agent changes (called before a rejection restores the old text)."""
        if judgement not in ("accepted", "rejected"):
            return
        shown = doc.state.shown
        for change in changes:
            text = shown[change.start : change.end]
            body: dict[str, Any] = {"verdict": judgement, "changeId": change.id, "revision": change.revision}
            body.update(_quoted("text", text))
            body.update(_quoted("old", change.old))
            self._doc_event(doc, "verdict", body, audience=change.principal)

    def comment(self, thread: Thread, path: str | None, reply: Reply | None, action: str) -> None:
        """The person wrote a comment or a reply, or resolved, reopened or deleted a thread."""
        if reply is not None:
            kind, body = "reply", {"commentId": thread.id, "replyId": reply.id, "body": reply.body}
        else:
            kind, body = "comment", {"action": action, "commentId": thread.id}
            if action == "created":
                body.update(quote=thread.quote, body=thread.body)
        doc = self.session.docs.get(thread.doc)
        if doc is not None:
            self._doc_event(doc, kind, body)
        else:
            self._add(self._new(kind, {"tabIds": [], "filePath": path, **body}, path=path))

    def approval(self, approval: Approval) -> None:
        if approval.state not in ("allowed", "denied"):
            return
        body: dict[str, Any] = {
            "approvalId": approval.id,
            "approvalKind": approval.kind,
            "subject": approval.subject,
            "decision": approval.state,
            "windowLabel": approval.window,
        }
        if approval.decision is not None:
            body["scope"] = approval.decision
        self._add(self._new("approval", body, audience=approval.requester))

    def diverged(self, doc: Document) -> None:
        """The file of a tab with unsaved changes changed on disk: the person will be asked which to keep."""
        body = {"reloaded": False, "divergent": True, "revision": doc.state.revision}
        self._doc_event(doc, "file_changed", body)

    def selection(self, window: Window, tab: Tab) -> None:
        """The person's selection came to rest (the page reports it once it stops moving)."""
        start, end = tab.selection
        body: dict[str, Any] = {
            "tabId": tab.id,
            "windowLabel": window.label,
            "mode": tab.mode,
            "from": start,
            "to": end,
            "empty": start == end,
            "revision": tab.doc.state.revision,
        }
        if tab.mode == "source":
            shown = tab.doc.state.shown
            first = shown.count("\n", 0, min(start, len(shown))) + 1
            body["lines"] = {"from": first, "to": first + shown.count("\n", start, min(end, len(shown)))}
        last = self._last_selection.get(tab.id)
        if last is not None and self._unseen(last) and self._events and self._events[-1] is last:
            last.body, last.at, last._json = body, self._clock(), None
            return
        event = self._new("selection", body, path=tab.doc.path, tabs=(tab.id,))
        self._last_selection[tab.id] = event
        self._add(event)


def _visible(event: Event, viewer: str, in_scope: Callable[[str], bool], tab_id: str | None, kinds: set[str]) -> bool:
    if event.kind not in kinds:
        return False
    if event.audience is not None and event.audience != viewer:
        return False
    if event.actor is not None and event.actor == viewer:
        return False
    if tab_id is not None and tab_id not in event.tabs:
        return False
    return event.path is None or in_scope(event.path)


def _edit_body(
    parent: str | None, state: DocState, lines: LineChange | None, reloaded: bool | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"revisionBefore": parent, "revisionAfter": state.revision}
    if reloaded is not None:
        body["reloaded"] = reloaded
    if lines is not None:
        body.update(lines=wire_ranges(lines.ranges), inserted=lines.inserted, deleted=lines.deleted)
    return body


def _grow(event: Event, state: DocState, lines: LineChange) -> None:
    """One more edit of the person's in an event no agent has seen yet: one edit from its first revision."""
    event.line_ranges = map_ranges(event.line_ranges, lines)
    event.body.update(
        revisionAfter=state.revision,
        lines=wire_ranges(event.line_ranges),
        inserted=event.body.get("inserted", 0) + lines.inserted,
        deleted=event.body.get("deleted", 0) + lines.deleted,
    )
    event._json = None


def _quoted(name: str, text: str) -> dict[str, Any]:
    if len(text) <= CHANGES_TEXT_CHARS:
        return {name: text}
    return {name: text[:CHANGES_TEXT_CHARS], f"{name}Truncated": True, f"{name}Length": len(text)}
