"""The app's keys in both modes (issue 18): quick open, the command palette, tabs, formatting, indent, find
and replace, search across the workspace, Save as for an untitled tab, and the shortcuts sheet."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import (
    active_tab,
    doc_of,
    editor_text,
    open_folder,
    open_from_tree,
    wait_doc_text,
    wait_editor_text,
)
from vmark.app.server import RunningApp

A = "# A\n\nalpha\n"


async def start(pages: Pages, workspace: Path) -> Page:
    page = await pages.open()
    await open_folder(page, workspace)
    return page


async def wysiwyg(page: Page) -> None:
    await page.click("#mode-toggle")
    await page.wait_for_selector(".ProseMirror")
    assert await page.evaluate("window.vmarkPage.mode()") == "wysiwyg"


async def select_line(page: Page, line: int) -> None:
    """Select line ``line`` (1-based) of the source editor with the keyboard."""
    await page.click(".cm-content")
    await page.keyboard.press("Control+Home")
    for _ in range(line - 1):
        await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Home")
    await page.keyboard.press("Shift+End")


# --- quick open and the command palette -------------------------------------------------------------
async def test_quick_open_is_fuzzy_over_the_workspace_files(pages: Pages, workspace: Path) -> None:
    page = await start(pages, workspace)
    await page.keyboard.press("Control+p")
    box = page.get_by_role("combobox", name="Quick open")
    await expect(box).to_be_focused()
    options = page.locator("#quick-open [role=option] .picker-label")
    assert sorted(await options.all_inner_texts()) == ["a.md", "b.md", "c.md", "ci.yml", "readme.txt"]
    await box.fill("ntc")  # n(otes/) c(.md): not a substring, a fuzzy match
    assert await options.all_inner_texts() == ["c.md"]
    await page.keyboard.press("Enter")
    await page.wait_for_selector(".tab.active .title:text-is('c')")
    await wait_editor_text(page, "# C\n")
    await expect(page.locator("#quick-open")).not_to_be_visible()
    # Nothing matches: it says so; Escape closes without opening anything.
    await page.keyboard.press("Control+o")
    await box.fill("zzzz")
    await expect(page.locator("#quick-open .picker-empty")).to_have_text("No file matches")
    await page.keyboard.press("Escape")
    await expect(page.locator("#quick-open")).not_to_be_visible()


async def test_quick_open_without_a_workspace_says_what_to_do(pages: Pages) -> None:
    page = await pages.open()
    await page.keyboard.press("Control+p")
    await expect(page.locator("#quick-open .picker-empty")).to_have_text(
        "No workspace is open: open a folder from the sidebar first."
    )


async def test_the_palette_names_every_toolbar_action(pages: Pages, workspace: Path) -> None:
    page = await start(pages, workspace)
    await open_from_tree(page, "a.md")
    toolbar = await page.eval_on_selector_all(
        "header.bar button",
        "bs => bs.filter(b => !b.closest('[hidden]'))"
        ".map(b => b.dataset.command || b.getAttribute('aria-label') || b.textContent.trim())",
    )
    assert len(toolbar) >= 11
    await page.keyboard.press("Control+Shift+P")
    box = page.get_by_role("combobox", name="Command palette")
    await expect(box).to_be_focused()
    labels = await page.locator("#command-palette [role=option] .picker-label").all_inner_texts()
    assert set(toolbar) <= set(labels), set(toolbar) - set(labels)
    assert {"Quick open", "Search the workspace", "Next tab", "Keyboard shortcuts"} <= set(labels)
    await box.fill("settings")
    await page.keyboard.press("Enter")
    await expect(page.locator("#settings")).to_be_visible()


# --- tabs ------------------------------------------------------------------------------------------------
async def test_new_next_previous_and_close_with_unsaved_work(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await start(pages, workspace)
    a = await open_from_tree(page, "a.md")
    b = await open_from_tree(page, "b.md")
    await page.click("#empty, #editor", position={"x": 5, "y": 5})
    await page.keyboard.press("Control+n")
    await wait_until(lambda: _count(page, 3), "a third tab")
    untitled = await active_tab(page)
    assert untitled not in (a, b)
    await page.keyboard.press("Control+Tab")
    await wait_until(lambda: _active_is(page, a), "Ctrl+Tab to wrap around to the first tab")
    await page.keyboard.press("Control+Shift+Tab")
    await wait_until(lambda: _active_is(page, untitled), "Ctrl+Shift+Tab to go back")
    await page.keyboard.press("Alt+PageDown")
    await wait_until(lambda: _active_is(page, a), "Alt+PageDown: the next tab")
    await page.keyboard.press("Alt+PageUp")
    await wait_until(lambda: _active_is(page, untitled), "Alt+PageUp: the previous tab")
    await page.keyboard.press("Alt+n")
    await wait_until(lambda: _count(page, 4), "Alt+N: a fourth tab")
    await page.keyboard.press("Alt+w")  # an empty new tab closes without a question
    await wait_until(lambda: _count(page, 3), "Alt+W to close it")
    # Unsaved work: Ctrl+W asks in the app's dialog; Escape (Cancel) keeps the tab, "Don't save" closes it.
    await page.click(".tab:nth-child(1)")
    await wait_until(lambda: _active_is(page, a), "a.md to show")
    await page.click(".cm-content")
    await page.keyboard.press("Control+End")
    await page.keyboard.type("more")
    await wait_doc_text(vmark, a, A + "more")
    unsaved = page.get_by_test_id("unsaved")
    await page.keyboard.press("Control+w")
    await expect(unsaved.get_by_role("heading")).to_have_text("Save the changes to a?")
    await page.keyboard.press("Escape")
    await expect(unsaved).to_have_count(0)
    assert await _count(page, 3)
    await page.keyboard.press("Control+w")
    await unsaved.get_by_role("button", name="Don't save").click()
    await wait_until(lambda: _count(page, 2), "the tab to close")
    assert (workspace / "a.md").read_text("utf-8") == A


async def _count(page: Page, n: int) -> bool:
    return await page.locator(".tab").count() == n


async def _active_is(page: Page, tab: str | None) -> bool:
    return await active_tab(page) == tab and await page.locator(f".tab.active[data-tab-id='{tab}']").count() == 1


async def test_ctrl_s_on_an_untitled_tab_opens_save_as(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await start(pages, workspace)
    await page.keyboard.press("Control+n")
    await page.wait_for_selector(".cm-content")
    await page.click(".cm-content")
    await page.keyboard.type("# fresh")
    await page.keyboard.press("Control+s")
    await expect(page.get_by_test_id("picker")).to_be_visible()
    assert await page.locator(".toast.error").count() == 0
    await expect(page.get_by_test_id("picker-name")).to_be_focused()
    await page.keyboard.type("fresh")  # in the window's workspace; .md is added
    await page.keyboard.press("Enter")
    await wait_until(lambda: (workspace / "fresh.md").exists(), "the new file")
    assert (workspace / "fresh.md").read_text("utf-8") == "# fresh"
    # Now it has a file: Ctrl+S saves it in place.
    await page.click(".cm-content")
    await page.keyboard.press("Control+End")
    await page.keyboard.type("!")
    await page.keyboard.press("Control+s")
    await wait_until(lambda: (workspace / "fresh.md").read_text("utf-8") == "# fresh!", "the save")
    await expect(page.get_by_test_id("picker")).not_to_be_visible()


# --- formatting and indent in source mode ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("Control+b", "# A\n\n**alpha**\n"),
        ("Control+i", "# A\n\n*alpha*\n"),
        ("Control+e", "# A\n\n`alpha`\n"),
        ("Control+k", "# A\n\n[alpha]()\n"),
    ],
)
async def test_source_mode_wraps_the_selection(
    pages: Pages, vmark: RunningApp, workspace: Path, key: str, expected: str
) -> None:
    page = await start(pages, workspace)
    tab = await open_from_tree(page, "a.md")
    await select_line(page, 3)
    await page.keyboard.press(key)
    await wait_doc_text(vmark, tab, expected)
    if key == "Control+k":
        await page.keyboard.type("https://example.org")  # the cursor waits where the address goes
        await wait_doc_text(vmark, tab, "# A\n\n[alpha](https://example.org)\n")
    elif key == "Control+b":
        await page.keyboard.press(key)  # again: unwrapped
        await wait_doc_text(vmark, tab, A)


async def test_tab_indents_in_source_mode(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    (workspace / "list.md").write_text("- one\n- two\n", "utf-8")
    page = await start(pages, workspace)
    tab = await open_from_tree(page, "list.md")
    await select_line(page, 2)
    await page.keyboard.press("Tab")
    await wait_doc_text(vmark, tab, "- one\n  - two\n")
    assert await page.evaluate("document.activeElement.classList.contains('cm-content')")
    await page.keyboard.press("Shift+Tab")
    await wait_doc_text(vmark, tab, "- one\n- two\n")


async def test_wysiwyg_formatting_keys(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await start(pages, workspace)
    tab = await open_from_tree(page, "a.md")
    await wysiwyg(page)
    paragraph = page.locator(".ProseMirror p")
    await paragraph.dblclick()  # selects "alpha"
    await page.keyboard.press("Control+b")
    await wait_doc_text(vmark, tab, "# A\n\n**alpha**\n")
    await page.keyboard.press("Control+b")
    await wait_doc_text(vmark, tab, A)
    await page.keyboard.press("Control+i")
    await wait_doc_text(vmark, tab, "# A\n\n*alpha*\n")
    await page.keyboard.press("Control+i")
    await page.keyboard.press("Control+e")
    await wait_doc_text(vmark, tab, "# A\n\n`alpha`\n")
    await page.keyboard.press("Control+e")
    await wait_doc_text(vmark, tab, A)
    await page.keyboard.press("Control+k")
    address = page.get_by_role("textbox", name="Link address")
    await expect(address).to_be_focused()
    await address.fill("https://example.org")
    await page.keyboard.press("Enter")
    await wait_doc_text(vmark, tab, "# A\n\n[alpha](https://example.org)\n")


# --- find and replace ------------------------------------------------------------------------------------
async def test_find_and_replace_in_source_mode(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    (workspace / "many.md").write_text("cat cat\n\ndog cat\n", "utf-8")
    page = await start(pages, workspace)
    tab = await open_from_tree(page, "many.md")
    await page.click(".cm-content")
    await page.keyboard.press("Control+h")
    replace = page.locator(".cm-search input[name=replace]")
    await expect(replace).to_be_focused()
    await page.fill(".cm-search input[name=search]", "cat")
    await replace.fill("cow")
    await page.click(".cm-search button[name=replaceAll]")
    await wait_doc_text(vmark, tab, "cow cow\n\ndog cow\n")


async def test_find_and_replace_in_wysiwyg(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    text = "# Cats\n\nA *cat* and a cat.\n\n- cat food\n"
    (workspace / "many.md").write_text(text, "utf-8")
    page = await start(pages, workspace)
    tab = await open_from_tree(page, "many.md")
    await wysiwyg(page)
    await page.click(".ProseMirror h1")
    await page.keyboard.press("Control+Home")
    await page.keyboard.press("Control+f")
    find = page.get_by_role("searchbox", name="Find")
    await expect(find).to_be_focused()
    await find.fill("cat")
    count = page.get_by_test_id("find-count")
    await expect(count).to_have_text(re.compile(r"^\d of 4$"))  # "Cats" too: case-insensitive
    assert await page.locator(".md-find-match").count() == 4
    at = int((await count.inner_text())[0])
    await page.keyboard.press("Enter")
    await expect(count).to_have_text(f"{at % 4 + 1} of 4")
    assert await page.evaluate("getSelection().toString()") == ""  # the focus stays in the find field
    await page.keyboard.press("Shift+Enter")
    await page.keyboard.press("Escape")
    await expect(page.get_by_test_id("findbar")).to_be_hidden()
    assert await page.locator(".md-find-match").count() == 0
    await page.keyboard.press("Control+h")
    await page.get_by_role("searchbox", name="Find").fill("cat")
    await page.click("label[for=find-match-case]")
    await expect(page.get_by_test_id("find-count")).to_have_text("1 of 3")
    await page.get_by_role("textbox", name="Replace with").fill("dog")
    await page.click(".findbar button:text-is('Replace')")
    await wait_doc_text(vmark, tab, "# Cats\n\nA *dog* and a cat.\n\n- cat food\n")
    await page.click(".findbar button:text-is('Replace all')")
    await wait_doc_text(vmark, tab, "# Cats\n\nA *dog* and a dog.\n\n- dog food\n")
    await expect(page.get_by_test_id("find-count")).to_have_text("No matches")
    await pages.screenshots("findbar-light")


# --- search across the workspace -------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["source", "wysiwyg"])
async def test_workspace_search_opens_the_file_at_the_match(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str
) -> None:
    (workspace / "notes" / "long.md").write_text("# Long\n\nfirst\n\nthe needle here\n\nlast needle\n", "utf-8")
    page = await start(pages, workspace)
    if mode == "wysiwyg":  # the file's tab is open in WYSIWYG already
        await open_from_tree(page, "notes/long.md")
        await wysiwyg(page)
    first = await open_from_tree(page, "a.md")
    await page.keyboard.press("Control+Shift+F")
    box = page.get_by_role("searchbox", name="Search the workspace")
    await expect(box).to_be_focused()
    await box.fill("NEEDLE")
    await expect(page.locator(".search-status")).to_have_text("2 lines in 1 file")
    assert await page.locator(".search-file h3").all_inner_texts() == ["notes/long.md"]
    hits = page.locator(".search-hit")
    assert await hits.locator(".search-line").all_inner_texts() == ["5", "7"]
    assert await hits.locator(".search-text").all_inner_texts() == ["the needle here", "last needle"]
    assert await hits.locator("mark").all_inner_texts() == ["needle", "needle"]
    await hits.nth(1).click()
    await page.wait_for_selector(".tab.active .title:text-is('long')")
    tab = await page.get_attribute(".tab.active", "data-tab-id")
    assert tab is not None and tab != first
    await wait_until(lambda: _active_is(page, tab), "the file's tab shown (the strip can be drawn before its editor)")
    if mode == "source":
        # The cursor selects the match: "last needle" is line 7, the app hears of the selection.
        offset = len("# Long\n\nfirst\n\nthe needle here\n\nlast ")
        await wait_until(lambda: doc_of(vmark, tab).state.text != "" and _selection(vmark, tab) == (offset, offset + 6),
                         "the selection at the match")  # fmt: skip
    else:
        assert await page.evaluate("window.vmarkPage.mode()") == "wysiwyg"
        selected = await page.evaluate("getSelection().toString()")
        assert selected == "needle"
        box_top = await page.evaluate("getSelection().getRangeAt(0).getBoundingClientRect().top")
        line = page.locator(".ProseMirror p", has_text="last needle")
        p_top = await line.evaluate("e => e.getBoundingClientRect().top")
        assert abs(box_top - p_top) < 30
    # Nothing found: it says so.
    await page.keyboard.press("Control+Shift+F")
    await box.fill("no such words")
    await expect(page.locator(".search-status")).to_contain_text("No file of the workspace contains")
    await pages.screenshots(f"search-{mode}-light")
    assert await editor_text(page) is not None


def _selection(vmark: RunningApp, tab: str | None) -> tuple[int, int] | None:
    assert tab is not None
    _, found = vmark.app.session.find_tab(tab)
    selection = found.selection
    return None if selection is None else (selection[0], selection[1])


# --- the shortcuts sheet -----------------------------------------------------------------------------
async def test_the_shortcuts_sheet_lists_the_keys_and_what_browsers_keep(pages: Pages, workspace: Path) -> None:
    page = await start(pages, workspace)
    await page.keyboard.press("Control+/")
    sheet = page.get_by_test_id("shortcuts")
    await expect(sheet).to_be_visible()
    text = await sheet.inner_text()
    for words in ("Quick open", "Command palette", "Search across the workspace", "Alt+PageDown", "Alt+W", "Alt+N"):
        assert words in text
    assert text.count("A browser window keeps this key for itself") == 4
    await pages.screenshots("shortcuts-light")
    await page.keyboard.press("Escape")
    await expect(sheet).to_be_hidden()
    await page.locator("body").press("?")
    await expect(sheet).to_be_visible()
    await page.keyboard.press("Escape")
    # "?" typed into a document is a character, not the sheet.
    await open_from_tree(page, "a.md")
    await page.click(".cm-content")
    await page.keyboard.press("Control+End")
    await page.keyboard.type("?")
    await expect(sheet).to_be_hidden()
    await wait_editor_text(page, A + "?")
