"""Closing a tab with unsaved work asks in the app's own dialog (Save / Don't save / Cancel), never the
browser's confirm(): by keyboard (Enter saves, Escape cancels, the focus comes back to the text) and by mouse,
for Ctrl+W / Alt+W, the tab's close button and "Close all tabs" / "Close other tabs" from the palette."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Dialog, Page, expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import ARTIFACTS, Pages
from tests.ui.helpers import open_folder, open_from_tree, wait_doc_text
from tests.ui.test_theme import themed_page
from vmark.app.server import RunningApp

#: CRLF line endings and no final line break: a save must give back exactly these bytes plus the typing
NOTE = b"# Note\r\n\r\nfirst line\r\nlast line"


#: the messages of native dialogs (confirm, alert) any page showed: there must be none
NATIVE: list[str] = []


@pytest.fixture(autouse=True)
def _no_native_dialogs() -> Iterator[None]:
    NATIVE.clear()
    yield
    assert NATIVE == [], f"the browser's own dialogs were shown: {NATIVE}"


async def _page(pages: Pages, workspace: Path, scheme: str = "light") -> Page:
    page = await themed_page(pages, scheme)

    async def refuse(dialog: Dialog) -> None:
        NATIVE.append(dialog.message)
        await dialog.dismiss()

    page.on("dialog", refuse)
    await open_folder(page, workspace)
    return page


async def _type_at_end(page: Page, text: str) -> None:
    await page.click(".cm-content")
    await page.keyboard.press("Control+End")
    await page.keyboard.type(text)


async def _dirty_note(pages: Pages, vmark: RunningApp, workspace: Path, typed: str) -> tuple[Page, str, Path]:
    """``note.md`` (``NOTE``) open, with ``typed`` typed at its end and not saved: the page, the tab, the file."""
    path = workspace / "note.md"
    path.write_bytes(NOTE)
    page = await _page(pages, workspace)
    tab = await open_from_tree(page, "note.md")
    await _type_at_end(page, typed)
    await wait_doc_text(vmark, tab, NOTE.decode() + typed)
    return page, tab, path


async def test_ctrl_w_escape_cancels_and_enter_saves_exact_bytes(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab, path = await _dirty_note(pages, vmark, workspace, " and more")

    dialog = page.get_by_test_id("unsaved")
    await page.keyboard.press("Control+w")
    await expect(dialog).to_be_visible()
    await expect(dialog.get_by_role("heading")).to_have_text("Save the changes to note?")
    await expect(dialog.get_by_role("button", name="Save", exact=True)).to_be_focused()
    await page.keyboard.press("Escape")  # Cancel: the tab stays, the caret is back in the text
    await expect(dialog).to_have_count(0)
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_count(1)
    await expect(page.locator(".cm-content")).to_be_focused()
    await page.keyboard.type("!")  # typing goes on where it was
    await wait_doc_text(vmark, tab, NOTE.decode() + " and more!")
    assert path.read_bytes() == NOTE

    await page.keyboard.press("Alt+w")
    await expect(dialog).to_be_visible()
    await page.keyboard.press("Enter")  # Save
    await expect(page.locator(".tab")).to_have_count(0)
    assert path.read_bytes() == NOTE + b" and more!"  # the file's CRLF kept, the typing added


async def test_the_close_button_dont_save_discards_and_cancel_keeps(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab, path = await _dirty_note(pages, vmark, workspace, " draft")
    close = page.locator(f".tab[data-tab-id='{tab}'] .close")
    dialog = page.get_by_test_id("unsaved")

    await close.click()
    await dialog.get_by_role("button", name="Cancel").click()
    await expect(dialog).to_have_count(0)
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_attribute("data-dirty", "true")
    assert vmark.app.session.find_tab(tab)[1].doc.dirty

    await close.click()
    await dialog.get_by_role("button", name="Don't save").click()
    await expect(page.locator(".tab")).to_have_count(0)
    assert path.read_bytes() == NOTE  # nothing written
    # Opened again: the file as it is on disk.
    await open_from_tree(page, "note.md")
    await wait_until(
        lambda: _editor_is(page, NOTE.decode().replace("\r\n", "\n")), "the file's own text after Don't save"
    )


async def _editor_is(page: Page, text: str) -> bool:
    return bool(await page.evaluate("window.vmarkPage.editorText()") == text)


async def test_close_all_tabs_asks_for_each_unsaved_one_and_cancel_stops(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page = await _page(pages, workspace)
    a = await open_from_tree(page, "a.md")
    await _type_at_end(page, "A+")
    await wait_doc_text(vmark, a, "# A\n\nalpha\nA+")
    await open_from_tree(page, "b.md")  # clean: closes without a question
    c = await open_from_tree(page, "notes/c.md")
    await _type_at_end(page, "C+")
    await wait_doc_text(vmark, c, "# C\nC+")
    dialog = page.get_by_test_id("unsaved")

    await page.keyboard.press("Control+Shift+P")
    await page.keyboard.type("Close all tabs")
    await page.keyboard.press("Enter")
    await expect(dialog.get_by_role("heading")).to_have_text("Save the changes to a?")
    await dialog.get_by_role("button", name="Save", exact=True).click()
    await expect(dialog.get_by_role("heading")).to_have_text("Save the changes to c?")
    await page.keyboard.press("Escape")  # c stays, and so would any tab after it
    await expect(dialog).to_have_count(0)
    await expect(page.locator(".tab")).to_have_count(1)
    await expect(page.locator(f".tab[data-tab-id='{c}']")).to_have_count(1)
    assert (workspace / "a.md").read_bytes() == b"# A\n\nalpha\nA+"
    assert (workspace / "notes" / "c.md").read_bytes() == b"# C\n"

    # "Close other tabs" keeps the active one (even with unsaved work: it is not asked about).
    await open_from_tree(page, "b.md")
    await page.keyboard.press("Control+Shift+P")
    await page.keyboard.type("Close other tabs")
    await page.keyboard.press("Enter")
    await expect(dialog.get_by_role("heading")).to_have_text("Save the changes to c?")
    await dialog.get_by_role("button", name="Don't save").click()
    await expect(page.locator(".tab")).to_have_count(1)
    await expect(page.locator(".tab.active .title")).to_have_text("b")
    assert (workspace / "notes" / "c.md").read_bytes() == b"# C\n"


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_screenshot_of_the_unsaved_dialog(pages: Pages, vmark: RunningApp, workspace: Path, scheme: str) -> None:
    page = await _page(pages, workspace, scheme)
    tab = await open_from_tree(page, "a.md")
    await _type_at_end(page, " more")
    await wait_doc_text(vmark, tab, "# A\n\nalpha\n more")
    await page.keyboard.press("Control+w")
    await expect(page.get_by_test_id("unsaved")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"everyday-unsaved-dialog-{scheme}.png"))
    await page.keyboard.press("Escape")
