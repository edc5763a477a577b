"""The windows and their tabs as the person's and the agents' handlers change them."""

from __future__ import annotations

import asyncio

from ..core.model import Mode, Tab, Window
from ..protocol.errors import ArgumentError
from ..protocol.limits import UI_ROUND_TRIP_SECONDS
from .connection import Connection
from .state import Session
from .turns import WriteTurns


class Windows:
    def __init__(self, session: Session, turns: WriteTurns) -> None:
        self.session = session
        self.turns = turns

    def attach(self, conn: Connection, label: str | None) -> Window:
        """A page attaches to window ``label`` (or the main window when it has no page yet, else a new one)."""
        session = self.session
        if label is None:
            window = session.windows["main"] if not session.pages.get("main") else session.new_window()
        else:
            window = session.windows.get(label) or session.window(label)
        conn.window = window.label
        session.pages.setdefault(window.label, []).append(conn)
        session.touch(window)
        session.changed()
        return window

    def focus(self, window: Window, focused: bool) -> None:
        """The person's focus: at most one window is focused, and a focused window was used last."""
        if focused:
            for other in self.session.windows.values():
                other.focused = False
            self.session.touch(window)
        window.focused = focused
        self.session.changed()

    def page_window(self, conn: Connection) -> Window:
        """The window a page attached to (its requests act there)."""
        if conn.window is None:
            raise ArgumentError("attach to a window first (ui.attach)")
        return self.session.windows[conn.window]

    def activate(self, window: Window, tab: Tab) -> bool:
        """Make ``tab`` the active tab; return whether the workspace instance switched."""
        switched = bool(
            window.workspace_bar and tab.workspace_instance and window.active_workspace != tab.workspace_instance
        )
        if switched:
            window.active_workspace = tab.workspace_instance
        window.active_tab = tab.id
        self.session.touch(window)
        self.session.changed()
        return switched

    def shown_by_page(self, window: Window, active_tab: str | None, active_workspace: str | None) -> None:
        """A page did not show the tab it was asked to (a modal, say): the window is as the page shows it."""
        window.active_tab, window.active_workspace = active_tab, active_workspace
        self.session.changed()

    def switch_workspace(self, window: Window, instance_id: str) -> str | None:
        """Show workspace instance ``instance_id``: its tab that was active, else its last tab; the active tab."""
        self.turns.abort_window_switch(window.label)
        window.active_workspace = instance_id
        active = window.tab(window.active_tab) if window.active_tab else None
        if active is None or not window.is_visible(active):
            visible = [t for t in window.tabs if window.is_visible(t)]
            window.active_tab = visible[-1].id if visible else None
        self.session.touch(window)
        self.session.changed()
        return window.active_tab

    def pin(self, tab: Tab, pinned: bool) -> None:
        tab.pinned = pinned
        self.session.changed()

    def set_mode(self, tab: Tab, mode: Mode) -> None:
        tab.mode = mode
        self.session.changed()

    def close_tab(self, window: Window, tab: Tab) -> None:
        """Close ``tab``; an agent write to its document being recorded right now is aborted."""
        self.turns.person_event(tab.doc, "closed")
        self.session.remove_tab(window, tab)

    async def flush_pages(self, window: Window) -> None:
        """Ask the window's pages to pass on keystrokes they still hold."""
        pages = self.session.pages.get(window.label, [])
        await asyncio.gather(*(p.ask("flush", {}, UI_ROUND_TRIP_SECONDS) for p in pages))
