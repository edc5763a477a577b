"""The person's side of the embedded browser: live views of browser tabs, and the person's own tabs.

A page (ui.attach'ed) views a tab through a screencast of its own: a CDP session on the tab's page
sends JPEG frames, which go to that page only, as ``browser_frame`` events. Flow control: at most one
frame is in flight per view. A frame is in flight from its send until the page says it drew it
(``browser.frame_ack``); a newer frame arriving meanwhile replaces the waiting one, and Chromium gets
its ``Page.screencastFrameAck`` when a frame is drawn or dropped, so it never runs ahead of what the
page keeps up with (and a page that stops acknowledging costs one frame every ``VIEW_ACK_SECONDS``).

The person's input is replayed with real input events (``page.mouse`` / ``page.keyboard``; typed
text as keystrokes, pasted text as one insertion), its coordinates scaled from the view the person
clicked to the tab's viewport. A view ends when the page
detaches, asks (``browser.unview``), or the tab closes.

A page that crashed stays unusable in Playwright, reload or not; ``reload_crashed`` gives the tab a
new page in the same context at the same address.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from vmark.core.limits import VIEW_ACK_SECONDS, VIEW_MAX_TEXT_CHARS, VIEW_MAX_WHEEL_PX, VIEW_NAVIGATION_TIMEOUT_MS

from ..browser.console import install_console
from ..browser.tabs import BrowserTab, UnknownTab
from ..core.errors import ArgumentError, BrowserError
from .browser import BrowserService
from .browser_runs import Runs
from .connection import Connection
from .state import Session
from .tasks import Spawn

#: the screencast: JPEG, and frames no larger than this (Chromium scales the page down to fit)
SCREENCAST = {"format": "jpeg", "quality": 60, "maxWidth": 1280, "maxHeight": 800, "everyNthFrame": 1}
#: how often a view checks that its page is still attached and its tab still open
WATCH_SECONDS = 0.5
MOUSE_BUTTONS = ("left", "middle", "right")
#: modifiers a key event may carry, as Playwright names them in a chord
MODIFIERS = {"ctrl": "Control", "alt": "Alt", "shift": "Shift", "meta": "Meta"}
#: a key name as the DOM gives it (``Enter``, ``ArrowLeft``, ``a``, ``F5``)
KEY_NAME = re.compile(r"[A-Za-z0-9]{1,24}|[^\sA-Za-z0-9]")
#: something that starts with a scheme (``localhost:8000`` and ``host:80/x`` do not)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(?!\d)")


@dataclass(eq=False)
class _View:
    """One page's screencast of one tab."""

    conn: Connection
    tab: BrowserTab
    page: Page
    cdp: CDPSession
    #: the CDP frame number of the frame the page has not acknowledged yet, and when it was sent
    in_flight: int | None = None
    sent_at: float = 0.0
    #: the newest frame not yet sent (it replaces an older one still waiting)
    waiting: dict[str, Any] | None = None
    #: the tab's viewport in CSS pixels, as the latest frame reported it
    viewport: tuple[float, float] | None = None
    stopped: bool = False
    watchdog: asyncio.Task[None] | None = None


