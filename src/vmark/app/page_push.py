"""Telling the person's pages what changed: it follows the session, and pushes once per loop turn.

Two events follow a change, each only to the pages it concerns:

- ``doc``: a document's text moved to a new revision (``Session.apply``). Every page of a window showing the
  document gets it, except the page that typed the change: the changes since the revision pushed last
  (``changes: {base, spans}``) when the document still knows them, else the whole ``text``; ``reviewFollows``
  when the document's ``review`` event comes right after it (the page then redraws the text and its review
  once, not twice: a redraw of a long WYSIWYG document walks every top-level block).
- ``state``: a window as its pages render it (:meth:`PagePush.window_state`): its tabs and their view, the
  other windows' workspaces (the start screen lists them) and the connected agents. A page gets it when it
  differs from the one it got last: an agent's write in one window reaches that window's pages, not the
  others', whose state did not change.
- ``browser_tabs``: the agents' browser tabs or what they may do changed (:meth:`PagePush.browser_changed`):
  every page lists them again (they are not part of the state).

``ui.state`` answers :meth:`PagePush.page_state`: every window with its view.

Every other event (a notification, an approval's prompt, a divergence, the threads or a tree that changed, a
crashed browser tab) goes through :class:`PageEvents`, the one thing a service that tells the pages is given
(not the session).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Protocol

from ..core.changes import wire
from ..core.model import Document, Tab, Window
from ..core.transaction import Origin, Transaction
from ..protocol import wire_types
from .connection import Connection
from .state import Session


class PageEvents:
    """An event to the person's pages: to every page, or to the pages of one window."""

    def __init__(self, pages: Mapping[str, list[Connection]]) -> None:
        #: the pages attached per window label (the session's registry: read here, never changed)
        self._pages = pages

    async def notify(self, event: str, payload: Mapping[str, object], window: str | None = None) -> None:
        for label, conns in list(self._pages.items()):
            if window is not None and label != window:
                continue
            for conn in list(conns):
                with contextlib.suppress(ConnectionError):
                    await conn.send({"type": "event", "event": event, "payload": payload})


class ReviewCounts(Protocol):
    """What the pages are told of the review of agent changes (:class:`vmark.app.review.Review`)."""

    def count(self, doc: Document) -> int: ...
    def follows(self, doc: Document) -> bool: ...
    async def after_doc_push(self, doc: Document) -> None: ...


#: who made a change, as the pages' ``doc`` events say it: a revert is the person's edit
_SHOWN_ORIGIN: dict[Origin, wire_types.ShownOrigin] = {
    "agent": "agent",
    "person": "person",
    "disk": "disk",
    "revert": "person",
}


