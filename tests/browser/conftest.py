"""Fixtures for the in-page browser tests: the static test sites over http, Debian's Chromium.

The sites (``sites/``) are served on 127.0.0.1 at a random port by a threading http.server;
each test gets a fresh browser context and page.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from mcp import Client
from playwright.async_api import Browser, Page, async_playwright

from tests.browser.localsite import LocalSite
from tests.conftest import make_client, running_app
from vmark.app.server import RunningApp
from vmark.browser.lent import LentChromium
from vmark.testing.chromium import CHROMIUM, CHROMIUM_ARGS
from vmark.testing.sites import serving_directory

SITES = Path(__file__).parent / "sites"
#: a second site for cross-site (out-of-process) frames: the name resolves to 127.0.0.1 only
CROSS_SITE_HOST = "cross.test"


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The base URL of the test sites, e.g. ``http://127.0.0.1:41234``."""
    with serving_directory(SITES) as base:
        yield base


@pytest.fixture(scope="module")
def local() -> Iterator[LocalSite]:
    """The driver and navigation tests' site (redirects, slow pages, popups, a steerable policy)."""
    with LocalSite().running() as running:
        yield running


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop per module, so one Chromium serves a module's tests."""
    return "asyncio"


@pytest.fixture(scope="module")
async def chromium() -> AsyncIterator[Browser]:
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is absent (Debian's chromium package)")
    async with async_playwright() as playwright:
        args = [*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {CROSS_SITE_HOST} 127.0.0.1"]
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=args)
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture
async def page(chromium: Browser) -> AsyncIterator[Page]:
    context = await chromium.new_context(viewport={"width": 1000, "height": 700})
    try:
        yield await context.new_page()
    finally:
        await context.close()


@pytest.fixture(scope="module")
async def lent_chromium() -> AsyncIterator[LentChromium]:
    """One Playwright and sandbox Chromium for the module's apps (``vmark``): a launch is most of a test's CPU."""
    lent = LentChromium()
    try:
        yield lent
    finally:
        await lent.close()


@pytest.fixture
async def vmark(data_dir: Path, lent_chromium: LentChromium) -> AsyncIterator[RunningApp]:
    """An app of its own, as conftest's, whose browser borrows the module's Chromium (its contexts its own)."""
    async with running_app(data_dir, lent_chromium) as running:
        yield running


@pytest.fixture
async def agent(vmark: RunningApp) -> AsyncIterator[Client]:
    """An agent (principal alice) of an in-process app that may browse this machine's test sites."""
    vmark.app.settings.set("browser.allow_private_network", True)
    async with make_client(vmark.data_dir, client_token=vmark.app.principals.add("alice")) as client:
        yield client
