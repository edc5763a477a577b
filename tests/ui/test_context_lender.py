"""The contexts the UI tests borrow (``tests/ui/conftest.py``): a context given back holds nothing of the test
that had it (the next test's app may get the same port, so the same origin)."""

from __future__ import annotations

import asyncio
import contextlib

from playwright.async_api import Browser, Page

from tests.ui.conftest import UI, ContextLender


async def _stored(page: Page, ui: UI) -> None:
    await page.goto(ui.url)
    await page.wait_for_selector("body[data-ready=true]")
    await page.evaluate("localStorage.setItem('vmark.outline', 'hidden'); sessionStorage.setItem('k', 'v')")
    assert [cookie["name"] for cookie in await page.context.cookies()] == [ui.cookie_name]


async def _origin_storage(page: Page, ui: UI) -> list[str | None]:
    await page.goto(f"{ui.origin}/nothing-here")  # the origin without the token: no new cookie
    return await page.evaluate("[localStorage.getItem('vmark.outline'), sessionStorage.getItem('k')]")


async def test_a_context_given_back_is_empty_and_lent_again(browser: Browser, ui: UI) -> None:
    lender = ContextLender(browser)
    try:
        context = await lender.borrow()
        await _stored(await context.new_page(), ui)
        await context.new_page()  # a second page of the test (a popup, say) goes too
        await lender.give_back(context, ui.origin)
        assert context.pages == []
        assert await context.cookies() == []
        again = await lender.borrow()
        assert again is context
        assert await _origin_storage(await again.new_page(), ui) == [None, None]
    finally:
        await lender.close()


async def test_two_borrowed_at_once_are_two_contexts(browser: Browser) -> None:
    lender = ContextLender(browser)
    try:
        first, second = await lender.borrow(), await lender.borrow()
        assert first is not second
    finally:
        await lender.close()


async def test_a_context_whose_page_crashed_is_cleared_all_the_same(browser: Browser, ui: UI) -> None:
    lender = ContextLender(browser)
    try:
        context = await lender.borrow()
        page = await context.new_page()
        await _stored(page, ui)
        cdp = await context.new_cdp_session(page)
        async with page.expect_event("crash"):
            crash = asyncio.ensure_future(cdp.send("Page.crash"))  # it never answers: the renderer is gone
        crash.cancel()
        with contextlib.suppress(BaseException):
            await crash
        await lender.give_back(context, ui.origin)
        assert context.pages == []
        assert await _origin_storage(await (await lender.borrow()).new_page(), ui) == [None, None]
    finally:
        await lender.close()
