"""One page's live view of one browser tab: a CDP screencast of the tab's page, flow-controlled.

A CDP session on the tab's page sends JPEG frames, which go to that one viewer only, as
``browser_frame`` events. At most one frame is in flight per view: a frame is in flight from its send
until the viewer says it drew it (:meth:`Screencast.drawn`); a newer frame arriving meanwhile replaces
the waiting one, and Chromium gets its ``Page.screencastFrameAck`` when a frame is drawn or dropped, so it
never runs ahead of what the viewer keeps up with (and a viewer that stops acknowledging costs one frame
every ``VIEW_ACK_SECONDS``). A view ends when it is stopped, or by itself (through ``end``) when its
viewer detached, its page closed or its tab got another page.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from vmark.browser.failures import PlaywrightError
from vmark.browser.person_input import Size
from vmark.browser.tabs import BrowserTab
from vmark.protocol.limits import VIEW_ACK_SECONDS

if TYPE_CHECKING:
    from playwright.async_api import CDPSession

#: the screencast: JPEG, and frames no larger than this (Chromium scales the page down to fit)
SCREENCAST = {"format": "jpeg", "quality": 60, "maxWidth": 1280, "maxHeight": 800, "everyNthFrame": 1}
#: how often a view checks that its viewer is still attached and its tab still shows its page
WATCH_SECONDS = 0.5
#: work started without waiting for it (the app's background tasks)
Spawn = Callable[[Coroutine[Any, Any, Any]], None]


class Viewer(Protocol):
    """The person's page a view's frames go to (its connection to the app)."""

    @property
    def id(self) -> str: ...

    @property
    def send(self) -> Callable[[dict[str, Any]], Awaitable[None]]: ...


class Screencast:
    """``attached(viewer)``: the viewer's page is still there; ``end()``: the view ended by itself (the
    owner forgets it and calls :meth:`stop`)."""

    def __init__(
        self,
        viewer: Viewer,
        tab: BrowserTab,
        cdp: CDPSession,
        *,
        attached: Callable[[Viewer], bool],
        spawn: Spawn,
        end: Callable[[], object],
    ) -> None:
        self.viewer = viewer
        self.tab = tab
        self.page = tab.page
        self._cdp = cdp
        self._attached = attached
        self._spawn = spawn
        self._end = end
        #: the CDP frame number of the frame the viewer has not acknowledged yet, and when it was sent
        self._in_flight: int | None = None
        self._sent_at = 0.0
        #: the newest frame not yet sent (it replaces an older one still waiting)
        self._waiting: dict[str, Any] | None = None
        #: the tab's viewport in CSS pixels, as the latest frame reported it
        self.viewport: Size | None = None
        self._stopped = False
        self._watchdog: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._cdp.on("Page.screencastFrame", self._on_frame)
        await self._cdp.send("Page.startScreencast", SCREENCAST)
        self._watchdog = asyncio.ensure_future(self._watch())

    def drawn(self) -> None:
        """The viewer drew the frame it was sent: Chromium may send the next, and the newest waiting goes."""
        if self._in_flight is not None:
            self._ack_chromium(self._in_flight)
            self._in_flight = None
        self._send_next()

    def stop(self) -> None:
        self._stopped = True
        # only the watchdog is cancelled: a push cut in half would break the viewer's socket
        if self._watchdog is not None and self._watchdog is not asyncio.current_task():
            self._watchdog.cancel()
        self._spawn(_quietly(_end_screencast(self._cdp)))

    def _on_frame(self, event: dict[str, Any]) -> None:
        if self._stopped:
            return
        if self._waiting is not None:  # never shown: the newer frame replaces it
            self._ack_chromium(int(self._waiting["sessionId"]))
        self._waiting = event
        if self._in_flight is None:
            self._send_next()

    def _send_next(self) -> None:
        event, self._waiting = self._waiting, None
        if event is None:
            return
        metadata = event.get("metadata", {})
        width, height = float(metadata.get("deviceWidth", 0)), float(metadata.get("deviceHeight", 0))
        if width > 0 and height > 0:
            self.viewport = (width, height)
        self._in_flight, self._sent_at = int(event["sessionId"]), time.monotonic()
        payload = {"tabId": self.tab.id, "data": event["data"], "width": width, "height": height, "url": self.tab.url}
        self._spawn(self._push(payload))

    async def _push(self, payload: dict[str, Any]) -> None:
        try:
            await self.viewer.send({"type": "event", "event": "browser_frame", "payload": payload})
        except ConnectionError:
            self._end()

    def _ack_chromium(self, frame: int) -> None:
        self._spawn(_quietly(self._cdp.send("Page.screencastFrameAck", {"sessionId": frame})))

    async def _watch(self) -> None:
        """End the view when its viewer detached or its tab's page went; unstick a viewer that stopped
        acknowledging."""
        while not self._stopped:
            await asyncio.sleep(WATCH_SECONDS)
            if not self._attached(self.viewer) or self.page.is_closed() or self.tab.page is not self.page:
                self._end()
                return
            if self._in_flight is not None and time.monotonic() - self._sent_at > VIEW_ACK_SECONDS:
                self.drawn()


async def _end_screencast(cdp: CDPSession) -> None:
    await cdp.send("Page.stopScreencast")
    await cdp.detach()


async def _quietly(work: Awaitable[Any]) -> None:
    """CDP calls on a page that may be gone meanwhile (closed, crashed, detached)."""
    with contextlib.suppress(PlaywrightError):
        await work
