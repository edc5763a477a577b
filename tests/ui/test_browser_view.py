"""The Browser panel: the person's own browser tabs, live (screencast frames drawn on a canvas), driven
with real input (a click on the canvas clicks the embedded page's button, keys type into its field),
the address bar, back / forward, the "page crashed" overlay with Reload, closing a tab, and the site
permissions list with Revoke. Two Chromiums run: the test's (the VMark page) and the app's own (the
embedded browser), which serves a local test site (``browser.allow_private_network`` on)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import pytest
from playwright.async_api import Page, expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import Pages
from vmark.app.server import RunningApp
from vmark.browser.grants import GrantRequest
from vmark.browser.tabs import BrowserTab
from vmark.testing.sites import serving_pages
from vmark.testing.uiclient import UIClient

COLD_START_MS = 30_000
#: the button's box and the field's, in the embedded page's CSS pixels
BUTTON = (100, 100, 200, 80)
FIELD = (100, 300, 300, 40)
HOME = f"""<!doctype html><title>Home</title>
<style>body {{ margin: 0 }} button, input {{ position: absolute; margin: 0 }}
#press {{ left: {BUTTON[0]}px; top: {BUTTON[1]}px; width: {BUTTON[2]}px; height: {BUTTON[3]}px }}
#field {{ left: {FIELD[0]}px; top: {FIELD[1]}px; width: {FIELD[2]}px; height: {FIELD[3]}px }}</style>
<p id=out>idle</p>
<button id=press onclick="document.getElementById('out').textContent = 'clicked'">Press</button>
<input id=field>"""
#: what a paste into the view does (the test's Chromium has no clipboard to paste from)
PASTE = """(canvas, text) => {
  const data = new DataTransfer();
  data.setData("text/plain", text);
  canvas.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
}"""
SECOND = "<!doctype html><title>Second</title><p>second page</p>"


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serving_pages({"/second": SECOND, "": HOME}) as base:
        yield base


@pytest.fixture
def local(vmark: RunningApp) -> RunningApp:
    vmark.app.settings.set("browser.allow_private_network", True)
    return vmark


def _human_tabs(vmark: RunningApp) -> list[BrowserTab]:
    return [tab for tab in vmark.app.browser.tabs.tabs() if tab.owner == "human"]


async def _frames(page: Page) -> int:
    return int(await page.locator("#browser-canvas").get_attribute("data-frames") or 0)


async def _open_tab(pages: Pages, vmark: RunningApp, url: str, title: str) -> tuple[Page, BrowserTab]:
    """A VMark page with the Browser panel showing a new tab of the person's at ``url``, drawn."""
    page = await pages.open()
    await page.click("#browser-toggle")
    await expect(page.get_by_test_id("browser")).to_be_visible()
    await page.fill("#browser-new-url", url)
    await page.click("#browser-new")
    # the app's Chromium starts with the first tab: slow on a busy machine
    await expect(page.locator(".browser-tab[data-owner=human]")).to_have_count(1, timeout=COLD_START_MS)
    (tab,) = _human_tabs(vmark)
    await expect(page.locator("#browser-canvas")).to_have_attribute("data-tab-id", tab.id)
    await wait_until(lambda: _drawn(page, tab, title), "the tab drawn", timeout=COLD_START_MS / 1000)
    return page, tab


async def _drawn(page: Page, tab: BrowserTab, title: str) -> bool:
    return await _frames(page) >= 1 and await tab.page.title() == title


async def _click_view_at(page: Page, tab: BrowserTab, x: float, y: float) -> None:
    """Click the canvas where the embedded page's (x, y) is shown."""
    viewport = tab.page.viewport_size
    assert viewport is not None
    box = await page.locator("#browser-canvas").bounding_box()
    assert box is not None
    await page.locator("#browser-canvas").click(
        position={"x": x * box["width"] / viewport["width"], "y": y * box["height"] / viewport["height"]}
    )


