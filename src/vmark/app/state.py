"""The session: windows, workspace instances, documents and tabs, owned by one loop.

Requests are routed here to a window: the one owning the tab, else the focused
window, else the most recently used one, else ``main``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable, Iterator

from ..core.ids import new_id
from ..core.model import Document, Mode, Tab, Window, WorkspaceInstance
from ..core.transaction import Transaction
from ..protocol.errors import ArgumentError, DomainError
from ..protocol.wire_types import Kind, WindowInfo
from ..storage.pathscope import PathScope, ScopeError, canonical, is_within
from .connection import Connection

#: sees a transaction as it applies (in order, before anything else runs on the loop)
Observer = Callable[[Transaction], None]
#: records a transaction after the observers; ``Session.apply`` returns once every follower has
Follower = Callable[[Transaction], Awaitable[None]]


class Session:
    def __init__(self) -> None:
        self.windows: dict[str, Window] = {"main": Window("main")}
        self.docs: dict[str, Document] = {}
        self.pages: dict[str, list[Connection]] = {}
        self._window_numbers = 0
        self._untitled_numbers = 0
        self.switching: set[str] = set()
        #: connected agents (bridge connections with role ``agent``), for the pages' indicator
        self.agents: dict[str, Connection] = {}
        #: what follows every change of a document's text (given by the composition root): see :meth:`apply`
        self.observers: list[Observer] = []
        self.followers: list[Follower] = []
        #: called with (old key, new key) when a document moves: what is keyed by documents moves too
        self.rekey_listeners: list[Callable[[str, str], None]] = []
        #: told when a tab opens a document (another tab of it too), and with its key when its last tab closed
        self.open_listeners: list[Callable[[Document], None]] = []
        self.close_listeners: list[Callable[[str], None]] = []
        #: the mode a new tab shows first (the composition root gives :meth:`vmark.app.modes.EditorModes.initial`)
        self.initial_mode: Callable[[Document], Mode] = lambda doc: "source"
        #: told each time the session changed (tabs, windows, what is active): the pages' push is one of them
        self.state_listeners: list[Callable[[], None]] = []
        #: told after them, unless only a document's text changed (:meth:`apply`): what follows the tabs (which
        #: are open, where, under what path and title, which is active) and would walk them all for nothing
        self.tab_listeners: list[Callable[[], None]] = []
        #: told when the person's selection in a tab came to rest (the page reports it once it stops moving)
        self.selection_listeners: list[Callable[[Window, Tab], None]] = []
        #: told when a window opens a workspace (or shows one it holds again): the recent folders remember it
        self.workspace_listeners: list[Callable[[Window, WorkspaceInstance], None]] = []

    # --- routing -------------------------------------------------------------------
    def window(self, label: str | None = None) -> Window:
        if label is not None:
            window = self.windows.get(label)
            if window is None:
                raise ArgumentError(f"unknown windowLabel {label!r}; known: {', '.join(self.windows)}")
            return window
        focused = [w for w in self.windows.values() if w.focused]
        if focused:
            return focused[0]
        return max(self.windows.values(), key=lambda w: (w.last_used, w.label == "main"))

    def new_window(self) -> Window:
        self._window_numbers += 1
        window = Window(f"doc-{self._window_numbers}")
        self.windows[window.label] = window
        return window

    def tabs(self) -> Iterator[tuple[Window, Tab]]:
        for window in self.windows.values():
            for tab in window.tabs:
                yield window, tab

    def find_tab(self, tab_id: str) -> tuple[Window, Tab]:
        for window, tab in self.tabs():
            if tab.id == tab_id:
                return window, tab
        raise DomainError("INVALID_TAB", f"No tab with id {tab_id!r}", tabId=tab_id)

    def resolve_tab(self, tab_id: str | None) -> tuple[Window, Tab]:
        if tab_id is not None:
            return self.find_tab(tab_id)
        window = self.window()
        tab = window.tab(window.active_tab) if window.active_tab else None
        if tab is None:
            raise DomainError("INVALID_TAB", f"No tabId given and window {window.label!r} has no active tab")
        return window, tab

    def touch(self, window: Window) -> None:
        window.last_used = time.monotonic()

    # --- scope ---------------------------------------------------------------------
    def scope(self, window: Window) -> PathScope:
        dirs = [w.root for w in window.workspaces]
        dirs += [os.path.dirname(t.doc.path) for t in window.tabs if t.doc.path]
        return PathScope.of(dirs)

    def workspace_for(self, window: Window, real_path: str) -> WorkspaceInstance | None:
        inside = [w for w in window.workspaces if is_within(real_path, w.root)]
        return max(inside, key=lambda w: len(w.root)) if inside else None

    # --- the one transaction path ------------------------------------------------------
    async def apply(self, tx: Transaction) -> None:
        """The only way a document's text changes: ``tx.doc`` takes ``tx.state``, its change log keeps the
        change, every observer sees it at once (comment anchors, the abort of an agent write being recorded),
        the pages get it on the next loop turn (:mod:`vmark.app.page_push`), then every follower records it
        (coherence, history) in turn.

        The state is set and observed before the first await: nothing else runs on the loop in between.
        """
        doc = tx.doc
        doc.state = tx.state
        doc.recent.record(tx.state)
        for observer in self.observers:
            observer(tx)
        self.changed(tabs=False)
        for follower in self.followers:
            await follower(tx)

    # --- documents and tabs ----------------------------------------------------------
    def add_tab(self, window: Window, doc: Document, activate: bool) -> Tab:
        wsi = self.workspace_for(window, doc.path) if doc.path else None
        tab = Tab(id=new_id("tab"), window=window.label, doc=doc, workspace_instance=wsi.id if wsi else None)
        tab.mode = self.initial_mode(doc)
        if doc.path is None:
            self._untitled_numbers += 1
            tab.untitled_number = self._untitled_numbers
        self.docs[doc.key] = doc
        for listener in self.open_listeners:
            listener(doc)
        window.tabs.append(tab)
        if activate or window.active_tab is None:
            window.active_tab = tab.id
        self.changed()
        return tab

    def remove_tab(self, window: Window, tab: Tab) -> None:
        index = window.tabs.index(tab)
        window.tabs.remove(tab)
        if window.active_tab == tab.id:
            rest = window.tabs[index:] + window.tabs[:index][::-1]
            window.active_tab = rest[0].id if rest else None
        if not any(t.doc is tab.doc for _, t in self.tabs()):
            self.docs.pop(tab.doc.key, None)
            for listener in self.close_listeners:
                listener(tab.doc.key)
        self.changed()

    def doc_by_path(self, real_path: str) -> Document | None:
        return self.docs.get(real_path)

    def tabs_of(self, doc: Document) -> list[tuple[Window, Tab]]:
        return [(w, t) for w, t in self.tabs() if t.doc is doc]

    def rekey(self, doc: Document, real_path: str, kind: Kind) -> None:
        old = doc.key
        self.docs.pop(doc.key, None)
        doc.key, doc.path, doc.kind = real_path, real_path, kind
        self.docs[doc.key] = doc
        for window, tab in self.tabs_of(doc):
            wsi = self.workspace_for(window, real_path)
            tab.workspace_instance = wsi.id if wsi else None
        for listener in self.rekey_listeners:
            listener(old, real_path)
        self.changed()

    def open_workspace(self, window: Window, root: str) -> WorkspaceInstance:
        wsi = next((w for w in window.workspaces if w.root == root), None)
        if wsi is None:
            wsi = WorkspaceInstance(new_id("wsi"), root)
            window.workspaces.append(wsi)
            for tab in window.tabs:
                if tab.doc.path and tab.workspace_instance is None and is_within(tab.doc.path, root):
                    tab.workspace_instance = wsi.id
        window.active_workspace = wsi.id
        self.changed()
        for listener in self.workspace_listeners:
            listener(window, wsi)
        return wsi

    # --- describing, and what the pages are told of (vmark.app.page_push) --------------------------------
    def describe(self) -> list[WindowInfo]:
        return [w.describe() for w in self.windows.values()]

    def agent_joined(self, conn: Connection) -> None:
        self.agents[conn.id] = conn
        self.changed()

    def agent_hears(self, conn: Connection) -> None:
        """An agent connection asked for the agents' change notifications: from the session as it is now."""
        if not conn.hears:
            conn.hears = True
            self.changed()

    def hearing_agents(self) -> list[Connection]:
        """The agent connections sent the agents' change notifications (:mod:`vmark.protocol.agent_events`)."""
        return [conn for conn in self.agents.values() if conn.hears]

    def agent_left(self, conn: Connection) -> None:
        if self.agents.pop(conn.id, None) is not None:
            self.changed()

    def person_connections(self) -> Iterator[Connection]:
        for conns in self.pages.values():
            yield from conns

    def files_changed(self) -> None:
        """Files of a workspace were created, moved or trashed: a change of the session (tabs may show them)."""
        self.changed()

    def selection_rested(self, window: Window, tab: Tab, start: int, end: int) -> None:
        """The person's selection in ``tab`` is ``start..end`` now (in the coordinates of the tab's mode)."""
        tab.selection = (start, end)
        for listener in self.selection_listeners:
            listener(window, tab)

    def changed(self, *, tabs: bool = True) -> None:
        """Tell the state listeners (the pages' push among them) that the session changed, then the tab listeners
        unless ``tabs`` is False (a change of text, which moves no tab)."""
        for listener in self.state_listeners:
            listener()
        if tabs:
            for listener in self.tab_listeners:
                listener()


def canonical_or_invalid(path: str) -> str:
    try:
        return canonical(path)
    except ScopeError as exc:
        raise exc.refusal(path) from exc
