"""The ``selection`` tool on the real editor: the person selects in Chromium, an MCP agent reads and replaces.

Source mode counts characters; WYSIWYG mode counts ProseMirror positions and speaks Markdown.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.conftest import fail_code, make_client, ok
from tests.contract.helpers import background, journal, journal_gate, wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import doc_of, editor_text, open_folder, open_from_tree, wait_doc_text, wait_editor_text
from vmark.app.server import RunningApp

A = "# A\n\nalpha\n"


async def _page_on(pages: Pages, workspace: Path, mode: str = "source") -> tuple[Page, str]:
    page = await pages.open()
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "a.md")
    if mode == "wysiwyg":
        await page.click("#mode-toggle")
        await page.wait_for_selector(".ProseMirror p")
    return page, tab


async def _select_word(page: Page, mode: str, word: str) -> None:
    line = ".cm-line" if mode == "source" else ".ProseMirror p"
    await page.locator(line, has_text=word).dblclick()


async def _select_line(page: Page, mode: str, text: str) -> None:
    line = ".cm-line" if mode == "source" else ".ProseMirror p"
    await page.locator(line, has_text=text).click()
    await page.keyboard.press("Home")
    await page.keyboard.press("Shift+End")


# --- source mode ------------------------------------------------------------------------------------
async def test_source_mode_round_trip(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, tab = await _page_on(pages, workspace)
    await _select_word(page, "source", "alpha")
    async with make_client(vmark.data_dir) as agent:
        got = await ok(agent, "selection", "get")
        assert got == {
            "text": "alpha",
            "isEmpty": False,
            "range": {"from": 5, "to": 10},
            "mode": "source",
            "kind": "markdown",
            "tabId": tab,
            "revision": doc_of(vmark, tab).state.revision,
        }
        out = await ok(agent, "selection", "set", content="  **raw**  ", expected_revision=got["revision"])
        assert (out["replaced_chars"], out["applied"], out["durable"]) == (5, True, True)
    await wait_editor_text(page, "# A\n\n  **raw**  \n")
    assert doc_of(vmark, tab).state.text == "# A\n\n  **raw**  \n"
    assert (workspace / "a.md").read_text("utf-8") == A  # not saved by selection.set


async def test_source_mode_collapsed_inserts_and_empty_deletes(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab = await _page_on(pages, workspace)
    await page.locator(".cm-line", has_text="alpha").click()
    await page.keyboard.press("End")
    async with make_client(vmark.data_dir) as agent:
        got = await ok(agent, "selection", "get")
        assert (got["isEmpty"], got["text"], got["range"]) == (True, "", {"from": 10, "to": 10})
        await ok(agent, "selection", "set", content=" beta")
        await wait_editor_text(page, "# A\n\nalpha beta\n")
        await _select_word(page, "source", "beta")
        out = await ok(agent, "selection", "set", content="")
        assert out["replaced_chars"] == 4
    await wait_editor_text(page, "# A\n\nalpha \n")
    assert doc_of(vmark, tab).state.text == "# A\n\nalpha \n"


# --- WYSIWYG mode -----------------------------------------------------------------------------------
async def test_wysiwyg_get_speaks_prosemirror_positions_and_markdown(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    (workspace / "a.md").write_text("# A\n\nsome **bold** words\n", encoding="utf-8")
    page, tab = await _page_on(pages, workspace, "wysiwyg")
    await _select_word(page, "wysiwyg", "words")
    async with make_client(vmark.data_dir) as agent:
        plain = await ok(agent, "selection", "get")
        # doc(heading "A" = 0..3, paragraph from 3: "some " 4..9, "bold" 9..13, " words" 13..19)
        assert (plain["text"], plain["range"], plain["mode"]) == ("words", {"from": 14, "to": 19}, "wysiwyg")
        await page.keyboard.press("Home")
        await page.keyboard.press("Shift+End")
        marked = await ok(agent, "selection", "get")
        assert (marked["text"], marked["range"]) == ("some **bold** words", {"from": 4, "to": 19})
    assert doc_of(vmark, tab).state.text == "# A\n\nsome **bold** words\n"


async def test_wysiwyg_plain_text_is_literal_and_keeps_its_spaces(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab = await _page_on(pages, workspace, "wysiwyg")
    await _select_word(page, "wysiwyg", "alpha")
    async with make_client(vmark.data_dir) as agent:
        got = await ok(agent, "selection", "get")
        assert (got["text"], got["range"]) == ("alpha", {"from": 4, "to": 9})
        out = await ok(agent, "selection", "set", content=" two  spaces ", expected_revision=got["revision"])
        assert out["replaced_chars"] == 5
    paragraph = page.locator(".ProseMirror p")

    async def literal() -> bool:
        return await paragraph.evaluate("p => p.textContent") == " two  spaces "

    await wait_until(literal, "the paragraph to hold the literal text")
    assert await paragraph.locator("strong, em, code").count() == 0
    # What the app holds is the editor's serialization of that document.
    assert doc_of(vmark, tab).state.text == await editor_text(page)


async def test_wysiwyg_markdown_becomes_nodes(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, tab = await _page_on(pages, workspace, "wysiwyg")
    await _select_word(page, "wysiwyg", "alpha")
    async with make_client(vmark.data_dir) as agent:
        await ok(agent, "selection", "set", content="**bold** and `code`")
    await expect(page.locator(".ProseMirror p strong")).to_have_text("bold")
    await expect(page.locator(".ProseMirror p code")).to_have_text("code")
    await wait_doc_text(vmark, tab, "# A\n\n**bold** and `code`\n")
    assert await editor_text(page) == "# A\n\n**bold** and `code`\n"


async def test_wysiwyg_multi_paragraph_insertion_is_one_undoable_step(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab = await _page_on(pages, workspace, "wysiwyg")
    await _select_word(page, "wysiwyg", "alpha")
    content = "First paragraph.\n\n- one\n- two\n\n> quoted"
    async with make_client(vmark.data_dir) as agent:
        out = await ok(agent, "selection", "set", content=content)
        assert out["applied"] is True
    await expect(page.locator(".ProseMirror li")).to_have_count(2)
    await expect(page.locator(".ProseMirror blockquote")).to_have_text("quoted")
    await expect(page.locator(".ProseMirror > .pm-section > p").first).to_have_text("First paragraph.")
    # The agent's Markdown is spliced in as it wrote it (its list markers too), and shown as nodes.
    expected = "# A\n\nFirst paragraph.\n\n- one\n- two\n\n> quoted\n"
    await wait_doc_text(vmark, tab, expected)
    assert await editor_text(page) == expected
    # The agent's insertion is no step of the person's undo (issue 17): Ctrl+Z leaves it; rejecting the change
    # takes the whole insertion back in one step, and that is an edit of theirs.
    await page.locator(".ProseMirror h1").click()
    await page.keyboard.press("Control+z")
    assert await editor_text(page) == expected  # ProseMirror's undo is synchronous: it would show here
    await page.get_by_role("button", name="Reject change").click()
    await wait_editor_text(page, A)
    await wait_doc_text(vmark, tab, A)


# --- races ------------------------------------------------------------------------------------------------
async def test_typing_while_a_set_is_recorded_aborts_it(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, tab = await _page_on(pages, workspace)
    await _select_word(page, "source", "alpha")
    async with make_client(vmark.data_dir) as agent, journal_gate(vmark) as gate:
        pending = background(fail_code(agent, "selection", "set", content="agent"))
        await gate.wait_entered()
        await page.keyboard.type("person")  # replaces the selected word
        await wait_doc_text(vmark, tab, "# A\n\nperson\n")
        gate.release.set()
        envelope = await pending
    assert (envelope["error"], envelope["reason"]) == ("ABORTED", "edited")
    assert [e["state"] for e in await journal(vmark)] == ["aborted"]
    assert await editor_text(page) == "# A\n\nperson\n"


@pytest.mark.parametrize("mode", ["source", "wysiwyg"])
async def test_composing_makes_set_busy(pages: Pages, vmark: RunningApp, workspace: Path, mode: str) -> None:
    page, tab = await _page_on(pages, workspace, mode)
    doc = doc_of(vmark, tab)
    await _select_word(page, mode, "alpha")
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Input.imeSetComposition", {"text": "に", "selectionStart": 1, "selectionEnd": 1})
    await wait_until(lambda: doc.composing, "the app to learn that the person is composing")
    async with make_client(vmark.data_dir) as agent:
        assert (await ok(agent, "selection", "get"))["tabId"] == tab  # get is never BUSY
        envelope = await fail_code(agent, "selection", "set", content="agent")
        assert envelope["error"] == "BUSY", envelope
        assert doc.state.text == A
        await cdp.send("Input.insertText", {"text": "に"})
        await wait_doc_text(vmark, tab, "# A\n\nに\n")
        await wait_until(lambda: not vmark.app.turns.is_composing(doc), "the composition to end")
        await _select_line(page, mode, "に")
        await ok(agent, "selection", "set", content="done")
    await wait_editor_text(page, "# A\n\ndone\n")


async def test_another_focused_tab_is_invalid(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, tab = await _page_on(pages, workspace)
    other = await open_from_tree(page, "b.md")
    async with make_client(vmark.data_dir) as agent:
        envelope = await fail_code(agent, "selection", "get", tabId=tab)
        assert (envelope["error"], envelope["tabId"]) == ("INVALID_TAB", tab)
        assert (await ok(agent, "selection", "get", tabId=other))["tabId"] == other
