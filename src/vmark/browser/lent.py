"""A test hook: one Playwright and one sandbox Chromium lent to many drivers in turn (a test module's apps).

Starting Playwright's driver and launching Chromium is most of the CPU of a test that browses once; a test
module lends its apps one launch (:attr:`BrowserDriver.lent <vmark.browser.driver.BrowserDriver.lent>`).
Each driver still makes its own contexts (cookies, storage, routes: nothing passes from one app to the
next) and closes them when it stops; the lender closes Chromium and Playwright at the end. The product never
lends: its driver starts and stops its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from vmark.browser.launch import start_playwright

if TYPE_CHECKING:
    from playwright.async_api import Browser, Playwright


class LentChromium:
    """Started on first use; the launch flags must be the same for every borrower."""

    def __init__(self) -> None:
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._launch: tuple[str, tuple[str, ...]] | None = None

    async def playwright(self) -> Playwright:
        if self._playwright is None:
            self._playwright = await start_playwright()
        return self._playwright

    async def browser(self, executable: str, args: Sequence[str]) -> Browser:
        launch = (executable, tuple(args))
        if self._browser is None:
            playwright = await self.playwright()
            self._browser = await playwright.chromium.launch(executable_path=executable, args=list(args))
            self._launch = launch
        assert launch == self._launch, f"lent Chromium was launched with {self._launch}, asked for {launch}"
        return self._browser

    async def close(self) -> None:
        if self._browser is not None:
            await self._browser.close()
            self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None