async def test_a_tab_of_the_persons_is_shown_live_and_driven_by_their_input(
    local: RunningApp, pages: Pages, site: str, person: UIClient
) -> None:
    page, tab = await _open_tab(pages, local, f"{site}/", "Home")
    listing = (await person.call("browser.tabs"))["tabs"]
    assert listing == [
        {
            "tabId": tab.id,
            "owner": "human",
            "url": f"{site}/",
            "title": "Home",
            "generation": tab.generation,
            "posture": "shared",
            "crashed": False,
            "agent": None,
        }
    ]
    await expect(page.get_by_test_id("browser-address")).to_have_value(f"{site}/")
    await expect(page.locator(".browser-tab[data-owner=human] .browser-owner")).to_have_text("You")

    # a click on the view at the button's centre clicks the button: the page's text changes, and so does the view
    shown = await _frames(page)
    await _click_view_at(page, tab, BUTTON[0] + BUTTON[2] / 2, BUTTON[1] + BUTTON[3] / 2)
    await wait_until(lambda: _text_is(tab, "#out", "clicked"), "the embedded button clicked")
    await wait_until(lambda: _more_frames(page, shown), "a frame of the changed page")

    # keys: a click focuses the field, printable keys type, Backspace is pressed as a key
    await _click_view_at(page, tab, FIELD[0] + 20, FIELD[1] + FIELD[3] / 2)
    await wait_until(lambda: _focused_field(tab), "the field focused")
    await page.keyboard.type("hellox")
    await page.keyboard.press("Backspace")
    await wait_until(lambda: _value_is(tab, "hello"), "the typed text in the field")
    await page.locator("#browser-canvas").evaluate(PASTE, " world")
    await wait_until(lambda: _value_is(tab, "hello world"), "the pasted text in the field")

    # the address bar goes where the person says; back and forward move through the tab's history
    await page.fill("#browser-address", f"{site}/second?secret=1")
    await page.press("#browser-address", "Enter")
    await wait_until(lambda: _title_is(tab, "Second"), "the second page")
    await expect(page.get_by_test_id("browser-address")).to_have_value(f"{site}/second")  # redacted
    await page.click("#browser-back")
    await wait_until(lambda: _title_is(tab, "Home"), "back to the first page")
    await expect(page.get_by_test_id("browser-address")).to_have_value(f"{site}/")
    await page.click("#browser-forward")
    await wait_until(lambda: _title_is(tab, "Second"), "forward to the second page")

    # the person's tabs are http(s) only
    for url in ("javascript:alert(1)", "file:///etc/passwd", "data:text/html,hi"):
        with pytest.raises(Exception, match="only http and https"):
            await person.call("browser.nav", tabId=tab.id, op="go", url=url)


async def test_a_crashed_tab_shows_the_overlay_and_reload_recovers_it(
    local: RunningApp, pages: Pages, site: str
) -> None:
    page, tab = await _open_tab(pages, local, f"{site}/second", "Second")
    crashed = tab.page
    cdp = await crashed.context.new_cdp_session(crashed)
    crash = asyncio.ensure_future(cdp.send("Page.crash"))  # it never answers: the renderer is gone
    await expect(page.get_by_test_id("browser-crashed")).to_be_visible()
    await expect(page.locator(".browser-tab[data-owner=human]")).to_have_attribute("data-crashed", "true")
    crash.cancel()
    with contextlib.suppress(BaseException):
        await crash

    shown = await _frames(page)
    await page.click("#browser-crashed-reload")
    await expect(page.get_by_test_id("browser-crashed")).to_be_hidden()
    assert tab.page is not crashed
    await wait_until(crashed.is_closed, "the crashed page to be dropped")
    await wait_until(lambda: _title_is(tab, "Second"), "the page loaded again")
    await wait_until(lambda: _more_frames(page, shown), "frames of the reloaded page")
    await expect(page.locator(".browser-tab[data-owner=human]")).to_have_attribute("data-crashed", "false")

    # the person closes the tab: it is gone from the app and from the panel
    await page.click(".browser-tab[data-owner=human] .browser-tab-close")
    await expect(page.locator(".browser-tab")).to_have_count(0)
    await expect(page.locator("#browser-view")).to_be_hidden()
    assert _human_tabs(local) == []
    # The entry goes first, then the page is closed and the close confirmed (the panel may show the first sooner).
    await wait_until(tab.page.is_closed, "the closed tab's page to be closed")


async def test_site_permissions_are_listed_and_revoked(local: RunningApp, pages: Pages, person: UIClient) -> None:
    grants = local.app.browser.grants
    click = GrantRequest("btab_x", "https://example.org", "click", "button", "Buy")
    typed = GrantRequest("btab_x", "https://example.net", "type", "textbox", "Name", "Ada")
    assert grants.grant(click, "site") == "site" and grants.grant(typed, "site") == "site"
    page = await pages.open()
    await page.click("#browser-toggle")
    rows = page.locator(".browser-permission")
    await expect(rows).to_have_count(2)
    await expect(rows.nth(0)).to_have_attribute("data-origin", "https://example.net")
    await expect(rows.nth(0)).to_contain_text("type")
    await expect(rows.nth(0)).to_contain_text("textbox “Name” with “Ada”")
    await expect(rows.nth(1)).to_contain_text("button “Buy”")

    await rows.nth(1).get_by_role("button", name="Revoke").click()
    await expect(rows).to_have_count(1)
    assert not grants.covers(click) and grants.covers(typed)
    assert (await person.call("browser.permissions"))["permissions"] == [
        {
            "tabId": "btab_x",
            "origin": "https://example.net",
            "operation": "type",
            "role": "textbox",
            "name": "Name",
            "value": "Ada",
        }
    ]
    await person.call("browser.revoke", origin="https://example.net", operation="type")
    assert (await person.call("browser.permissions"))["permissions"] == []
    with pytest.raises(Exception, match="operation must be one of"):
        await person.call("browser.revoke", origin="https://example.net", operation="fly")


async def _text_is(tab: BrowserTab, selector: str, text: str) -> bool:
    return await tab.page.text_content(selector) == text


async def _value_is(tab: BrowserTab, value: str) -> bool:
    return await tab.page.input_value("#field") == value


async def _focused_field(tab: BrowserTab) -> bool:
    return bool(await tab.page.evaluate("document.activeElement && document.activeElement.id === 'field'"))


async def _title_is(tab: BrowserTab, title: str) -> bool:
    return await tab.page.title() == title


async def _more_frames(page: Page, than: int) -> bool:
    return await _frames(page) > than
