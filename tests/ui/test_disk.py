"""Another program changes a file the person has open in a real page.

A clean tab reloads it. A tab with unsaved typing keeps the typing and shows the divergence
banner: "Keep mine" keeps the person's text (the next save writes exactly it), "Load the disk
version" shows exactly what is on disk and leaves the tab clean.
"""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Locator, Page, expect

from tests.contract.helpers import disk_checked
from tests.ui.conftest import Pages
from tests.ui.helpers import doc_of, editor_text, open_from_tree, wait_doc_text, wait_editor_text
from tests.ui.scenario import A, external_write, open_at_end, workspace_page
from vmark.app.server import RunningApp

DISK = "# A\n\nrewritten by another program\n"
MINE = A + "typed by the person"


def _strip(page: Page, tab: str) -> Locator:
    return page.locator(f".tab[data-tab-id='{tab}']")


async def test_a_clean_tab_reloads_what_another_program_wrote(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await workspace_page(pages, workspace)
    tab = await open_from_tree(page, "a.md")
    doc = doc_of(vmark, tab)
    before = doc.state.revision
    external_write(workspace / "a.md", DISK, atomic=False)
    await wait_editor_text(page, DISK)
    assert (doc.state.text, doc.dirty) == (DISK, False)
    assert doc.state.revision != before
    await expect(_strip(page, tab)).to_have_attribute("data-dirty", "false")
    await expect(page.locator("#divergence")).to_be_hidden()
    assert (workspace / "a.md").read_bytes() == DISK.encode()


async def _diverged(pages: Pages, vmark: RunningApp, workspace: Path) -> tuple[Page, str]:
    """The person typed ``MINE`` (unsaved), then another program wrote ``DISK``: the banner is up."""
    page = await workspace_page(pages, workspace)
    tab = await open_at_end(page, vmark, "a.md")
    await page.keyboard.type("typed by the person")
    await wait_doc_text(vmark, tab, MINE)
    external_write(workspace / "a.md", DISK, atomic=True)
    await expect(page.locator("#divergence")).to_be_visible()
    await expect(page.get_by_test_id("notifications")).to_contain_text(
        f"{(workspace / 'a.md').resolve()} changed on disk while you have unsaved changes"
    )
    # Nothing replaced the person's text, in the page or in the app.
    assert await editor_text(page) == MINE
    assert (doc_of(vmark, tab).state.text, doc_of(vmark, tab).divergent) == (MINE, True)
    await expect(_strip(page, tab)).to_have_attribute("data-dirty", "true")
    return page, tab


async def test_keep_mine_keeps_the_persons_text_and_the_save_writes_exactly_it(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab = await _diverged(pages, vmark, workspace)
    await page.click("#keep-mine")
    assert await editor_text(page) == MINE
    assert doc_of(vmark, tab).state.text == MINE
    assert (workspace / "a.md").read_bytes() == DISK.encode()  # keeping mine does not save by itself
    await page.click(".cm-content")
    await page.keyboard.press("Control+s")
    await expect(_strip(page, tab)).to_have_attribute("data-dirty", "false")
    await expect(page.locator("#divergence")).to_be_hidden()
    assert (workspace / "a.md").read_bytes() == MINE.encode()
    # The app's own save is not mistaken for another program's change at the next disk checks.
    await disk_checked(vmark)
    await expect(page.locator("#divergence")).to_be_hidden()
    assert (await editor_text(page), doc_of(vmark, tab).state.text) == (MINE, MINE)
    assert (workspace / "a.md").read_bytes() == MINE.encode()


async def test_keep_mine_answers_the_banner_until_the_next_outside_change(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab = await _diverged(pages, vmark, workspace)
    await page.click("#keep-mine")
    await expect(page.locator("#divergence")).to_be_hidden()
    doc = doc_of(vmark, tab)
    assert (doc.divergent, doc.divergence_kept) == (True, True)  # closing still says DIVERGENT
    external_write(workspace / "a.md", "# A\n\nchanged again\n", atomic=False)
    await expect(page.locator("#divergence")).to_be_visible()
    assert (doc.divergent, doc.divergence_kept) == (True, False)


async def test_load_the_disk_version_shows_exactly_the_disk_and_leaves_the_tab_clean(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab = await _diverged(pages, vmark, workspace)
    await page.click("#keep-disk")
    await wait_editor_text(page, DISK)
    doc = doc_of(vmark, tab)
    assert (doc.state.text, doc.dirty, doc.divergent) == (DISK, False, False)
    await expect(page.locator("#divergence")).to_be_hidden()
    await expect(_strip(page, tab)).to_have_attribute("data-dirty", "false")
    assert (workspace / "a.md").read_bytes() == DISK.encode()
