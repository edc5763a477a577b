"""The outline (a navigation landmark named "Outline") and the status bar (issue 18)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.ui.conftest import Pages
from tests.ui.helpers import open_folder, open_from_tree

DOC = (
    "# Title\n\nIntro words here.\n\n## First part\n\n"
    + "filler line\n\n" * 40
    + "```\n# not a heading\n```\n\nSecond\n------\n\n"
    + "filler line\n\n" * 40
    + "### Deep *one*\n\nlast words\n"
)


async def start(pages: Pages, workspace: Path, text: str = DOC) -> Page:
    (workspace / "long.md").write_text(text, "utf-8")
    page = await pages.open()
    await open_folder(page, workspace)
    await open_from_tree(page, "long.md")
    return page


@pytest.mark.parametrize("mode", ["source", "wysiwyg"])
async def test_the_outline_lists_headings_follows_the_cursor_and_jumps(
    pages: Pages, workspace: Path, mode: str
) -> None:
    page = await start(pages, workspace)
    if mode == "wysiwyg":
        await page.click("#mode-toggle")
        await page.wait_for_selector(".ProseMirror")
    outline = page.get_by_role("navigation", name="Outline")
    await expect(outline).to_be_visible()
    items = outline.locator(".outline-item")
    await expect(items).to_have_count(4)
    assert await items.all_inner_texts() == ["Title", "First part", "Second", "Deep one"]
    assert [await i.get_attribute("data-level") for i in await items.all()] == ["1", "2", "2", "3"]
    await items.nth(2).click()
    await expect(items.nth(2)).to_have_attribute("aria-current", "location")
    # The heading is in view, at the top of the editor.
    shown = ".cm-line" if mode == "source" else ".ProseMirror h2"
    heading = page.locator(shown, has_text="Second")
    await expect(heading.first).to_be_in_viewport()
    await items.nth(3).click()
    await expect(items.nth(3)).to_have_attribute("aria-current", "location")
    await expect(items.nth(2)).not_to_have_attribute("aria-current", "location")
    # The cursor moves to the top: the outline follows it.
    if mode == "source":
        await page.keyboard.press("Control+Home")
    else:
        await page.click(".ProseMirror h1")
    await expect(items.nth(0)).to_have_attribute("aria-current", "location")
    await pages.screenshots(f"outline-{mode}-light")


async def test_the_outline_says_what_to_do_without_headings(pages: Pages, workspace: Path) -> None:
    page = await start(pages, workspace, "just words\n")
    await expect(page.locator(".outline-empty")).to_have_text("No headings yet: start a line with # to add one.")


async def test_the_status_bar_counts_and_follows_the_cursor(pages: Pages, workspace: Path) -> None:
    (workspace / "crlf.md").write_bytes("# Hello world\r\n\r\nSome more words, and 中文字.\r\n".encode())
    page = await pages.open()
    await expect(page.get_by_test_id("status-words")).to_have_text("No document open")
    await open_folder(page, workspace)
    await open_from_tree(page, "crlf.md")
    bar = page.get_by_role("contentinfo", name="Status")
    await expect(bar).to_be_visible()
    # "Hello world Some more words and" = 6 words + 3 CJK characters
    await expect(page.get_by_test_id("status-words")).to_have_text("9 words")
    await expect(page.get_by_test_id("status-characters")).to_have_text("38 characters")
    await expect(page.get_by_test_id("status-reading")).to_have_text("1 min read")
    await expect(page.get_by_test_id("status-endings")).to_have_text("CRLF")
    await expect(page.get_by_test_id("status-encoding")).to_have_text("UTF-8")
    await expect(page.get_by_test_id("status-mode")).to_have_text("Source")
    await page.click(".cm-content")
    await page.keyboard.press("Control+Home")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("End")
    await expect(page.get_by_test_id("status-cursor")).to_have_text("Ln 3, Col 26")
    await page.keyboard.type(" more")
    await expect(page.get_by_test_id("status-words")).to_have_text("10 words")
    await page.click("#mode-toggle")
    await page.wait_for_selector(".ProseMirror")
    await expect(page.get_by_test_id("status-mode")).to_have_text("WYSIWYG")
    await page.click(".ProseMirror h1")
    await page.keyboard.press("End")
    await expect(page.get_by_test_id("status-cursor")).to_have_text("Ln 1, Col 14")
    await pages.screenshots("statusbar-light")