class PagePush:
    def __init__(self, session: Session, events: PageEvents, review: ReviewCounts | None = None) -> None:
        self.session = session
        self.events = events
        #: the tabs' ``reviewCount`` and the ``review`` event after a document's ``doc`` event
        self.review = review
        #: per document key: the revision the pages last got, and who made the latest change (its origin as
        #: pages see it, and the page that typed it: that page does not get its own change back)
        self._pushed: dict[str, str] = {}
        self._latest: dict[str, tuple[wire_types.ShownOrigin, str | None]] = {}
        #: per page (its connection's id): the ``state`` it got last
        self._sent: dict[str, wire_types.PageState] = {}
        self._browser_changed = False
        self._scheduled = False

    def follow(self) -> None:
        """Follow the session: its changes of text, documents opened, moved and closed, any change at all."""
        session = self.session
        session.observers.append(self.observe)
        session.open_listeners.append(self.opened)
        session.close_listeners.append(self.closed)
        session.rekey_listeners.append(self.rekey)
        session.state_listeners.append(self.changed)

    # --- following the session ----------------------------------------------------------------------------
    def observe(self, tx: Transaction) -> None:
        """A change of text (``Session.apply``, before anything else runs): who made it, for its ``doc`` event."""
        typed_by = tx.actor.connection if tx.origin == "person" else None
        self._latest[tx.doc.key] = (_SHOWN_ORIGIN[tx.origin], typed_by)

    def opened(self, doc: Document) -> None:
        """A tab shows ``doc``: its page reads the text as it is now."""
        self._pushed[doc.key] = doc.state.revision

    def closed(self, key: str) -> None:
        """The last tab of document ``key`` closed."""
        self._pushed.pop(key, None)
        self._latest.pop(key, None)

    def rekey(self, old: str, new: str) -> None:
        """A document moved (Save as, a rename): its pages have its text as it is now."""
        self.closed(old)
        doc = self.session.docs.get(new)
        if doc is not None:
            self.opened(doc)

    def changed(self) -> None:
        """Something changed: the pages hear of it on the next loop turn, once however many changes came."""
        if self._scheduled or not self.session.pages:
            return
        self._scheduled = True
        asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(self._push()))

    def browser_changed(self) -> None:
        """The agents' browser tabs or grants changed: every page hears of it with the next push."""
        self._browser_changed = True
        self.changed()

    # --- what the pages render ----------------------------------------------------------------------------
    def page_state(self) -> wire_types.PageState:
        """Every window with its view details, and the connected agents (``ui.state``)."""
        windows = self.session.windows
        return {
            "windows": [self._window_info(w) for w in windows.values()],
            "views": {label: self._view(w) for label, w in windows.items()},
            "agents": self._agents(),
        }

    def window_state(self, label: str) -> wire_types.PageState:
        """What the pages of window ``label`` render (the ``state`` event): the window with its view, the
        other windows' workspaces only, and the connected agents."""
        windows = self.session.windows
        return {
            "windows": [self._window_info(windows[label])],
            "views": {
                other: self._view(w) if other == label else {"workspaces": _workspaces(w), "tabs": {}}
                for other, w in windows.items()
            },
            "agents": self._agents(),
        }

    def _window_info(self, window: Window) -> wire_types.WindowInfo:
        described = window.describe()
        for info, tab in zip(described["tabs"], window.tabs, strict=True):
            info["reviewCount"] = self._count(tab)
        return described

    def _view(self, window: Window) -> wire_types.WindowView:
        return {
            "workspaces": _workspaces(window),
            "tabs": {
                t.id: {
                    "mode": t.mode,
                    "pinned": t.pinned,
                    "divergent": t.doc.divergent,
                    "divergenceKept": t.doc.divergence_kept,
                    "missing": t.doc.missing,
                    "readOnly": t.doc.read_only,
                    "workspaceInstanceId": t.workspace_instance,
                    "reviewCount": self._count(t),
                }
                for t in window.tabs
            },
        }

    def _count(self, tab: Tab) -> int:
        """How many agent changes wait for the person in the tab's document (pages only: not in MCP state)."""
        return 0 if self.review is None else self.review.count(tab.doc)

    def _agents(self) -> list[wire_types.AgentInfo]:
        return [
            {"connectionId": c.id, "principal": c.principal, "name": c.client_name, "label": c.label}
            for c in self.session.agents.values()
        ]

    # --- pushing ------------------------------------------------------------------------------------------
    async def _push(self) -> None:
        self._scheduled = False
        session = self.session
        for doc in [d for d in session.docs.values() if self._pushed.get(d.key) != d.state.revision]:
            await self._push_doc(doc)
            if self.review is not None:  # after the doc event: pages apply ranges to the text they belong to
                await self.review.after_doc_push(doc)
        attached: set[str] = set()
        for label, conns in list(session.pages.items()):
            if label not in session.windows:
                continue
            state = self.window_state(label)
            for conn in list(conns):
                attached.add(conn.id)
                if self._sent.get(conn.id) == state:
                    continue
                self._sent[conn.id] = state
                with contextlib.suppress(ConnectionError):
                    await conn.send({"type": "event", "event": "state", "payload": state})
        for gone in self._sent.keys() - attached:  # pages that left: a page attaching again gets its state
            del self._sent[gone]
        if self._browser_changed:
            self._browser_changed = False
            await self.events.notify("browser_tabs", {})

    async def _push_doc(self, doc: Document) -> None:
        """A ``doc`` event to every page of a window showing ``doc``, except the page that typed the change:
        two windows see each other's edits."""
        origin, source = self._latest.get(doc.key, ("disk", None))
        base = self._pushed.get(doc.key)
        spans = doc.recent.since(base, doc.state) if base is not None else None
        self._pushed[doc.key] = doc.state.revision
        changes: wire_types.DocChanges | None = None
        if spans is not None and base is not None:
            changes = {"base": base, "spans": wire(spans)}
        # A page shows the text and its review in one redraw when it knows the review comes next.
        review_follows = self.review is not None and self.review.follows(doc)
        for label, conns in list(self.session.pages.items()):
            window = self.session.windows.get(label)
            tab_ids = [t.id for t in window.tabs if t.doc is doc] if window is not None else []
            if not tab_ids:
                continue
            payload: wire_types.DocEvent = {
                "tabIds": tab_ids,
                "revision": doc.state.revision,
                "origin": origin,
                "dirty": doc.dirty,
            }
            if changes is None:
                payload["text"] = doc.state.text
            else:
                payload["changes"] = changes
            if review_follows:
                payload["reviewFollows"] = True
            event = {"type": "event", "event": "doc", "payload": payload}
            for conn in [c for c in conns if c.id != source]:
                with contextlib.suppress(ConnectionError):
                    await conn.send(event)


def _workspaces(window: Window) -> list[wire_types.WorkspaceRef]:
    return [{"id": w.id, "root": w.root} for w in window.workspaces]
