"""Editing in a real page while an agent works on the same document over MCP."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Page, expect

from tests.conftest import fail_code, make_client, ok
from tests.contract.helpers import wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import (
    active_tab,
    agent_write,
    doc_of,
    editor_text,
    open_folder,
    open_from_tree,
    open_path,
    pages_flushed,
    type_at_end,
    wait_doc_text,
    wait_editor_text,
)
from vmark.app.server import RunningApp

A = "# A\n\nalpha\n"


async def main_page(pages: Pages, workspace: Path) -> Page:
    page = await pages.open()
    assert await page.inner_text("[data-testid=window-label]") == "main"
    await open_folder(page, workspace)
    return page


async def test_typing_in_source_mode_reaches_the_document(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await main_page(pages, workspace)
    tab = await open_from_tree(page, "a.md")
    assert await page.evaluate("window.vmarkPage.mode()") == "source"
    await type_at_end(page, "typed by a person")
    await wait_doc_text(vmark, tab, A + "typed by a person")
    async with make_client(vmark.data_dir) as agent:
        read = await ok(agent, "document", "read", tabId=tab)
    assert (read["content"], read["dirty"], read["filePath"]) == (
        A + "typed by a person",
        True,
        str((workspace / "a.md").resolve()),
    )
    assert (workspace / "a.md").read_text("utf-8") == A  # typing does not save
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_attribute("data-dirty", "true")


async def test_an_agent_write_shows_up_in_the_page(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await main_page(pages, workspace)
    tab = await open_from_tree(page, "a.md")
    async with make_client(vmark.data_dir) as agent:
        wrote = await agent_write(agent, tab, "# A\n\nfrom the agent\n")
    assert wrote["applied"] is True
    await wait_editor_text(page, "# A\n\nfrom the agent\n")
    # The person keeps typing on top of it: the app gets the agent's text plus the keystrokes.
    await type_at_end(page, "and the person")
    await wait_doc_text(vmark, tab, "# A\n\nfrom the agent\nand the person")


async def test_two_windows_on_one_file_see_each_others_edits(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    first = await main_page(pages, workspace)
    tab1 = await open_from_tree(first, "a.md")
    second = await pages.open()  # main has a page: this one gets a new window
    assert await second.inner_text("[data-testid=window-label]") == "doc-1"
    tab2 = await open_path(second, workspace / "a.md")
    assert tab2 != tab1 and doc_of(vmark, tab1) is doc_of(vmark, tab2)
    await type_at_end(first, "one")
    await wait_editor_text(second, A + "one")
    await type_at_end(second, " two")
    await wait_editor_text(first, A + "one two")
    await wait_doc_text(vmark, tab1, A + "one two")
    windows = {w.label: [t.id for t in w.tabs] for w in vmark.app.session.windows.values()}
    assert windows == {"main": [tab1], "doc-1": [tab2]}


async def test_tab_strip_dirty_save_pin_close(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await main_page(pages, workspace)
    tab = await open_from_tree(page, "a.md")
    strip = page.locator(f".tab[data-tab-id='{tab}']")
    await expect(strip).to_have_attribute("data-dirty", "false")
    await type_at_end(page, "saved")
    await expect(strip).to_have_attribute("data-dirty", "true")
    await page.click("#save-tab")
    await expect(strip).to_have_attribute("data-dirty", "false")
    assert (workspace / "a.md").read_bytes() == (A + "saved").encode()
    await strip.locator(".pin").click()
    await expect(strip).to_have_attribute("data-pinned", "true")
    assert vmark.app.session.find_tab(tab)[1].pinned is True
    await expect(strip.locator(".close")).to_be_hidden()
    await strip.locator(".pin").click()
    await expect(strip).to_have_attribute("data-pinned", "false")
    await strip.locator(".close").click()
    await expect(strip).to_have_count(0)
    assert vmark.app.session.windows["main"].tabs == []
    assert await editor_text(page) is None


async def test_wysiwyg_mode_loads_agent_writes_and_sends_its_serialization(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page = await main_page(pages, workspace)
    tab = await open_from_tree(page, "a.md")
    await page.click("#mode-toggle")
    await page.wait_for_selector(".ProseMirror")
    assert await page.evaluate("window.vmarkPage.mode()") == "wysiwyg"
    assert vmark.app.session.find_tab(tab)[1].mode == "wysiwyg"
    async with make_client(vmark.data_dir) as agent:
        await agent_write(agent, tab, "# A\n\nfrom the agent\n")
    await expect(page.locator(".ProseMirror p")).to_have_text("from the agent")
    assert doc_of(vmark, tab).state.text == "# A\n\nfrom the agent\n"  # loading it is no edit
    await page.locator(".ProseMirror p").click()
    await page.keyboard.press("End")
    await page.keyboard.type(" and me")
    await wait_doc_text(vmark, tab, "# A\n\nfrom the agent and me\n")


async def test_ime_composition_makes_an_agent_write_busy(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await main_page(pages, workspace)
    tab = await open_from_tree(page, "a.md")
    doc = doc_of(vmark, tab)
    await page.click(".cm-content")
    await page.keyboard.press("Control+End")
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Input.imeSetComposition", {"text": "に", "selectionStart": 1, "selectionEnd": 1})
    await wait_until(lambda: doc.composing, "the app to learn that the person is composing")
    async with make_client(vmark.data_dir) as agent:
        read = await ok(agent, "document", "read", tabId=tab)
        envelope = await fail_code(
            agent, "document", "write", tabId=tab, content="# A\n\nagent\n", expected_revision=read["revision"]
        )
        assert envelope["error"] == "BUSY"
        assert doc.state.text == A and (workspace / "a.md").read_text("utf-8") == A
        await cdp.send("Input.insertText", {"text": "に"})  # commits the composition
        await wait_until(lambda: not doc.composing, "the composition to end")
        await wait_doc_text(vmark, tab, A + "に")
        await wait_until(lambda: not vmark.app.turns.is_composing(doc), "the composition grace to pass")
        await agent_write(agent, tab, "# A\n\nagent\n")
    await wait_editor_text(page, "# A\n\nagent\n")


async def test_new_tab_and_switching_tabs_by_clicking(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await main_page(pages, workspace)
    first = await open_from_tree(page, "a.md")
    await page.click("#new-tab")
    await page.wait_for_selector(".tab.active .title:text-is('Untitled-1')")
    untitled = await active_tab(page)
    assert untitled is not None and untitled != first
    await wait_editor_text(page, "")
    await type_at_end(page, "draft")
    await wait_doc_text(vmark, untitled, "draft")
    await page.click(f".tab[data-tab-id='{first}']")
    await wait_editor_text(page, A)
    assert vmark.app.session.windows["main"].active_tab == first
    await page.click("#save-tab")  # a clean file saves as it is
    await expect(page.get_by_test_id("notifications")).to_contain_text(f"Saved {(workspace / 'a.md').resolve()}")


async def test_a_write_into_the_wysiwyg_tab_keeps_the_agents_bytes(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    """What gets saved is exactly what the agent wrote (setext heading, `+` markers): the editor only shows it."""
    page = await main_page(pages, workspace)
    tab = await open_from_tree(page, "a.md")
    await page.click("#mode-toggle")
    await page.wait_for_selector(".ProseMirror")
    written = "Title\n=====\n\n+ one\n+ two\n"
    async with make_client(vmark.data_dir) as agent:
        out = await agent_write(agent, tab, written)
        assert (out["applied"], out["saved"]) == (True, True)
        assert (await ok(agent, "document", "read", tabId=tab))["content"] == written
    assert (workspace / "a.md").read_bytes() == written.encode()
    await expect(page.locator(".ProseMirror h1")).to_have_text("Title")
    await expect(page.locator(".ProseMirror li")).to_have_count(2)
    assert await editor_text(page) == written
    # The agent's write is no step of the person's undo (issue 17): Ctrl+Z leaves it; "Reject all" is the way
    # back to their text (an edit of theirs, not yet saved).
    await page.locator(".ProseMirror li").first.click()
    await page.keyboard.press("Control+z")
    assert await editor_text(page) == written  # ProseMirror's undo is synchronous: it would show here
    await page.click("#review-reject-all")
    await wait_doc_text(vmark, tab, A)
    await wait_editor_text(page, A)
    assert (workspace / "a.md").read_bytes() == written.encode()


async def test_a_write_into_a_source_tab_is_kept_verbatim(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await main_page(pages, workspace)
    tab = await open_from_tree(page, "a.md")
    async with make_client(vmark.data_dir) as agent:
        await agent_write(agent, tab, "Title\n=====\n\n+ one\n")
    assert (workspace / "a.md").read_bytes() == b"Title\n=====\n\n+ one\n"
    await wait_editor_text(page, "Title\n=====\n\n+ one\n")


async def test_an_agent_edit_shows_up_in_both_modes_and_keeps_every_other_byte(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    """``document.edit``: the app splices the text; the page shows it (a WYSIWYG page does not re-serialize)."""
    text = "Title\n=====\n\n+ one\n+ two\n\n__bold__ and *em*\n"
    (workspace / "rich.md").write_text(text, "utf-8")
    page = await main_page(pages, workspace)
    tab = await open_from_tree(page, "rich.md")
    async with make_client(vmark.data_dir) as agent:
        read = await ok(agent, "document", "read", tabId=tab)
        edits = [{"old": "+ two", "new": "+ three"}]
        out = await ok(agent, "document", "edit", tabId=tab, edits=edits, expected_revision=read["revision"])
        text = text.replace("+ two", "+ three")
        await wait_editor_text(page, text)
        await page.click("#mode-toggle")
        await page.wait_for_selector(".ProseMirror")
        edits = [{"old": "+ one", "new": "+ first"}]
        out = await ok(agent, "document", "edit", tabId=tab, edits=edits, expected_revision=out["revision"])
        assert (out["applied"], out["saved"]) == (True, True)
        text = text.replace("+ one", "+ first")
        await expect(page.locator(".ProseMirror li").first).to_have_text("first")
        await expect(page.locator(".ProseMirror li").nth(1)).to_have_text("three")
        await pages_flushed(vmark)  # a write-back the page would make has arrived now
        assert doc_of(vmark, tab).state.text == text
        assert (workspace / "rich.md").read_bytes() == text.encode()
        assert (await ok(agent, "document", "read", tabId=tab))["revision"] == out["revision"]
