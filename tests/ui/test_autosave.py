"""Save automatically (issue 18): off by default (typing leaves the document unsaved); on, a file is saved
a moment after the person stops typing."""

from __future__ import annotations

import asyncio
from pathlib import Path

from playwright.async_api import expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import doc_of, open_folder, open_from_tree, type_at_end, wait_doc_text
from vmark.app.server import RunningApp

A = "# A\n\nalpha\n"


async def test_off_by_default_typing_stays_unsaved(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    assert vmark.app.settings.get("editor.save_automatically") is False
    page = await pages.open()
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "a.md")
    await type_at_end(page, "typed")
    await wait_doc_text(vmark, tab, A + "typed")
    await asyncio.sleep(1.5)  # longer than the automatic save would wait
    assert doc_of(vmark, tab).dirty
    assert (workspace / "a.md").read_text("utf-8") == A


async def test_on_it_saves_after_typing_stops(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await pages.open()
    await page.click("#settings-open")
    switch = page.locator(".setting[data-key='editor.save_automatically'] [role=switch]")
    await switch.click()
    row = page.locator(".setting[data-key='editor.save_automatically']")
    await expect(row).to_have_attribute("data-state", "saved")
    await page.click("#settings-close")
    assert vmark.app.settings.get("editor.save_automatically") is True
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "a.md")
    await type_at_end(page, "typed")
    await wait_until(lambda: (workspace / "a.md").read_text("utf-8") == A + "typed", "the automatic save")
    await wait_until(lambda: not doc_of(vmark, tab).dirty, "the tab to be clean")
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_attribute("data-dirty", "false")
    # An untitled document has no file: it stays unsaved (Save as names one).
    await page.keyboard.press("Control+n")
    await page.wait_for_selector(".cm-content")
    await type_at_end(page, "draft")
    await asyncio.sleep(1.5)
    assert await page.locator(".toast.error").count() == 0