class BrowserViews:
    """Every live view of every page, the person's tabs, and which tabs crashed."""

    def __init__(self, session: Session, browser: BrowserService, runs: Runs, background: Spawn) -> None:
        self.session = session
        self.browser = browser
        self.runs = runs
        self.background = background
        self._views: dict[tuple[str, str], _View] = {}
        self._watched: set[str] = set()
        self._crashed: set[str] = set()
        #: per crashed tab, the pages that asked to view it since it crashed (they show the overlay): a
        #: reload starts their views as it does those of the pages that were viewing it when it crashed
        self._overlaid: dict[str, dict[str, Connection]] = {}
        #: the person's input to one tab goes in the order it was sent
        self._input_locks: dict[str, asyncio.Lock] = {}

    # --- tabs -----------------------------------------------------------------------------------------
    def tab(self, tab_id: str) -> BrowserTab:
        self.browser.require_enabled()
        try:
            tab = self.browser.tabs.get(tab_id)
        except UnknownTab as exc:
            raise BrowserError("NO_BROWSER_TAB", f"No browser tab {tab_id[:80]!r} (closed, or never opened)") from exc
        self._watch(tab)
        return tab

    async def listing(self) -> list[dict[str, Any]]:
        for tab in self.browser.tabs.tabs():
            self._watch(tab)
        openers = self.browser.openers
        return [
            {**entry, "crashed": entry["tabId"] in self._crashed, "agent": openers.get(entry["tabId"])}
            for entry in await self.browser.listing()
        ]

    async def open_human(self, url: str | None) -> dict[str, Any]:
        self.browser.require_enabled()
        target = person_url(url) if url else None
        tab = await self.browser.open_human_tab()
        self._watch(tab)
        await self._tabs_changed()
        answer: dict[str, Any] = {"tabId": tab.id}
        if target is not None:
            answer.update(await self._goto(tab, target))
        return answer

    async def close(self, tab: BrowserTab) -> dict[str, Any]:
        """The person may close any tab, theirs or an agent's."""
        self._stop_tab(tab.id)
        with contextlib.suppress(BrowserError):  # a view not confirmed closed is gone from the list all the same
            await self.browser.close(tab.id, ai_only=False)
        self._forget(tab.id)
        await self._tabs_changed()
        return {"tabId": tab.id, "closed": True}

    # --- navigation -----------------------------------------------------------------------------------
    async def nav(self, tab: BrowserTab, op: Any, url: Any) -> dict[str, Any]:
        self.runs.person_took_over(tab.id)  # the person drives now: a run on the tab stops
        if op == "go":
            if not isinstance(url, str) or not url.strip():
                raise ArgumentError("argument 'url' must be a non-empty string")
            return await self._goto(tab, person_url(url))
        moves = {"back": tab.page.go_back, "forward": tab.page.go_forward, "reload": tab.page.reload}
        move = moves.get(op) if isinstance(op, str) else None
        if move is None:
            raise ArgumentError("op must be 'back', 'forward', 'reload' or 'go'")
        error = None
        try:
            await move(wait_until="commit", timeout=VIEW_NAVIGATION_TIMEOUT_MS)
        except PlaywrightError as exc:
            error = _first_line(exc)
        return self._where(tab, error)

    async def _goto(self, tab: BrowserTab, url: str) -> dict[str, Any]:
        error = None
        try:
            await tab.page.goto(url, wait_until="commit", timeout=VIEW_NAVIGATION_TIMEOUT_MS)
        except PlaywrightError as exc:  # the tab shows Chromium's error page: the person sees why
            error = _first_line(exc)
        return self._where(tab, error)

    def _where(self, tab: BrowserTab, error: str | None) -> dict[str, Any]:
        answer: dict[str, Any] = {"tabId": tab.id, "url": tab.url}
        if error is not None:
            answer["error"] = error
        return answer

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
        self._spawn(self.session.notify("browser_crashed", {"tabId": tab.id}))

    def _on_close(self, tab: BrowserTab, page: Page) -> None:
        if tab.page is not page:  # the crashed page a reload replaced
            return
        # an agent's close says so in the state event; the person's close sends browser_tabs itself
        self._stop_tab(tab.id)
        self._forget(tab.id)

    async def reload_crashed(self, tab: BrowserTab) -> dict[str, Any]:
        if tab.id not in self._crashed:
            raise ArgumentError(f"{tab.id} has not crashed")
        crashed = tab.page
        url = crashed.url
        viewers = {view.conn.id: view.conn for view in self._views_of(tab.id)}
        attached = {conn.id for conn in self.session.person_connections()}
        viewers.update((cid, conn) for cid, conn in self._overlaid.pop(tab.id, {}).items() if cid in attached)
        self._stop_tab(tab.id)
        await _renew_page(self.browser, tab)
        self._crashed.discard(tab.id)
        self._listen(tab, tab.page)
        with contextlib.suppress(PlaywrightError):
            await crashed.close()
        self.browser.driver.forget(crashed)
        for conn in viewers.values():
            await self.view(conn, tab)
        answer = await self._goto(tab, url) if urlsplit(url).scheme in ("http", "https") else self._where(tab, None)
        await self._tabs_changed()
        return answer

    # --- views ----------------------------------------------------------------------------------------
    async def view(self, conn: Connection, tab: BrowserTab) -> dict[str, Any]:
        if conn.window is None:
            raise ArgumentError("attach to a window first (ui.attach)")
        self._stop((conn.id, tab.id))
        answer = {"tabId": tab.id, "url": tab.url, "title": tab.title, "crashed": tab.id in self._crashed}
        if tab.id in self._crashed:  # nothing to show but the overlay until the person reloads it
            self._overlaid.setdefault(tab.id, {})[conn.id] = conn
            return answer
        cdp = await tab.page.context.new_cdp_session(tab.page)
        view = _View(conn, tab, tab.page, cdp)
        self._views[(conn.id, tab.id)] = view
        cdp.on("Page.screencastFrame", lambda event: self._on_frame(view, event))
        await cdp.send("Page.startScreencast", SCREENCAST)
        view.watchdog = asyncio.ensure_future(self._watchdog(view))
        return answer

    def unview(self, conn: Connection, tab_id: str) -> dict[str, Any]:
        overlaid = self._overlaid.get(tab_id, {}).pop(conn.id, None) is not None
        return {"tabId": tab_id, "stopped": self._stop((conn.id, tab_id)) or overlaid}

    def frame_ack(self, conn: Connection, tab_id: str) -> dict[str, Any]:
        """The page drew the frame it was sent: Chromium may send the next, and the newest waiting goes."""
        view = self._views.get((conn.id, tab_id))
        if view is not None:
            self._acked(view)
        return {"tabId": tab_id}

    def _on_frame(self, view: _View, event: dict[str, Any]) -> None:
        if view.stopped:
            return
        if view.waiting is not None:  # never shown: the newer frame replaces it
            self._ack_chromium(view, view.waiting)
        view.waiting = event
        if view.in_flight is None:
            self._send_next(view)

    def _send_next(self, view: _View) -> None:
        event, view.waiting = view.waiting, None
        if event is None:
            return
        metadata = event.get("metadata", {})
        width, height = float(metadata.get("deviceWidth", 0)), float(metadata.get("deviceHeight", 0))
        if width > 0 and height > 0:
            view.viewport = (width, height)
        view.in_flight, view.sent_at = int(event["sessionId"]), time.monotonic()
        payload = {"tabId": view.tab.id, "data": event["data"], "width": width, "height": height, "url": view.tab.url}
        self._spawn(self._push(view, payload))

    async def _push(self, view: _View, payload: dict[str, Any]) -> None:
        try:
            await view.conn.send({"type": "event", "event": "browser_frame", "payload": payload})
        except ConnectionError:
            self._stop((view.conn.id, view.tab.id))

    def _acked(self, view: _View) -> None:
        if view.in_flight is not None:
            self._ack_chromium(view, {"sessionId": view.in_flight})
            view.in_flight = None
        self._send_next(view)

    def _ack_chromium(self, view: _View, event: dict[str, Any]) -> None:
        self._spawn(_quietly(view.cdp.send("Page.screencastFrameAck", {"sessionId": event["sessionId"]})))

    async def _watchdog(self, view: _View) -> None:
        """End the view when its page detached or its tab went; unstick a page that stopped acknowledging."""
        key = (view.conn.id, view.tab.id)
        while not view.stopped:
            await asyncio.sleep(WATCH_SECONDS)
            attached = any(conn is view.conn for conn in self.session.person_connections())
            if not attached or view.page.is_closed() or view.tab.page is not view.page:
                self._stop(key)
                return
            if view.in_flight is not None and time.monotonic() - view.sent_at > VIEW_ACK_SECONDS:
                self._acked(view)

    def _views_of(self, tab_id: str) -> list[_View]:
        return [view for (_, tid), view in self._views.items() if tid == tab_id]

    def _stop(self, key: tuple[str, str]) -> bool:
        view = self._views.pop(key, None)
        if view is None:
            return False
        view.stopped = True
        # only the watchdog is cancelled: a push cut in half would break the page's socket
        if view.watchdog is not None and view.watchdog is not asyncio.current_task():
            view.watchdog.cancel()
        self._spawn(_quietly(_end_screencast(view.cdp)))
        return True

    def _stop_tab(self, tab_id: str) -> None:
        for view in self._views_of(tab_id):
            self._stop((view.conn.id, tab_id))

    def _forget(self, tab_id: str) -> None:
        self._watched.discard(tab_id)
        self._crashed.discard(tab_id)
        self._overlaid.pop(tab_id, None)
        self._input_locks.pop(tab_id, None)

    # --- input ----------------------------------------------------------------------------------------
    async def input(self, conn: Connection, tab: BrowserTab, args: dict[str, Any]) -> dict[str, Any]:
        self.runs.person_took_over(tab.id)
        if tab.id in self._crashed:
            raise BrowserError("NO_BROWSER_TAB", f"{tab.id} crashed: reload it first", tabId=tab.id)
        kind = args.get("kind")
        lock = self._input_locks.setdefault(tab.id, asyncio.Lock())
        async with lock:
            try:
                if kind == "mouse":
                    await self._click(conn, tab, args)
                elif kind == "wheel":
                    await self._wheel(conn, tab, args)
                elif kind == "key":
                    await tab.page.keyboard.press(_chord(args))
                elif kind == "text" and args.get("paste"):
                    await tab.page.keyboard.insert_text(_text(args))  # a paste: text, no keystrokes
                elif kind == "text":
                    await tab.page.keyboard.type(_text(args))  # key events per character where a key makes it
                else:
                    raise ArgumentError("kind must be 'mouse', 'key', 'wheel' or 'text'")
            except PlaywrightError as exc:
                raise ArgumentError(f"the input did not reach the page: {_first_line(exc)}") from exc
        return {"tabId": tab.id, "kind": kind}

    async def _click(self, conn: Connection, tab: BrowserTab, args: dict[str, Any]) -> None:
        x, y = await self._point(conn, tab, args)
        button = args.get("button", "left")
        if button not in MOUSE_BUTTONS:
            raise ArgumentError(f"button must be one of {list(MOUSE_BUTTONS)}")
        count = args.get("clickCount", 1)
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 3:
            raise ArgumentError("clickCount must be an integer from 1 to 3")
        await tab.page.mouse.click(x, y, button=button, click_count=count)

    async def _wheel(self, conn: Connection, tab: BrowserTab, args: dict[str, Any]) -> None:
        x, y = await self._point(conn, tab, args)
        dx, dy = (_number(args, name, -VIEW_MAX_WHEEL_PX, VIEW_MAX_WHEEL_PX, 0.0) for name in ("dx", "dy"))
        await tab.page.mouse.move(x, y)
        await tab.page.mouse.wheel(dx, dy)

    async def _point(self, conn: Connection, tab: BrowserTab, args: dict[str, Any]) -> tuple[float, float]:
        """``x, y`` in a view of ``width`` x ``height`` (what the person clicked), in viewport pixels."""
        width = _number(args, "width", 1.0, 100_000.0)
        height = _number(args, "height", 1.0, 100_000.0)
        x, y = _number(args, "x", 0.0, width), _number(args, "y", 0.0, height)
        vw, vh = await self._viewport(conn, tab)
        return x * vw / width, y * vh / height

    async def _viewport(self, conn: Connection, tab: BrowserTab) -> tuple[float, float]:
        view = self._views.get((conn.id, tab.id))
        if view is not None and view.viewport is not None:
            return view.viewport
        size = tab.page.viewport_size
        if size is not None:
            return float(size["width"]), float(size["height"])
        inner = await tab.page.evaluate("[innerWidth, innerHeight]")
        return float(inner[0]), float(inner[1])

    # --- helpers --------------------------------------------------------------------------------------
    async def _tabs_changed(self) -> None:
        """Pages showing the tab list load it again (the state event does not carry browser tabs)."""
        await self.session.notify("browser_tabs", {})

    def _spawn(self, work: Any) -> None:
        self.background(work)


