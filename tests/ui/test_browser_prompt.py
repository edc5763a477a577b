"""The person answers an agent's browser act in the page's browser prompt: real app, real Chromium
for both the VMark page and the agent's tab, a tiny local site, the official MCP client as the agent."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from mcp import Client
from mcp import types as mcp_types
from playwright.async_api import Page, expect

from tests.conftest import call, make_client, ok
from tests.ui.conftest import Pages
from vmark.app.server import RunningApp
from vmark.mcp.bridge_client import BridgeClient
from vmark.testing.sites import serving_pages

#: a button whose accessible name is markup: the prompt must show it as text
MARKUP_NAME = "<img src=x data-evil=1>"
PAGE = (
    "<!doctype html><title>Prompt site</title>"
    '<button onclick="this.dataset.pressed = (+this.dataset.pressed || 0) + 1">Press me</button>'
    "<button>&lt;img src=x data-evil=1&gt;</button>"
)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serving_pages({"": PAGE}) as base:
        yield base


def _agent(vmark: RunningApp, principal: str) -> Client:
    vmark.app.settings.set("browser.allow_private_network", True)
    return make_client(vmark.data_dir, client_token=vmark.app.principals.add(principal))


@pytest.fixture
async def agent(vmark: RunningApp) -> AsyncIterator[Client]:
    async with _agent(vmark, "alice") as client:
        yield client


def _press(agent: Client, name: str = "Press me") -> asyncio.Future[mcp_types.CallToolResult]:
    """The agent's click, waiting (as an agent does) for the person's answer."""
    return asyncio.ensure_future(call(agent, "browser", "act", operation="click", role="button", name=name))


async def _shown(page: Page, action: str) -> str:
    """The prompt on screen (for ``action``), Deny focused; its approval id."""
    dialog = page.get_by_test_id("browser-prompt")
    await expect(dialog).to_be_visible()
    await expect(dialog).to_have_attribute("data-action", action)
    await expect(page.get_by_test_id("browser-prompt-deny")).to_be_focused()
    return str(await dialog.get_attribute("data-approval-id"))


async def _succeeded(task: asyncio.Future[mcp_types.CallToolResult]) -> dict[str, Any]:
    result = await asyncio.wait_for(task, 15)
    assert not result.is_error, result.content
    return dict(result.structured_content or {})


async def _refused(task: asyncio.Future[mcp_types.CallToolResult]) -> str:
    result = await asyncio.wait_for(task, 15)
    assert result.is_error
    return str((result.structured_content or {})["error"])


def _pending(vmark: RunningApp) -> list[str]:
    return [a.id for a in vmark.app.approvals.pending_of_kind("browser")]


async def test_allow_once_deny_enter_escape_and_allow_on_this_site(
    pages: Pages, vmark: RunningApp, agent: Client, site: str
) -> None:
    page = await pages.open()
    opened = await ok(agent, "browser", "open", url=f"{site}/")
    dialog = page.get_by_test_id("browser-prompt")

    task = _press(agent)
    await _shown(page, "click")
    await expect(page.get_by_test_id("browser-prompt-requester")).to_have_text("alice")
    await expect(page.get_by_test_id("browser-prompt-site")).to_have_text(site)
    await expect(page.get_by_test_id("browser-prompt-action")).to_have_text("click")
    await expect(page.get_by_test_id("browser-prompt-element")).to_have_text('button "Press me"')
    await expect(page.get_by_test_id("browser-prompt-value")).to_be_hidden()  # a click carries no value
    await expect(page.get_by_test_id("browser-prompt-allow-site")).to_be_visible()
    await expect(page.get_by_test_id("browser-prompt-every-time")).to_be_hidden()
    await page.get_by_test_id("browser-prompt-allow-once").click()
    await expect(dialog).to_be_hidden()
    clicked = await _succeeded(task)
    assert (clicked["ok"], clicked["url"]) == (True, f"{site}/")
    pressed = await ok(agent, "browser_read", "query", selector="button", fields={"attributes": True})
    assert pressed["elements"][0]["attributes"]["data-pressed"] == "1"

    # "Allow once" is spent: the same click asks again; Deny, Enter and Escape all refuse it.
    task = _press(agent)
    await _shown(page, "click")
    await page.get_by_test_id("browser-prompt-deny").click()
    await expect(dialog).to_be_hidden()
    assert await _refused(task) == "NOT_GRANTED"
    for key in ("Enter", "Escape"):
        task = _press(agent)
        await _shown(page, "click")
        await page.keyboard.press(key)
        await expect(dialog).to_be_hidden()
        assert await _refused(task) == "NOT_GRANTED"

    # "Allow on this site" stands: the next click on the same element asks nobody.
    task = _press(agent)
    await _shown(page, "click")
    await page.get_by_test_id("browser-prompt-allow-site").click()
    await expect(dialog).to_be_hidden()
    assert (await _succeeded(task))["ok"] is True
    third = await ok(agent, "browser", "act", operation="click", role="button", name="Press me")
    assert third["ok"] is True
    await expect(dialog).to_be_hidden()
    assert _pending(vmark) == []
    pressed = await ok(agent, "browser_read", "query", selector="button", fields={"attributes": True})
    assert pressed["elements"][0]["attributes"]["data-pressed"] == "3"
    assert opened["tabId"].startswith("btab-")


async def test_execute_js_shows_the_script_as_text_and_is_never_standing(
    pages: Pages, agent: Client, site: str
) -> None:
    page = await pages.open()
    await ok(agent, "browser", "open", url=f"{site}/")
    script = "const b = '<b>bold</b>';\nreturn document.title + b.length"
    task = asyncio.ensure_future(call(agent, "browser", "execute_js", script=script))
    await _shown(page, "eval")
    value = page.get_by_test_id("browser-prompt-value")
    await expect(value).to_have_text(script)
    assert await value.evaluate("e => e.tagName") == "PRE"
    assert await value.locator("b").count() == 0  # plain text, never HTML
    await expect(page.get_by_test_id("browser-prompt-element")).to_be_hidden()
    await expect(page.get_by_test_id("browser-prompt-allow-site")).to_be_hidden()
    await expect(page.get_by_test_id("browser-prompt-every-time")).to_be_visible()
    await expect(page.get_by_role("button", name="Allow on this site")).to_have_count(0)
    await page.get_by_test_id("browser-prompt-allow-once").click()
    assert (await _succeeded(task))["result"] == "Prompt site11"
    # Per call: the same script asks again.
    task = asyncio.ensure_future(call(agent, "browser", "execute_js", script=script))
    await _shown(page, "eval")
    await page.keyboard.press("Enter")
    assert await _refused(task) == "NOT_GRANTED"


async def test_prompts_queue_and_one_answered_elsewhere_goes_away(
    pages: Pages, vmark: RunningApp, agent: Client, site: str
) -> None:
    page = await pages.open()
    dialog = page.get_by_test_id("browser-prompt")
    async with _agent(vmark, "bob") as bob:
        await ok(agent, "browser", "open", url=f"{site}/")
        await ok(bob, "browser", "open", url=f"{site}/")
        first = _press(agent)
        first_id = await _shown(page, "click")
        second = _press(bob, MARKUP_NAME)
        for _ in range(100):
            if len(_pending(vmark)) == 2:
                break
            await asyncio.sleep(0.05)
        assert len(_pending(vmark)) == 2
        # One at a time: alice's stays on screen until it is answered.
        await expect(page.get_by_test_id("browser-prompt-requester")).to_have_text("alice")
        await expect(dialog).to_have_attribute("data-approval-id", first_id)
        await page.get_by_test_id("browser-prompt-allow-once").click()
        await _succeeded(first)
        # Then bob's, whose element name is markup from the page: shown as text.
        second_id = await _shown(page, "click")
        assert second_id != first_id
        await expect(page.get_by_test_id("browser-prompt-requester")).to_have_text("bob")
        await expect(page.get_by_test_id("browser-prompt-element")).to_have_text(f'button "{MARKUP_NAME}"')
        assert await dialog.locator("img").count() == 0
        # Answered elsewhere (the request `vmark approvals allow ID` sends): the dialog goes away by itself.
        cli = BridgeClient(vmark.data_dir, role="person", autostart=False)
        try:
            answered = await cli.request("approvals.answer", {"id": second_id, "allow": True})
        finally:
            await cli.close()
        assert answered["success"] and answered["data"]["approval"]["state"] == "allowed"
        assert (await _succeeded(second))["ok"] is True
        await expect(dialog).to_be_hidden()
        assert _pending(vmark) == []
