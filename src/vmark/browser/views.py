"""The person's side of the embedded browser (the Browser panel): every tab listed, the person's own tabs
opened and driven, live views of any tab, crashed tabs recovered.

A viewer (one of the person's pages) views a tab through a screencast of its own
(:mod:`vmark.browser.screencast`); its input is replayed on the tab (:mod:`vmark.browser.person_input`), in
the order it was sent, and the person's navigation (:mod:`vmark.browser.person_nav`) goes where they say.
Whatever the person does on a tab stops a workflow run on it. A view ends when the viewer detaches or asks
(:meth:`BrowserViews.unview`), or the tab closes. A page that crashed stays unusable in Playwright, reload
or not; :meth:`BrowserViews.reload_crashed` gives the tab a new page at the same address.

What the app gives (:class:`PanelHooks`): whether the browser is on, how a person's tab opens and any tab
closes (its grants and runs go with it), whether a viewer is still attached, the pages' notifications
(``browser_tabs``, ``browser_crashed``), and a way to start work.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from vmark.browser import person_nav
from vmark.browser.person_input import Size, replay
from vmark.browser.runs import Runs
from vmark.browser.screencast import Screencast, Spawn, Viewer
from vmark.browser.tabs import BrowserTab, TabRegistry, UnknownTab
from vmark.protocol import wire_types as wire
from vmark.protocol.errors import ArgumentError, BrowserError
from vmark.protocol.jsontypes import JSONObject

if TYPE_CHECKING:
    from playwright.async_api import Page


@dataclass(frozen=True)
class PanelHooks:
    """What the Browser panel needs from the app."""

    #: raises ``BrowserError`` (``BROWSER_DISABLED``) while the embedded browser is off
    require_enabled: Callable[[], None]
    #: opens a tab of the person's (in their own profile)
    open_tab: Callable[[], Awaitable[BrowserTab]]
    #: closes any tab, the person's or an agent's (its grants and its run go with it)
    close_tab: Callable[[str], Awaitable[object]]
    #: the agent that opened a tab, as the person sees it (the panel says whose it is); None for the person's
    opener: Callable[[str], str | None]
    #: the viewer's page is still attached
    attached: Callable[[Viewer], bool]
    #: an event (name, payload) to the person's pages
    notify: Callable[[str, dict[str, Any]], Coroutine[Any, Any, None]]
    #: starts work nobody waits for
    spawn: Spawn


class BrowserViews:
    """Every live view of every viewer, the person's tabs, and which tabs crashed."""

    def __init__(self, tabs: TabRegistry, runs: Runs, hooks: PanelHooks) -> None:
        self._tabs = tabs
        self._runs = runs
        self._hooks = hooks
        self._views: dict[tuple[str, str], Screencast] = {}
        self._watched: set[str] = set()
        self._crashed: set[str] = set()
        #: per crashed tab, the viewers that asked to view it since it crashed (they show the overlay): a
        #: reload starts their views as it does those of the viewers that were viewing it when it crashed
        self._overlaid: dict[str, dict[str, Viewer]] = {}
        #: the person's input to one tab goes in the order it was sent
        self._input_locks: dict[str, asyncio.Lock] = {}

    # --- tabs -----------------------------------------------------------------------------------------
    def tab(self, tab_id: str) -> BrowserTab:
        self._hooks.require_enabled()
        try:
            tab = self._tabs.get(tab_id)
        except UnknownTab as exc:
            raise BrowserError("NO_BROWSER_TAB", f"No browser tab {tab_id[:80]!r} (closed, or never opened)") from exc
        self._watch(tab)
        return tab

    async def listing(self) -> list[wire.BrowserTabInfo]:
        for tab in self._tabs.tabs():
            self._watch(tab)
        return [
            {**entry, "crashed": entry["tabId"] in self._crashed, "agent": self._hooks.opener(entry["tabId"])}
            for entry in await self._tabs.listing()
        ]

    async def open_human(self, url: str | None) -> wire.BrowserOpened:
        self._hooks.require_enabled()
        target = person_nav.person_url(url) if url else None
        tab = await self._hooks.open_tab()
        self._watch(tab)
        await self._tabs_changed()
        answer: wire.BrowserOpened = {"tabId": tab.id}
        if target is not None:
            went = await person_nav.goto(tab, target)
            answer["url"] = went["url"]
            if "error" in went:
                answer["error"] = went["error"]
        return answer

    async def close(self, tab: BrowserTab) -> wire.BrowserClosed:
        """The person may close any tab, theirs or an agent's."""
        self._stop_tab(tab.id)
        with contextlib.suppress(BrowserError):  # a view not confirmed closed is gone from the list all the same
            await self._hooks.close_tab(tab.id)
        self._forget(tab.id)
        await self._tabs_changed()
        return {"tabId": tab.id, "closed": True}

    async def nav(self, tab: BrowserTab, op: object, url: object) -> wire.BrowserWhere:
        self._runs.person_took_over(tab.id)  # the person drives now: a run on the tab stops
        return await person_nav.move(tab, op, url)

    # --- crashes --------------------------------------------------------------------------------------
    def _watch(self, tab: BrowserTab) -> None:
        """Crash and close listeners on the tab's page (once per page)."""
        if tab.id in self._watched:
            return
        self._watched.add(tab.id)
        self._listen(tab, tab.page)

    def _listen(self, tab: BrowserTab, page: Page) -> None:
        page.on("crash", lambda crashed: self._on_crash(tab, crashed))
        page.on("close", lambda closed: self._on_close(tab, closed))

    def _on_crash(self, tab: BrowserTab, page: Page) -> None:
        if tab.page is not page:
            return
        self._crashed.add(tab.id)
        self._hooks.spawn(self._hooks.notify("browser_crashed", {"tabId": tab.id}))

    def _on_close(self, tab: BrowserTab, page: Page) -> None:
        if tab.page is not page:  # the crashed page a reload replaced
            return
        # an agent's close says so in the state event; the person's close sends browser_tabs itself
        self._stop_tab(tab.id)
        self._forget(tab.id)

    async def reload_crashed(self, tab: BrowserTab) -> wire.BrowserWhere:
        if tab.id not in self._crashed:
            raise ArgumentError(f"{tab.id} has not crashed")
        url = tab.page.url
        viewers = {cast.viewer.id: cast.viewer for cast in self._views_of(tab.id)}
        overlaid = self._overlaid.pop(tab.id, {})
        viewers.update((vid, viewer) for vid, viewer in overlaid.items() if self._hooks.attached(viewer))
        self._stop_tab(tab.id)
        crashed = await self._tabs.renew_page(tab)
        self._crashed.discard(tab.id)
        self._listen(tab, tab.page)
        await self._tabs.drop_page(crashed)
        for viewer in viewers.values():
            await self.view(viewer, tab)
        http = urlsplit(url).scheme in ("http", "https")
        answer = await person_nav.goto(tab, url) if http else person_nav.where(tab, None)
        await self._tabs_changed()
        return answer

    # --- views ----------------------------------------------------------------------------------------
    async def view(self, viewer: Viewer, tab: BrowserTab) -> wire.BrowserViewed:
        self._stop((viewer.id, tab.id))
        crashed = tab.id in self._crashed
        answer: wire.BrowserViewed = {"tabId": tab.id, "url": tab.url, "title": tab.title, "crashed": crashed}
        if tab.id in self._crashed:  # nothing to show but the overlay until the person reloads it
            self._overlaid.setdefault(tab.id, {})[viewer.id] = viewer
            return answer
        cdp = await tab.page.context.new_cdp_session(tab.page)
        key = (viewer.id, tab.id)
        hooks = self._hooks
        cast = Screencast(viewer, tab, cdp, attached=hooks.attached, spawn=hooks.spawn, end=lambda: self._stop(key))
        self._views[key] = cast
        await cast.start()
        return answer

    def unview(self, viewer: Viewer, tab_id: str) -> wire.BrowserUnviewed:
        overlaid = self._overlaid.get(tab_id, {}).pop(viewer.id, None) is not None
        return {"tabId": tab_id, "stopped": self._stop((viewer.id, tab_id)) or overlaid}

    def frame_ack(self, viewer: Viewer, tab_id: str) -> wire.BrowserTabPayload:
        """The viewer drew the frame it was sent (see :meth:`Screencast.drawn`)."""
        cast = self._views.get((viewer.id, tab_id))
        if cast is not None:
            cast.drawn()
        return {"tabId": tab_id}

    def _views_of(self, tab_id: str) -> list[Screencast]:
        return [cast for (_, tid), cast in self._views.items() if tid == tab_id]

    def _stop(self, key: tuple[str, str]) -> bool:
        cast = self._views.pop(key, None)
        if cast is None:
            return False
        cast.stop()
        return True

    def _stop_tab(self, tab_id: str) -> None:
        for cast in self._views_of(tab_id):
            self._stop((cast.viewer.id, tab_id))

    def _forget(self, tab_id: str) -> None:
        self._watched.discard(tab_id)
        self._crashed.discard(tab_id)
        self._overlaid.pop(tab_id, None)
        self._input_locks.pop(tab_id, None)

    # --- input ----------------------------------------------------------------------------------------
    async def input(self, viewer: Viewer, tab: BrowserTab, args: JSONObject) -> wire.BrowserInputResult:
        self._runs.person_took_over(tab.id)
        if tab.id in self._crashed:
            raise BrowserError("NO_BROWSER_TAB", f"{tab.id} crashed: reload it first", tabId=tab.id)
        lock = self._input_locks.setdefault(tab.id, asyncio.Lock())
        async with lock:
            await replay(tab.page, args, lambda: self._shown(viewer, tab))
        return {"tabId": tab.id, "kind": args["kind"]}  # one of the four: replay refused any other

    def _shown(self, viewer: Viewer, tab: BrowserTab) -> Size | None:
        cast = self._views.get((viewer.id, tab.id))
        return cast.viewport if cast is not None else None

    async def _tabs_changed(self) -> None:
        """Viewers showing the tab list load it again (the state event does not carry browser tabs)."""
        await self._hooks.notify("browser_tabs", {})
