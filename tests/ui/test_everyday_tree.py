"""The file tree follows the disk: files and folders another program creates, renames or deletes inside a
workspace show up (and go) in every window showing that workspace, without a reload; an open file deleted on
disk keeps its tab, which says the file is gone and can write it again."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from playwright.async_api import Page, expect

from tests.contract.helpers import wait_event, wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import open_folder, open_from_tree
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient


def _file(page: Page, relative: str) -> object:
    return page.locator(f"button.file[data-path='{relative}']")


async def test_created_renamed_and_deleted_on_disk_show_in_every_window(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    first = await pages.open()
    await open_folder(first, workspace)
    second = await pages.open(window="second")
    await open_folder(second, workspace)
    for page in (first, second):
        await expect(_file(page, "a.md")).to_have_count(1)

    (workspace / "fresh.md").write_text("# Fresh\n", "utf-8")  # created
    os.rename(workspace / "a.md", workspace / "renamed.md")  # renamed
    (workspace / "b.md").unlink()  # deleted
    (workspace / "drafts" / "deep").mkdir(parents=True)  # a folder with a file in it
    (workspace / "drafts" / "deep" / "idea.md").write_text("idea\n", "utf-8")
    for page in (first, second):
        await expect(_file(page, "fresh.md")).to_have_count(1)
        await expect(_file(page, "renamed.md")).to_have_count(1)
        await expect(_file(page, "a.md")).to_have_count(0)
        await expect(_file(page, "b.md")).to_have_count(0)
        await expect(_file(page, "drafts/deep/idea.md")).to_have_count(1)

    shutil.rmtree(workspace / "drafts")  # a folder deleted with what it holds
    for page in (first, second):
        await expect(page.locator("li.folder[data-folder='drafts']")).to_have_count(0)
        await expect(_file(page, "drafts/deep/idea.md")).to_have_count(0)
    # The tree still opens what it lists.
    await open_from_tree(first, "renamed.md")


async def test_the_page_hears_files_changed_for_its_workspace(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    root = str(opened.resolve())
    # Newly shown, the workspace is listed once more (what changed before the watcher looked is not known) ...
    assert await wait_event(person, "files_changed") == {"root": root}
    # ... then a change another program makes is told.
    (opened / "notes" / "later.md").write_text("later\n", "utf-8")
    await wait_until(lambda: len(person.events_named("files_changed")) == 2, "the second files_changed event")
    assert [e["payload"] for e in person.events_named("files_changed")] == [{"root": root}] * 2


async def test_an_open_file_deleted_on_disk_keeps_its_tab_and_can_be_saved_again(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    path = workspace / "keep.md"
    data = b"# Keep\r\n\r\nevery byte\r\n"
    path.write_bytes(data)
    page = await pages.open()
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "keep.md")
    gone = page.get_by_test_id("gone")
    await expect(gone).to_be_hidden()

    path.unlink()
    await expect(gone).to_be_visible()
    await expect(gone).to_contain_text("This file was deleted or renamed on disk. Its text is still here.")
    await expect(_file(page, "keep.md")).to_have_count(0)
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_count(1)
    assert await page.evaluate("window.vmarkPage.editorText()") == data.decode().replace("\r\n", "\n")

    # Closing asks (the tab holds the only copy); Cancel keeps it; Save it again writes the same bytes.
    await page.keyboard.press("Alt+w")
    dialog = page.get_by_test_id("unsaved")
    await expect(dialog.get_by_role("heading")).to_have_text("Save keep again?")
    await page.keyboard.press("Escape")
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_count(1)
    await page.click("#gone-save")
    await expect(gone).to_be_hidden()
    assert path.read_bytes() == data
    await expect(_file(page, "keep.md")).to_have_count(1)

    # Deleted again, then closed with "Don't save": the tab goes, nothing is written.
    path.unlink()
    await expect(gone).to_be_visible()
    await page.keyboard.press("Alt+w")
    await dialog.get_by_role("button", name="Don't save").click()
    await expect(page.locator(".tab")).to_have_count(0)
    assert not path.exists()
