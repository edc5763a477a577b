"""CJK "format selection": the header button #cjk-format and ``ui.cjk_format`` (the engine and settings of
``document.transform`` kind ``cjk-format``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import doc_of, open_folder, open_from_tree, wait_doc_text, wait_editor_text
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient, UIError

MIXED = "中文English混排,很好"
FORMATTED = "中文 English 混排，很好"
UNSPACED = "中文English混排，很好"  # with cjk.spacing off: the comma still turns full-width
DOC = f"学习Python编程\n\n{MIXED}\n"


# --- the protocol ------------------------------------------------------------------------------------------
async def test_cjk_format_uses_the_persons_rules(person: UIClient) -> None:
    assert await person.call("ui.cjk_format", text=MIXED) == {"text": FORMATTED}
    # The Markdown around the words stays as it is: code, links, emphasis markers.
    markdown = "`中文English` **粗体English** [链接](http://example.com/a,b)中文English"
    expected = "`中文English` **粗体 English** [链接](http://example.com/a,b)中文 English"
    assert await person.call("ui.cjk_format", text=markdown) == {"text": expected}
    await person.call("settings.set", key="cjk.spacing", value=False)
    assert await person.call("ui.cjk_format", text=MIXED) == {"text": UNSPACED}
    assert await person.call("ui.cjk_format", text="") == {"text": ""}


async def test_cjk_format_refuses_what_is_no_text(person: UIClient) -> None:
    for payload in ({}, {"text": 3}, {"text": None}):
        with pytest.raises(UIError) as info:
            await person.call("ui.cjk_format", **payload)
        assert info.value.error == "argument 'text' must be a string", payload


# --- the page ------------------------------------------------------------------------------------------------
async def _open(pages: Pages, workspace: Path, text: str = DOC) -> tuple[Page, str]:
    (workspace / "cjk.md").write_text(text, "utf-8")
    page = await pages.open()
    await open_folder(page, workspace)
    return page, await open_from_tree(page, "cjk.md")


async def _select_source_line(page: Page, line: int) -> None:
    """Select the whole (short, unindented) source line ``line`` (1-based) with the keyboard."""
    await page.click(".cm-content")
    await page.keyboard.press("Control+Home")
    for _ in range(line - 1):
        await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Home")
    await page.keyboard.press("Shift+End")


async def test_format_selection_in_source_mode(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, tab = await _open(pages, workspace)
    await _select_source_line(page, 3)
    await page.click("#cjk-format")
    expected = f"学习Python编程\n\n{FORMATTED}\n"  # the first line was not selected: it stays
    await wait_editor_text(page, expected)
    await wait_doc_text(vmark, tab, expected)
    assert doc_of(vmark, tab).dirty


async def test_format_selection_in_wysiwyg_mode(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, tab = await _open(pages, workspace)
    await page.click("#mode-toggle")
    await wait_until(lambda: _mode_is(page, "wysiwyg"), "the WYSIWYG editor")
    await page.click(".ProseMirror p >> nth=1")
    await page.keyboard.press("End")
    await page.keyboard.press("Shift+Home")
    await page.click("#cjk-format")
    expected = f"学习Python编程\n\n{FORMATTED}\n"
    await wait_editor_text(page, expected)
    await wait_doc_text(vmark, tab, expected)
    await expect(page.locator(".ProseMirror p").nth(1)).to_have_text(FORMATTED)


async def _mode_is(page: Page, mode: str) -> bool:
    return bool(await page.evaluate("window.vmarkPage.mode()") == mode)


async def test_an_empty_selection_formats_nothing_and_says_so(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, tab = await _open(pages, workspace)
    revision = doc_of(vmark, tab).state.revision
    await page.click(".cm-content")
    await page.keyboard.press("Control+End")
    await page.click("#cjk-format")
    await expect(page.locator("#toasts .toast").last).to_have_text("Nothing is selected: select the text to format")
    assert await page.evaluate("window.vmarkPage.editorText()") == DOC
    assert (doc_of(vmark, tab).state.text, doc_of(vmark, tab).state.revision) == (DOC, revision)


async def test_a_cjk_switch_in_the_settings_dialog_changes_the_result(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab = await _open(pages, workspace, f"{MIXED}\n\n{MIXED}\n")
    await _select_source_line(page, 1)
    await page.click("#cjk-format")
    await wait_doc_text(vmark, tab, f"{FORMATTED}\n\n{MIXED}\n")

    await page.click("#settings-open")
    spacing = page.locator(".setting[data-key='cjk.spacing']")
    await expect(spacing.locator("input[type=checkbox]")).to_be_checked()
    await spacing.locator("input[type=checkbox]").click()
    await expect(spacing).to_have_attribute("data-state", "saved")
    await page.click("#settings-close")
    assert vmark.app.settings.get("cjk.spacing") is False

    await _select_source_line(page, 3)
    await page.click("#cjk-format")
    await wait_doc_text(vmark, tab, f"{FORMATTED}\n\n{UNSPACED}\n")
    await wait_editor_text(page, f"{FORMATTED}\n\n{UNSPACED}\n")


async def test_formatted_text_and_other_kinds_are_left_alone(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, tab = await _open(pages, workspace, f"{FORMATTED}\n")
    await _select_source_line(page, 1)
    await page.click("#cjk-format")
    await expect(page.locator("#toasts .toast").last).to_have_text("The selection is already formatted")
    assert doc_of(vmark, tab).state.text == f"{FORMATTED}\n"

    workflow = await open_from_tree(page, ".github/workflows/ci.yml")
    await page.click(".cm-content")
    await page.keyboard.press("Control+a")
    await expect(page.locator("#cjk-format")).to_be_disabled()  # a workflow tab has nothing to format
    assert doc_of(vmark, workflow).state.text == "name: ci\non: push\njobs: {}\n"
