"""Fixtures for the UI tests: the app's UI address, Debian's Chromium through Playwright, pages.

The browser tests skip only when ``/usr/bin/chromium-headless-shell`` is absent (``make test`` installs it).
A failing test leaves a screenshot of every page it opened in ``tests/ui/artifacts/``.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, BrowserContext, Page, async_playwright, expect

from vmark.app.server import RunningApp
from vmark.testing.chromium import CHROMIUM_ARGS, PAGE_CHROMIUM

# A deadline for every `expect(...)`, not a timing assertion: a loaded machine with parallel workers may take
# a while to lay out what a passing test waits for (Playwright's own default is 5 s).
expect.set_options(timeout=20_000)

ARTIFACTS = Path(__file__).parent / "artifacts"
DIST_INDEX = Path(__file__).resolve().parents[2] / "src" / "vmark" / "ui" / "dist" / "index.html"
#: every page records the Content-Security-Policy violations it sees: there must be none
CSP_PROBE = (
    "window.__cspViolations = [];"
    "document.addEventListener('securitypolicyviolation',"
    " e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));"
)


@dataclass(frozen=True)
class UI:
    """Where the running app's UI is."""

    port: int
    token: str

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.origin}/?token={self.token}"

    @property
    def cookie_name(self) -> str:
        return f"vmark_ui_{self.port}"


@pytest.fixture
def ui(vmark: RunningApp) -> UI:
    assert vmark.ui_url == f"http://127.0.0.1:{vmark.port}/?token={vmark.ui_token}"
    return UI(vmark.port, vmark.ui_token)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    report = yield
    if report.when == "call":
        item.stash[FAILED] = report.failed
    return report


FAILED = pytest.StashKey[bool]()


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop per module here, so one Chromium serves a module's tests (each in fresh contexts)."""
    return "asyncio"


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    if not os.path.exists(PAGE_CHROMIUM):
        pytest.skip(f"{PAGE_CHROMIUM} is absent (Debian's chromium-headless-shell package; `make test` installs it)")
    assert DIST_INDEX.is_file(), "the UI is not built: run `make setup` (npm ci + npm run build in frontend/)"
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=PAGE_CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            await launched.close()


async def new_context(browser: Browser, **options: Any) -> BrowserContext:
    """A browser context as the UI tests open it: one window's size (unless ``options`` say another), the CSP
    probe in every page; ``options`` are Playwright's (``color_scheme``, ``viewport``...)."""
    context = await browser.new_context(**{"viewport": {"width": 1200, "height": 800}, **options})
    await context.add_init_script(CSP_PROBE)
    return context


@dataclass
class Pages:
    """Opens pages (each in its own browser context, as separate browser windows would be)."""

    browser: Browser
    ui: UI
    opened: list[Page] = field(default_factory=list)
    contexts: list[BrowserContext] = field(default_factory=list)

    async def context(self, **options: Any) -> BrowserContext:
        """A new context of this test's (see :func:`new_context` for ``options``), closed after it."""
        context = await new_context(self.browser, **options)
        self.contexts.append(context)
        return context

    async def close(self) -> None:
        for context in self.contexts:
            await context.close()

    async def open(
        self,
        window: str | None = None,
        context: BrowserContext | None = None,
        before: Callable[[Page], Awaitable[None]] | None = None,
    ) -> Page:
        """A page through the token URL (``&window=LABEL`` attaches it to that window), ready to use;
        ``before`` sees the page before it loads (to watch its WebSocket from the start)."""
        context = context or await self.context()
        page = await context.new_page()
        if before is not None:
            await before(page)
        self.opened.append(page)
        url = self.ui.url + (f"&window={window}" if window else "")
        response = await page.goto(url)
        assert response is not None and response.status == 200, response
        await page.wait_for_selector("body[data-ready=true]")
        return page

    async def screenshots(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        for n, page in enumerate(self.opened):
            if not page.is_closed():
                await page.screenshot(path=str(ARTIFACTS / f"{safe}-page{n}.png"), full_page=True)

    async def csp_violations(self) -> list[str]:
        found: list[str] = []
        for page in self.opened:
            if not page.is_closed():
                found += await page.evaluate("window.__cspViolations || []")
        return found


@pytest.fixture
async def pages(browser: Browser, ui: UI, request: pytest.FixtureRequest) -> AsyncIterator[Pages]:
    opened = Pages(browser, ui)
    try:
        yield opened
        if request.node.stash.get(FAILED, False):
            await opened.screenshots(request.node.name)
        else:
            assert await opened.csp_violations() == []
    finally:
        await opened.close()


@pytest.fixture
def trash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The freedesktop trash of this test (send2trash's home trash, moved under tmp)."""
    from send2trash import plat_other

    home = tmp_path / "xdg"
    home.mkdir()
    monkeypatch.setattr(plat_other, "XDG_DATA_HOME", str(home).encode())
    monkeypatch.setattr(plat_other, "HOMETRASH_B", str(home / "Trash").encode())
    monkeypatch.setattr(plat_other, "HOMETRASH", str(home / "Trash"))
    return home / "Trash"
