"""In real Chromium: an agent connected through the official MCP client with ``clientInfo.name`` set is shown
by that name (with its principal's) in the connected-agents indicator, the review notice, the tab's marker,
History and the approval prompt; a hostile name (control and bidi characters) is shown cleaned."""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
from mcp import Client
from playwright.async_api import Page, expect

from tests.conftest import ok
from tests.ui.conftest import ARTIFACTS, Pages
from tests.ui.helpers import open_folder, open_from_tree
from tests.ui.test_protocol import vmark_cli
from vmark.app.server import RunningApp
from vmark.mcp.bridge_client import BridgeClient
from vmark.mcp.server import build_server
from vmark.testing.sites import serving_pages

#: a right-to-left override, a bell, an escape sequence and a line break around the words
HOSTILE = "\u202eevil\u202c\x07 bot\x1b[2J\nname"
HOSTILE_SHOWN = "evil bot[2J name"


def _named(vmark: RunningApp, name: str, principal: str | None) -> Client:
    token = vmark.app.principals.add(principal) if principal else None
    bridge = BridgeClient(vmark.data_dir, token, autostart=False)
    return Client(build_server(bridge), client_info=types.Implementation(name=name, version="1.0"))


async def _page(pages: Pages, workspace: Path) -> tuple[Page, str]:
    page = await pages.open()
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "a.md")
    return page, tab


async def test_the_agent_is_shown_by_its_client_name(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, tab = await _page(pages, workspace)
    badge = page.locator("#agents")
    async with _named(vmark, "claude-code", "laptop") as agent:
        await ok(agent, "session", "get_state")
        await expect(badge).to_have_text("claude-code (laptop)")
        await expect(badge).to_have_attribute("title", "claude-code (laptop)")
        read = await ok(agent, "document", "read", tabId=tab)
        await ok(
            agent, "document", "write", tabId=tab, content="# A\n\nalpha beta\n", expected_revision=read["revision"]
        )
        await expect(page.get_by_test_id("review-notice")).to_have_text(
            "claude-code (laptop) made 1 change with document.write: review it below."
        )
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTIFACTS / "everyday-agent-name-light.png"))
        marker = page.locator(f".tab[data-tab-id='{tab}'] .review-marker")
        await expect(marker).to_have_attribute("title", "1 change to review by claude-code (laptop)")
        await expect(page.locator(".review-accept")).to_have_attribute(
            "title", "Accept change by claude-code (laptop) · document.write"
        )
        await page.click("#history-toggle")
        await expect(page.locator("#history-list .snapshot .snapshot-who").first).to_have_text(
            "claude-code (laptop) · document.write"
        )

        # The approval prompt names it too.
        outside = workspace.parent / "outside"
        outside.mkdir()
        asked = await ok(agent, "workspace", "open_workspace", folderPath=str(outside))
        assert asked["needsApproval"] is True
        dialog = page.locator("#approval")
        await expect(dialog).to_be_visible()
        await expect(dialog).to_contain_text("claude-code (laptop) asks to open this folder")
        code, out, err = await vmark_cli(vmark.data_dir, "approvals", "list")
        assert (code, err) == (0, "")
        assert out.split("\t")[3] == "claude-code (laptop)"
        await page.keyboard.press("Escape")  # deny


async def test_a_hostile_name_is_shown_cleaned(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, tab = await _page(pages, workspace)
    async with _named(vmark, HOSTILE, None) as agent, _named(vmark, "cursor", None) as other:
        await ok(agent, "session", "get_state")
        await ok(other, "session", "get_state")
        badge = page.locator("#agents")
        await expect(badge).to_have_text("2 agents")
        titles = sorted(str(await badge.get_attribute("title")).split("\n"))
        assert titles == sorted([HOSTILE_SHOWN, "cursor"])
        read = await ok(agent, "document", "read", tabId=tab)
        await ok(agent, "document", "write", tabId=tab, content="# A\n\ngamma\n", expected_revision=read["revision"])
        notice = page.get_by_test_id("review-notice")
        await expect(notice).to_have_text(f"{HOSTILE_SHOWN} made 1 change with document.write: review it below.")
        shown = await notice.evaluate("e => e.textContent")
        assert not any(c in shown for c in "\u202e\u202c\x07\x1b\n")


async def test_the_browser_panel_names_the_agent_of_an_ai_tab(pages: Pages, vmark: RunningApp) -> None:
    vmark.app.settings.set("browser.allow_private_network", True)
    page = await pages.open()
    await page.click("#browser-toggle")
    with serving_pages({"": "<!doctype html><title>Site</title><p>hello</p>"}) as site:
        async with _named(vmark, "claude-code", "laptop") as agent:
            opened = await ok(agent, "browser", "open", url=site)
            row = page.locator(f".browser-tab[data-tab-id='{opened['tabId']}']")
            await expect(row.locator(".browser-owner")).to_have_text("AI", timeout=30_000)
            await expect(row.locator(".browser-agent")).to_have_text("claude-code (laptop)")
