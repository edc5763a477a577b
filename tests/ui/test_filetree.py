"""The file tree's operations (issue 18): new file and folder, rename, move by dragging, delete to the
trash, reveal; all inside the window's path scope, never replacing a file; open tabs follow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.contract.helpers import person_open, wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import active_tab, doc_of, open_folder, open_from_tree, wait_doc_text
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient, UIError

A = "# A\n\nalpha\n"


async def refused(person: UIClient, action: str, **args: Any) -> str:
    with pytest.raises(UIError) as info:
        await person.call(action, **args)
    error = info.value.error
    assert isinstance(error, dict) and error["error"] == "INVALID_PATH", error
    return str(error["message"])


# --- the protocol: scope, clashes, following tabs ----------------------------------------------------
async def test_create_rename_and_delete_stay_in_the_scope(
    vmark: RunningApp, person: UIClient, opened: Path, tmp_path: Path, trash: Path
) -> None:
    root = opened.resolve()
    outside = tmp_path / "outside"
    outside.mkdir()
    made = await person.call("ui.file_create", path=str(root / "notes" / "fresh"))
    assert made == {"path": str(root / "notes" / "fresh.md"), "type": "file"}
    assert (root / "notes" / "fresh.md").read_bytes() == b""
    assert (await person.call("ui.file_create", path=str(root / "drafts"), type="folder"))["type"] == "folder"
    assert (root / "drafts").is_dir()
    listing = (await person.call("ui.files"))["workspaces"][0]
    assert "drafts" in listing["folders"]
    # Clashes, other kinds, places outside the scope, the root itself: refused, nothing changes.
    assert "a.md already exists here" in await refused(person, "ui.file_create", path=str(root / "a.md"))
    assert "VMark opens Markdown files" in await refused(person, "ui.file_create", path=str(root / "x.exe"))
    assert "outside" in await refused(person, "ui.file_create", path=str(outside / "x.md"))
    assert "outside" in await refused(person, "ui.file_create", path=f"{root}/../outside/y.md")
    assert "b.md already exists there" in await refused(
        person, "ui.file_rename", **{"from": str(root / "a.md"), "to": str(root / "b.md")}
    )
    assert "outside" in await refused(
        person, "ui.file_rename", **{"from": str(root / "a.md"), "to": str(outside / "a.md")}
    )
    assert "keep a Markdown name" in await refused(
        person, "ui.file_rename", **{"from": str(root / "a.md"), "to": str(root / "a.exe")}
    )
    assert "workspace folder" in await refused(person, "ui.file_delete", path=str(root))
    assert "cannot move into itself" in await refused(
        person, "ui.file_rename", **{"from": str(root / "notes"), "to": str(root / "notes" / "deeper")}
    )
    (outside / "keep.md").write_text("keep\n")
    assert "outside" in await refused(person, "ui.file_delete", path=str(outside / "keep.md"))
    assert (root / "a.md").read_text() == A and (root / "b.md").read_text() == "# B\n\nbeta\n"
    assert not (outside / "x.md").exists() and (outside / "keep.md").exists()
    assert not (outside / "a.md").exists()


async def test_open_tabs_follow_a_rename_and_a_move_of_their_folder(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    root = opened.resolve()
    tab = await person_open(person, root / "notes" / "c.md")
    await person.edit(tab, "# C\n\nedited\n")
    moved = await person.call("ui.file_rename", **{"from": str(root / "notes"), "to": str(root / "archive")})
    assert moved == {
        "path": str(root / "archive"),
        "moved": [{"from": str(root / "notes" / "c.md"), "to": str(root / "archive" / "c.md")}],
    }
    doc = doc_of(vmark, tab)
    assert (doc.path, doc.dirty) == (str(root / "archive" / "c.md"), True)
    assert (await person.call("ui.save", tabId=tab))["filePath"] == str(root / "archive" / "c.md")
    assert (root / "archive" / "c.md").read_text() == "# C\n\nedited\n"
    assert not (root / "notes").exists()


async def test_delete_goes_to_the_trash_and_spares_unsaved_work(
    vmark: RunningApp, person: UIClient, opened: Path, trash: Path
) -> None:
    root = opened.resolve()
    tab = await person_open(person, root / "a.md")
    await person.edit(tab, A + "unsaved\n")
    assert "a.md has unsaved changes" in await refused(person, "ui.file_delete", path=str(root / "a.md"))
    assert (root / "a.md").exists()
    await person.call("ui.save", tabId=tab)
    deleted = await person.call("ui.file_delete", path=str(root / "a.md"))
    assert deleted == {"path": str(root / "a.md"), "trashed": True}
    assert not (root / "a.md").exists()
    assert (trash / "files" / "a.md").read_text() == A + "unsaved\n"
    assert (trash / "info" / "a.md.trashinfo").exists()
    assert tab not in [t.id for _, t in vmark.app.session.tabs()]  # its tab closed


# --- the tree in the page ------------------------------------------------------------------------------
async def start(pages: Pages, workspace: Path) -> Page:
    page = await pages.open()
    await open_folder(page, workspace)
    return page


async def tree_item(page: Page, path: str) -> Any:
    return page.locator(f"#tree button.file[data-path='{path}']")


async def test_new_file_and_folder_from_the_tree(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await start(pages, workspace)
    await page.get_by_role("button", name="New file").click()
    name = page.get_by_role("textbox", name="New file name")
    await expect(name).to_be_focused()
    await name.fill("a.md")
    await page.keyboard.press("Enter")
    await expect(page.locator(".toast.error")).to_contain_text("a.md already exists here: choose another name")
    await expect(name).to_be_focused()  # the person corrects the name
    await name.fill("ideas")
    await page.keyboard.press("Enter")
    await page.wait_for_selector(".tab.active .title:text-is('ideas')")
    assert (workspace / "ideas.md").read_bytes() == b""
    await expect(await tree_item(page, "ideas.md")).to_have_attribute("aria-current", "true")
    await page.get_by_role("button", name="New folder").click()
    await page.get_by_role("textbox", name="New folder name").fill("drafts")
    await page.keyboard.press("Enter")
    folder = page.locator("#tree .folder-label[data-folder='drafts']")
    await expect(folder).to_be_visible()
    # A file inside the new folder, from the folder's menu.
    await folder.click(button="right")
    await page.get_by_role("menuitem", name="New file here…").click()
    await page.get_by_role("textbox", name="New file name").fill("inside.md")
    await page.keyboard.press("Enter")
    await page.wait_for_selector(".tab.active .title:text-is('inside')")
    assert (workspace / "drafts" / "inside.md").exists()
    await pages.screenshots("filetree-light")


async def test_a_name_being_typed_survives_the_tree_drawn_again(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    """Another program creates files while the person types a new folder's name, then a new name: the tree is
    drawn again each time (``files_changed``) and the field keeps its text, its caret and the focus."""
    page = await start(pages, workspace)
    await page.get_by_role("button", name="New folder").click()
    field = page.get_by_role("textbox", name="New folder name")
    await expect(field).to_be_focused()
    await page.keyboard.type("dra")
    (workspace / "from-disk.md").write_text("x", "utf-8")
    await expect(await tree_item(page, "from-disk.md")).to_be_visible()  # drawn again, with the field in it
    await expect(field).to_be_focused()
    await expect(field).to_have_value("dra")
    await page.keyboard.type("fts")
    await page.keyboard.press("Enter")
    await expect(page.locator("#tree .folder-label[data-folder='drafts']")).to_be_visible()
    assert (workspace / "drafts").is_dir()
    await expect(field).to_have_count(0)
    # The same for a rename.
    await (await tree_item(page, "b.md")).focus()
    await page.keyboard.press("F2")
    box = page.get_by_role("textbox", name="New name for b.md")
    await expect(box).to_be_focused()
    await page.keyboard.type("be")
    (workspace / "second.md").write_text("y", "utf-8")
    await expect(await tree_item(page, "second.md")).to_be_visible()
    await expect(box).to_be_focused()
    await expect(box).to_have_value("be.md")
    await expect(await tree_item(page, "b.md")).to_be_hidden()  # the field stands in its place
    await page.keyboard.press("Enter")
    await expect(await tree_item(page, "be.md")).to_be_visible()
    assert (workspace / "be.md").exists() and not (workspace / "b.md").exists()


async def test_rename_from_the_menu_and_the_tab_follows(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await start(pages, workspace)
    tab = await open_from_tree(page, "a.md")
    await (await tree_item(page, "a.md")).click(button="right")
    await expect(page.get_by_role("menu")).to_be_visible()
    await page.get_by_role("menuitem", name="Rename…").click()
    box = page.get_by_role("textbox", name="New name for a.md")
    await expect(box).to_be_focused()
    assert await box.evaluate("e => e.value.slice(e.selectionStart, e.selectionEnd)") == "a"  # the name, not .md
    await page.keyboard.type("alpha")
    await page.keyboard.press("Enter")
    await page.wait_for_selector(".tab.active .title:text-is('alpha')")
    assert not (workspace / "a.md").exists() and (workspace / "alpha.md").read_text() == A
    assert await active_tab(page) == tab
    await expect(await tree_item(page, "alpha.md")).to_be_visible()
    # Typing and saving goes to the new name.
    await page.click(".cm-content")
    await page.keyboard.press("Control+End")
    await page.keyboard.type("more")
    await wait_doc_text(vmark, tab, A + "more")
    await page.keyboard.press("Control+s")
    await wait_until(lambda: (workspace / "alpha.md").read_text() == A + "more", "the save to alpha.md")
    # F2 renames too; Escape cancels.
    await (await tree_item(page, "b.md")).focus()
    await page.keyboard.press("F2")
    await page.keyboard.type("zzz")
    await page.keyboard.press("Escape")
    assert (workspace / "b.md").exists()


async def test_drag_a_file_into_a_folder(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await start(pages, workspace)
    tab = await open_from_tree(page, "b.md")
    await (await tree_item(page, "b.md")).drag_to(page.locator("#tree .folder-label[data-folder='notes']"))
    await expect(await tree_item(page, "notes/b.md")).to_be_visible()
    assert (workspace / "notes" / "b.md").read_text() == "# B\n\nbeta\n" and not (workspace / "b.md").exists()
    assert doc_of(vmark, tab).path == str((workspace / "notes" / "b.md").resolve())
    # Back to the top: dropped on the workspace's name.
    await (await tree_item(page, "notes/b.md")).drag_to(page.locator("#tree .tree-head h3"))
    await expect(await tree_item(page, "b.md")).to_be_visible()
    assert (workspace / "b.md").exists()


async def test_delete_asks_first_and_goes_to_the_trash(
    pages: Pages, vmark: RunningApp, workspace: Path, trash: Path
) -> None:
    page = await start(pages, workspace)
    await open_from_tree(page, "b.md")
    await (await tree_item(page, "b.md")).click(button="right")
    await page.get_by_role("menuitem", name="Delete…").click()
    question = page.get_by_role("alertdialog", name="Move b.md to the trash?")
    await expect(question).to_be_visible()
    await pages.screenshots("delete-confirm-light")
    await page.keyboard.press("Escape")  # no
    await expect(question).to_be_hidden()
    assert (workspace / "b.md").exists()
    await (await tree_item(page, "b.md")).focus()
    await page.keyboard.press("Delete")
    await page.get_by_role("button", name="Move to trash").click()
    await expect(await tree_item(page, "b.md")).to_have_count(0)
    assert not (workspace / "b.md").exists()
    assert (trash / "files" / "b.md").read_text() == "# B\n\nbeta\n"
    await expect(page.locator(".tab .title:text-is('b')")).to_have_count(0)


async def test_reveal_unfolds_to_the_current_file(pages: Pages, workspace: Path) -> None:
    page = await start(pages, workspace)
    await open_from_tree(page, "notes/c.md")
    await page.click("#tree .folder-label[data-folder='notes']")  # fold
    await expect(await tree_item(page, "notes/c.md")).to_be_hidden()
    await page.get_by_role("button", name="Reveal the current file").click()
    item = await tree_item(page, "notes/c.md")
    await expect(item).to_be_visible()
    await expect(item).to_be_focused()
    await expect(item).to_have_attribute("aria-current", "true")
