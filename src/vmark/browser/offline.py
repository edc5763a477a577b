"""A headless Chromium with no network: started for one job (an export), every request its pages make
answered by the caller, closed after it.

It is not the agents' browser and shares nothing with it (no profile, no proxy, no grants): a page
opened here gets what ``serve`` answers for each URL it asks for, and nothing else (``None`` aborts
the request). Debian's Chromium (:data:`vmark.browser.launch.CHROMIUM`) with the product's flags and the
machine's extra ones. What the page fails to do is :class:`PageFailed`, with the first line of why.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vmark.browser import launch
from vmark.browser.failures import PlaywrightError, first_line
from vmark.browser.launch import CHROMIUM, start_playwright

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page, Playwright, Route


class ChromiumFailed(Exception):
    """Chromium did not start (its first line of why)."""


class PageFailed(Exception):
    """What a page was asked could not be done (its first line of why)."""


@dataclass(frozen=True)
class Served:
    """The answer to one request of the page."""

    status: int
    body: bytes | str
    content_type: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


#: the answer to the request for a URL, or None to abort it (``blockedbyclient``)
Serve = Callable[[str], Served | None]


class OfflinePage:
    """A page of :class:`OfflineChromium` that loaded (its scripts run; its requests go to ``serve``)."""

    def __init__(self, page: Page) -> None:
        self._page = page

    async def evaluate(self, script: str, arg: Any = None) -> Any:
        try:
            return await self._page.evaluate(script, arg)
        except PlaywrightError as exc:
            raise PageFailed(first_line(exc, None)) from exc

    async def screenshot(self, selector: str) -> bytes:
        """The element ``selector`` finds, as PNG."""
        try:
            return await self._page.locator(selector).screenshot(type="png", omit_background=False)
        except PlaywrightError as exc:
            raise PageFailed(first_line(exc, None)) from exc


class OfflineChromium:
    """``installed``, then ``await start()``; pages and prints; ``await stop()`` (or ``async with``)."""

    def __init__(self, extra_args: Sequence[str] = (), *, executable: str = CHROMIUM) -> None:
        self.executable = executable
        self._args = [*launch.LAUNCH_ARGS, *extra_args]
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    @property
    def installed(self) -> bool:
        return os.path.isfile(self.executable) and os.access(self.executable, os.X_OK)

    async def start(self) -> None:
        self._playwright = await start_playwright()
        try:
            self._browser = await self._playwright.chromium.launch(executable_path=self.executable, args=self._args)
        except PlaywrightError as exc:
            await self._playwright.stop()
            self._playwright = None
            raise ChromiumFailed(first_line(exc, None)) from exc

    async def stop(self) -> None:
        try:
            if self._browser is not None:
                await self._browser.close()
        finally:
            if self._playwright is not None:
                await self._playwright.stop()

    async def open(self, url: str, serve: Serve, *, scale: float, ready: str, timeout_ms: int) -> OfflinePage:
        """A page at ``url`` (``scale``: its device pixel ratio), once the script ``ready`` is true in it."""
        context = await self._started().new_context(device_scale_factor=scale)
        await context.route("**/*", lambda route: _answer(route, serve))
        page = await context.new_page()
        page.set_default_timeout(timeout_ms)
        try:
            await page.goto(url)
            await page.wait_for_function(ready)
        except PlaywrightError as exc:
            raise PageFailed(first_line(exc, None)) from exc
        return OfflinePage(page)

    async def print_pdf(self, html: str, *, page_size: str, margin: str, footer: str | None, timeout_ms: int) -> bytes:
        """``html`` printed with JavaScript off and every request aborted: the page size and margins given,
        an outline of its headings, tagged text, and ``footer`` (a Chromium footer template) if any."""
        context: BrowserContext = await self._started().new_context(java_script_enabled=False)
        try:
            await context.route("**/*", lambda route: route.abort("blockedbyclient"))
            page = await context.new_page()
            page.set_default_timeout(timeout_ms)
            await page.set_content(html, wait_until="load")
            await page.evaluate("() => document.fonts.ready.then(() => true)")
            return await page.pdf(
                format=page_size,
                margin={"top": margin, "right": margin, "bottom": margin, "left": margin},
                print_background=True,
                outline=True,
                tagged=True,
                display_header_footer=footer is not None,
                header_template="<span></span>",
                footer_template=footer or "<span></span>",
            )
        except PlaywrightError as exc:
            raise PageFailed(first_line(exc, None)) from exc
        finally:
            await context.close()

    def _started(self) -> Browser:
        if self._browser is None:
            raise RuntimeError("OfflineChromium.start() first")
        return self._browser


async def _answer(route: Route, serve: Serve) -> None:
    served = serve(route.request.url)
    if served is None:
        await route.abort("blockedbyclient")
        return
    headers = served.headers or None
    await route.fulfill(status=served.status, body=served.body, content_type=served.content_type, headers=headers)
