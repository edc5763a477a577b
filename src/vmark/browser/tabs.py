"""Browser tabs: who owns each, what it shows (redacted), and how many navigations it has seen.

``generation`` counts the committed navigations of a tab's main frame, same-document ones included
(a fragment change, ``pushState``): Playwright reports both as ``framenavigated``. Anything bound to
what a page showed (grants, refs) can compare generations, or subscribe with ``on_navigate``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from vmark.browser.console import install_console
from vmark.browser.driver import BrowserDriver, PageEvents, Posture
from vmark.browser.failures import PlaywrightError
from vmark.browser.urlpolicy import redact_url
from vmark.core.ids import new_id
from vmark.protocol.limits import TAB_LIMIT, TAB_TITLE_SECONDS
from vmark.protocol.wire_types import BrowserTabSummary

if TYPE_CHECKING:
    from playwright.async_api import Frame, Page

Owner = Literal["ai", "human"]
#: attempts to confirm a closed page, and the pause between them
CLOSE_ATTEMPTS = 3
CLOSE_RETRY_SECONDS = 0.2
#: how long one close may take: a page whose renderer crashed and was reloaded can leave Playwright's close
#: waiting for a target that never reports closing, and the person's (or agent's) close must still be answered
CLOSE_WAIT_SECONDS = 3.0


class TabLimit(Exception):
    code = "TAB_LIMIT"

    def __init__(self) -> None:
        super().__init__(f"at most {TAB_LIMIT} AI-owned browser tabs may be open; close one first")


class UnknownTab(LookupError):
    code = "INVALID_TAB"

    def __init__(self, tab_id: str) -> None:
        super().__init__(f"no browser tab {tab_id[:80]!r}")
        self.tab_id = tab_id


class TeardownFailed(Exception):
    """The page could not be confirmed closed; the tab entry is gone all the same."""

    code = "TAB_TEARDOWN_FAILED"

    def __init__(self, tab_id: str) -> None:
        super().__init__(f"browser tab {tab_id} was removed, but its page could not be confirmed closed")
        self.tab_id = tab_id


@dataclass(eq=False)
class BrowserTab:
    id: str
    owner: Owner
    posture: Posture
    profile: str | None
    page: Page
    events: PageEvents
    generation: int = 0
    title: str = ""
    _listeners: list[Callable[[BrowserTab], None]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self.page.on("framenavigated", self._on_frame_navigated)

    @property
    def url(self) -> str:
        """The page's URL as an agent may see it (no query string, fragment or user info)."""
        return redact_url(self.page.url)

    def on_navigate(self, listener: Callable[[BrowserTab], None]) -> None:
        """Call ``listener`` after every committed main-frame navigation (grants lapse on these)."""
        self._listeners.append(listener)

    def _on_frame_navigated(self, frame: Frame) -> None:
        if frame is not self.page.main_frame:
            return
        self.generation += 1
        for listener in list(self._listeners):
            listener(self)

    async def refresh_title(self) -> str:
        with contextlib.suppress(PlaywrightError, asyncio.TimeoutError):
            self.title = await asyncio.wait_for(self.page.title(), TAB_TITLE_SECONDS)
        return self.title

    def describe(self) -> BrowserTabSummary:
        return {
            "tabId": self.id,
            "owner": self.owner,
            "url": self.url,
            "title": self.title,
            "generation": self.generation,
            "posture": self.posture,
        }


class TabRegistry:
    """The browser tabs of one app: AI-owned (bounded) and human ones."""

    def __init__(self, driver: BrowserDriver) -> None:
        self.driver = driver
        self._tabs: dict[str, BrowserTab] = {}

    def __len__(self) -> int:
        return len(self._tabs)

    def ai_count(self) -> int:
        return sum(tab.owner == "ai" for tab in self._tabs.values())

    async def open_ai_tab(self, posture: Posture, profile: str | None = None) -> BrowserTab:
        if profile is not None and posture != "sandbox":
            raise ValueError("a named profile is opened in the sandbox posture")
        if self.ai_count() >= TAB_LIMIT:
            raise TabLimit()
        return await self._open("ai", posture, profile)

    async def open_human_tab(self) -> BrowserTab:
        """A tab of the person's, in their persistent profile."""
        return await self._open("human", "shared", None)

    async def _open(self, owner: Owner, posture: Posture, profile: str | None) -> BrowserTab:
        page = await self.driver.new_page(posture, profile, ai=owner == "ai")
        if owner == "ai" and self.ai_count() >= TAB_LIMIT:  # another open won the race meanwhile
            await self._close_page(page)
            raise TabLimit()
        tab = BrowserTab(new_id("btab"), owner, posture, profile, page, self.driver.events(page))
        self._tabs[tab.id] = tab
        return tab

    def get(self, tab_id: str) -> BrowserTab:
        tab = self._tabs.get(tab_id)
        if tab is None:
            raise UnknownTab(tab_id)
        return tab

    def tabs(self) -> list[BrowserTab]:
        return list(self._tabs.values())

    async def close(self, tab_id: str) -> None:
        """Close the tab's page and confirm it is closed; the entry is removed either way."""
        tab = self._tabs.pop(tab_id, None)
        if tab is None:
            raise UnknownTab(tab_id)
        if not await self._close_page(tab.page):
            raise TeardownFailed(tab_id)

    async def renew_page(self, tab: BrowserTab) -> Page:
        """Give ``tab`` a new page in the same context (a crashed Playwright page never recovers, reload or
        not): its navigations counted, an AI tab's console captured. Answers the old page, to drop."""
        old = tab.page
        page = await self.driver.new_page(tab.posture, tab.profile, ai=tab.owner == "ai")
        tab.page, tab.events = page, self.driver.events(page)
        page.on("framenavigated", tab._on_frame_navigated)
        if tab.owner == "ai":
            await install_console(page)
        return old

    async def drop_page(self, page: Page) -> None:
        """Close a page no tab shows any more (one that crashed may not answer) and forget it."""
        with contextlib.suppress(PlaywrightError):
            await page.close()
        self.driver.forget(page)

    async def _close_page(self, page: Page) -> bool:
        for attempt in range(CLOSE_ATTEMPTS):
            with contextlib.suppress(PlaywrightError, TimeoutError):
                await asyncio.wait_for(page.close(), CLOSE_WAIT_SECONDS)
            if page.is_closed():
                self.driver.forget(page)
                return True
            if attempt + 1 < CLOSE_ATTEMPTS:
                await asyncio.sleep(CLOSE_RETRY_SECONDS)
        return False

    async def listing(self) -> list[BrowserTabSummary]:
        """Every tab for ``session.get_state``: ``{tabId, owner, url, title, generation, posture}``."""
        tabs = self.tabs()
        await asyncio.gather(*(tab.refresh_title() for tab in tabs))
        return [tab.describe() for tab in tabs]