def person_url(raw: str) -> str:
    """Where the person asked to go: any http(s) address (``example.org`` means https); other schemes
    (``javascript:``, ``file:``, ``data:``, ...) are refused."""
    url = raw.strip()
    if not _SCHEME.match(url):
        url = "https://" + url
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ArgumentError(f"only http and https addresses can be opened, not {raw[:100]!r}")
    return url


async def _renew_page(browser: BrowserService, tab: BrowserTab) -> None:
    """A new page for ``tab`` in the same context (a crashed Playwright page never recovers)."""
    driver = browser.driver
    page = await driver.new_page(tab.posture, tab.profile, ai=tab.owner == "ai")
    tab.page, tab.events = page, driver.events(page)
    # BrowserTab counts navigations from its page's framenavigated events: bind the new page's
    page.on("framenavigated", tab._on_frame_navigated)
    if tab.owner == "ai":
        await install_console(page)


async def _end_screencast(cdp: CDPSession) -> None:
    await cdp.send("Page.stopScreencast")
    await cdp.detach()


async def _quietly(work: Any) -> None:
    """CDP calls on a page that may be gone meanwhile (closed, crashed, detached)."""
    with contextlib.suppress(PlaywrightError):
        await work


def _number(args: dict[str, Any], name: str, low: float, high: float, default: float | None = None) -> float:
    value = args.get(name, default)
    if not isinstance(value, int | float) or isinstance(value, bool) or not low <= value <= high:
        raise ArgumentError(f"argument {name!r} must be a number from {low:g} to {high:g}")
    return float(value)


def _chord(args: dict[str, Any]) -> str:
    key = args.get("key")
    if not isinstance(key, str) or not KEY_NAME.fullmatch(key):
        raise ArgumentError("argument 'key' must be a key name such as 'Enter', 'ArrowLeft' or 'a'")
    modifiers = args.get("modifiers") or {}
    if not isinstance(modifiers, dict):
        raise ArgumentError("argument 'modifiers' must be an object such as {ctrl: true}")
    held = [name for flag, name in MODIFIERS.items() if modifiers.get(flag)]
    return "+".join([*held, key])


def _text(args: dict[str, Any]) -> str:
    text = args.get("text")
    if not isinstance(text, str) or not 0 < len(text) <= VIEW_MAX_TEXT_CHARS:
        raise ArgumentError(f"argument 'text' must be a string of 1 to {VIEW_MAX_TEXT_CHARS} characters")
    return text


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
