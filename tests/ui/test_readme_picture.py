"""The README's picture (``docs/images/vmark.png``) is current: the example workspace opened as ``make run`` opens
it (``vmark app examples``: the app started on that folder, the app's own default settings), ``welcome.md`` in
WYSIWYG, and an agent's change waiting for review, in real Chromium at a fixed size in the light theme.

``VMARK_UPDATE_README_PICTURE=1`` takes the picture again and writes it (and a dark one into
``tests/ui/artifacts/`` to look at). Otherwise the test checks that the file is there, a PNG of the page's size
and not too large, and that the page it would take shows every element the picture shows. Pixels are never
compared: fonts differ from machine to machine.
"""

from __future__ import annotations

import os
import shutil
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from playwright.async_api import Page, expect

from tests.conftest import ok
from tests.ui.conftest import ARTIFACTS, Pages
from tests.ui.helpers import app_defaults, open_from_tree
from vmark.app.server import RunningApp
from vmark.mcp.bridge_client import BridgeClient
from vmark.mcp.server import build_server

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
PICTURE = ROOT / "docs" / "images" / "vmark.png"
UPDATE = os.environ.get("VMARK_UPDATE_README_PICTURE") == "1"
#: the page's size in CSS pixels (one device pixel each): the picture's size
WIDTH, HEIGHT = 1280, 800
MAX_BYTES = 300_000
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: the agent's edit: it tightens the introduction (as ``notes/ideas.md`` asks), two changes in one paragraph
#: (an insertion, a replacement)
EDITS = (
    ("as in any word processor", "as you would in any word processor"),
    ("every byte you do not touch", "every byte you leave alone"),
)
#: what the two changes insert, as the page highlights them
INSERTED = ["you would", "leave alone"]
#: and what they replace, struck through beside them (the first change inserts only)
DELETED = ["do not touch"]


@pytest.fixture
async def vmark(tmp_path: Path) -> AsyncIterator[RunningApp]:
    """The app as ``make run`` starts it: on a copy of ``examples/`` (the agent's write must not touch the
    repository's), with the app's default settings (only the test tree readable)."""
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder)
    running = RunningApp(app_defaults(tmp_path), str(folder))
    await running.start()
    try:
        yield running
    finally:
        await running.stop()


def _agent(vmark: RunningApp) -> Client:
    """An agent as Claude Code connects: its client's name, its own token."""
    bridge = BridgeClient(vmark.data_dir, vmark.app.principals.add("laptop"), autostart=False)
    return Client(build_server(bridge), client_info=types.Implementation(name="claude-code", version="1.0"))


async def _page(pages: Pages) -> Page:
    context = await pages.context(
        viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1, color_scheme="light"
    )
    return await pages.open(context=context)


async def _stage(pages: Pages, agent: Client) -> Page:
    """The picture's page: the workspace's tree (its folders unfolded, as they start), ``welcome.md`` open in
    WYSIWYG (the app's default mode), the agent's changes shown for review."""
    page = await _page(pages)
    await page.wait_for_selector("section.workspace button.file[data-path='welcome.md']")
    await page.wait_for_selector("button.file[data-path='notes/ideas.md']")
    tab = await open_from_tree(page, "welcome.md")
    await page.wait_for_selector(".ProseMirror h1")
    read = await ok(agent, "document", "read", tabId=tab)
    content = read["content"]
    for old, new in EDITS:
        assert content.count(old) == 1, old
        content = content.replace(old, new)
    await ok(agent, "document", "write", tabId=tab, content=content, expected_revision=read["revision"])
    await expect(page.locator(".pm-review-insert")).to_have_text(INSERTED)
    # The caret out of the way (the picture shows no focus ring), the page still.
    await page.locator(".ProseMirror h1").click()
    await page.evaluate("document.fonts.ready.then(() => true)")
    return page


async def _check_shown(page: Page) -> None:
    """Every element the picture shows is on the page, inside the picture's frame."""
    shown = {
        "the workspace's tree": page.locator("section.workspace"),
        "welcome.md in the tree, open": page.locator("button.file[data-path='welcome.md'][aria-current=true]"),
        "notes/ideas.md in the tree": page.locator("button.file[data-path='notes/ideas.md']"),
        "the welcome tab": page.locator(".tab.active .title", has_text="welcome"),
        "the heading in WYSIWYG": page.locator(".ProseMirror h1", has_text="Welcome to VMark"),
        "a task list": page.locator(".ProseMirror li", has_text="Open this file from the tree").first,
        "the agent's words, highlighted": page.locator(".pm-review-insert").first,
        "the words it replaced, struck through": page.locator(".review-deleted").first,
        "Accept change": page.get_by_role("button", name="Accept change").first,
        "Reject change": page.get_by_role("button", name="Reject change").first,
        "the review bar": page.get_by_test_id("review-bar"),
        "the agent in the toolbar": page.locator("#agents"),
    }
    for what, locator in shown.items():
        await expect(locator, what).to_be_visible()
        box = await locator.bounding_box()
        assert box is not None, what
        assert box["x"] >= 0 and box["y"] >= 0, (what, box)
        assert box["x"] + box["width"] <= WIDTH and box["y"] + box["height"] <= HEIGHT, (what, box)
    await expect(page.locator(".pm-review-insert")).to_have_text(INSERTED)
    assert [await d.get_attribute("data-old") for d in await page.locator(".review-deleted").all()] == DELETED
    await expect(page.get_by_test_id("review-count")).to_have_text("2 changes")
    await expect(page.get_by_test_id("review-notice")).to_have_text(
        "claude-code (laptop) made 2 changes with document.write: review them below."
    )
    await expect(page.locator("#agents")).to_have_text("claude-code (laptop)")
    assert await page.evaluate("document.documentElement.dataset.theme") == "light"


def _png_size(data: bytes) -> tuple[int, int]:
    """The width and height of a PNG's header (its first chunk is IHDR)."""
    assert data[:8] == PNG_SIGNATURE, "not a PNG"
    assert data[12:16] == b"IHDR", "a PNG starts with its IHDR chunk"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


async def test_the_readme_picture_is_current(vmark: RunningApp, pages: Pages) -> None:
    async with _agent(vmark) as agent:
        page = await _stage(pages, agent)
        await _check_shown(page)
        if UPDATE:
            PICTURE.parent.mkdir(parents=True, exist_ok=True)
            PICTURE.write_bytes(await page.screenshot())
            # The same page under a dark system theme, to look at (the README shows the light one).
            await page.emulate_media(color_scheme="dark")
            await expect(page.locator("html")).to_have_attribute("data-theme", "dark")
            ARTIFACTS.mkdir(exist_ok=True)
            await page.screenshot(path=str(ARTIFACTS / "readme-picture-dark.png"))
    assert PICTURE.is_file(), f"{PICTURE} is missing: take it with VMARK_UPDATE_README_PICTURE=1"
    data = PICTURE.read_bytes()
    assert _png_size(data) == (WIDTH, HEIGHT)
    assert len(data) < MAX_BYTES, f"{PICTURE} is {len(data)} bytes"
    assert f"]({PICTURE.relative_to(ROOT)})" in (ROOT / "README.md").read_text("utf-8")
