"""The person's "Save as": ``ui.save_as`` and the page's Save as dialog. It never replaces a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.contract.helpers import background, history, person_open, wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import doc_of, editor_text, open_folder, open_from_tree, type_at_end, wait_editor_text
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient, UIError

A = "# A\n\nalpha\n"
B = "# B\n\nbeta\n"
UNSUPPORTED = (
    "{} is not a Markdown or workflow file: end its name with .markdown, .md, .mdown, .mdx, .mkd, .txt,"
    " or save .yml/.yaml files inside .github/workflows"
)
EXISTS = "{} already exists; Save as never replaces a file. Choose another name"


def _tab_info(state: dict[str, Any], tab_id: str) -> dict[str, Any]:
    return next(t for w in state["windows"] for t in w["tabs"] if t["id"] == tab_id)


async def _refused(person: UIClient, tab: str, path: object) -> dict[str, Any] | str:
    with pytest.raises(UIError) as info:
        await person.call("ui.save_as", tabId=tab, path=path)
    error: dict[str, Any] | str = info.value.error
    return error


# --- the protocol ------------------------------------------------------------------------------------------
async def test_an_untitled_tab_becomes_the_new_file(vmark: RunningApp, person: UIClient, opened: Path) -> None:
    tab = (await person.call("ui.new"))["tabId"]
    await person.edit(tab, "# new\n")
    target = opened / "notes" / "new.md"
    result = await person.call("ui.save_as", tabId=tab, path=str(target))
    doc = doc_of(vmark, tab)
    assert result == {"filePath": str(target), "revision": doc.state.revision}
    assert target.read_bytes() == b"# new\n"
    assert (doc.key, doc.path, doc.kind, doc.dirty) == (str(target), str(target), "markdown", False)
    assert vmark.app.session.doc_by_path(str(target)) is doc
    info = _tab_info(await person.call("ui.state"), tab)
    assert (info["filePath"], info["title"], info["dirty"]) == (str(target), "new", False)
    snaps = await history(person, tab)
    assert [(s["kind"], s["path"], s["revision"], s["content"]) for s in snaps] == [
        ("manual", str(target), result["revision"], "# new\n")
    ]
    # From now on a save goes to the new file.
    await person.edit(tab, "# new\n\nmore\n")
    assert (await person.call("ui.save", tabId=tab))["filePath"] == str(target)
    assert target.read_bytes() == b"# new\n\nmore\n"


async def test_an_open_file_saved_elsewhere_leaves_the_original(
    vmark: RunningApp, person: UIClient, opened: Path, tmp_path: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    await person.edit(tab, A + "edited\n")
    elsewhere = tmp_path / "elsewhere"  # outside the workspace: the person may save anywhere
    elsewhere.mkdir()
    (tmp_path / "link").symlink_to(elsewhere)
    result = await person.call("ui.save_as", tabId=tab, path=str(tmp_path / "link" / "copy.markdown"))
    real = elsewhere / "copy.markdown"
    assert result["filePath"] == str(real)  # the canonical path, not the symlink's
    assert real.read_bytes() == (A + "edited\n").encode()
    assert (opened / "a.md").read_bytes() == A.encode()
    assert doc_of(vmark, tab).path == str(real)
    assert vmark.app.session.doc_by_path(str(opened / "a.md")) is None
    assert [s["kind"] for s in await history(person, tab)] == ["manual"]  # the new file's history starts here


async def test_a_workflow_path_makes_a_workflow_and_the_own_path_is_a_save(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    created = await person.bridge.request("ui.new", {"kind": "yaml-workflow"})  # call() takes `kind` itself
    tab = created["data"]["tabId"]
    await person.edit(tab, "name: deploy\non: push\njobs: {}\n")
    target = opened / ".github" / "workflows" / "deploy.yaml"
    await person.call("ui.save_as", tabId=tab, path=str(target))
    assert target.read_bytes() == b"name: deploy\non: push\njobs: {}\n"
    assert doc_of(vmark, tab).kind == "yaml-workflow"
    # "Save as" onto the document's own file saves it in place.
    revision = await person.edit(tab, "name: deploy2\non: push\njobs: {}\n")
    assert await person.call("ui.save_as", tabId=tab, path=str(target)) == {
        "filePath": str(target),
        "revision": revision,
    }
    assert target.read_bytes() == b"name: deploy2\non: push\njobs: {}\n"
    assert [s["kind"] for s in await history(person, tab)] == ["manual", "manual"]


async def test_refusals_change_nothing(vmark: RunningApp, person: UIClient, opened: Path) -> None:
    a_tab = await person_open(person, opened / "a.md")
    await person.edit(a_tab, "# A\n\nunsaved\n")
    b_tab = await person_open(person, opened / "b.md")
    (opened / "b.md").unlink()  # open in a tab, gone from the disk
    (opened / "link.md").symlink_to(opened / "notes" / "c.md")
    files_before = sorted(p for p in opened.rglob("*"))
    doc = doc_of(vmark, a_tab)
    before = (doc.key, doc.path, doc.state, doc.dirty)
    envelope = {"error": "INVALID_PATH", "message": ""}
    # A file already there is the agents' refusal too (spec: save_as, APPROVAL_REQUIRED): one save, one set.
    exists = {"error": "APPROVAL_REQUIRED", "message": ""}
    cases: list[tuple[object, dict[str, Any] | str]] = [
        (opened / "readme.txt", {**exists, "message": EXISTS.format(opened / "readme.txt")}),
        (opened / "link.md", {**exists, "message": EXISTS.format(opened / "notes" / "c.md")}),
        (opened / "b.md", {**envelope, "message": f"{opened / 'b.md'} is open in another tab; close it first"}),
        (opened / "new.json", {**envelope, "message": UNSUPPORTED.format(opened / "new.json")}),
        (opened / "config.yml", {**envelope, "message": UNSUPPORTED.format(opened / "config.yml")}),
        (opened / "missing" / "new.md", {**envelope, "message": f"There is no folder {opened / 'missing'}"}),
        ("new.md", {**envelope, "message": "path must be absolute: 'new.md'"}),
    ]
    for path, error in cases:
        refused = await _refused(person, a_tab, str(path))
        assert isinstance(refused, dict) and isinstance(error, dict)
        assert refused == {**error, "filePath": refused["filePath"]}, path
    assert await _refused(person, a_tab, None) == "argument 'path' must be a string"
    assert sorted(p for p in opened.rglob("*")) == files_before
    assert (opened / "a.md").read_bytes() == A.encode()
    assert (opened / "notes" / "c.md").read_bytes() == b"# C\n"
    assert (doc.key, doc.path, doc.state, doc.dirty) == before
    assert await history(person, a_tab) == []
    assert doc_of(vmark, b_tab).path == str(opened / "b.md")


async def test_a_file_that_appears_before_the_save_lands_is_not_replaced(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    target = opened / "late.md"
    await person.call("test.fault", save_delay=2.0)  # the save waits before its turn in the file's queue
    saving = background(_refused(person, tab, str(target)))
    await wait_until(lambda: vmark.app.hooks.save_delay.seconds == 0.0, "the save to wait for its turn")
    target.write_bytes(b"someone else's file\n")
    refused = await saving
    assert refused == {"error": "APPROVAL_REQUIRED", "message": EXISTS.format(target), "filePath": str(target)}
    assert target.read_bytes() == b"someone else's file\n"
    names = [".github", "a.md", "b.md", "image.png", "late.md", "notes", "readme.txt"]
    assert sorted(p.name for p in opened.iterdir()) == names  # no temp file left behind
    assert doc_of(vmark, tab).path == str(opened / "a.md")


# --- the page ------------------------------------------------------------------------------------------------
TAKEN = "A file named “{}” already exists in this folder. Save as never replaces a file: choose another name."
OWN = "This is the document's own file: saving under this name saves it in place."


async def test_the_dialog_saves_a_new_file_and_keeps_a_refusal_in_view(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page = await pages.open()
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "a.md")
    await type_at_end(page, "more")  # not flushed yet: Save as passes it on first
    await page.click("#save-as-open")
    dialog = page.get_by_test_id("picker")
    await expect(dialog).to_be_visible()
    await expect(dialog).to_have_attribute("data-path", str(workspace.resolve()))  # the file's folder
    name = page.get_by_test_id("picker-name")
    await expect(name).to_have_value("a.md")
    await expect(name).to_be_focused()
    error = page.get_by_test_id("picker-error")
    await expect(page.get_by_test_id("picker-status")).to_have_text(OWN)  # its own name: a save in place
    await expect(error).to_be_hidden()

    await name.fill("b.md")
    await expect(error).to_have_text(TAKEN.format("b.md"))
    await name.press("Enter")
    await expect(error).to_have_text(TAKEN.format("b.md"))
    await expect(dialog).to_be_visible()
    assert (workspace / "b.md").read_bytes() == B.encode()
    assert doc_of(vmark, tab).path == str(workspace / "a.md")

    target = workspace / "notes" / "copy.md"
    await name.fill("notes/copy")  # a folder below, and no suffix: .md
    await name.press("Enter")
    await expect(dialog).to_be_hidden()
    assert target.read_bytes() == (A + "more").encode()
    assert (workspace / "a.md").read_bytes() == A.encode()
    strip = page.locator(f".tab[data-tab-id='{tab}']")
    await expect(strip.locator(".title")).to_have_text("copy")
    await expect(strip).to_have_attribute("data-dirty", "false")
    await expect(page.locator("button.file[data-path='notes/copy.md']")).to_be_visible()  # the tree shows it
    assert doc_of(vmark, tab).path == str(target)


async def test_an_untitled_tab_is_saved_through_the_dialog(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await pages.open()
    await open_folder(page, workspace)
    await page.click("#new-tab")
    await wait_until(lambda: _shows_an_editor(page), "the new tab's editor")
    await type_at_end(page, "# drafted")
    await page.click("#save-as-open")
    dialog = page.get_by_test_id("picker")
    await expect(dialog).to_have_attribute("data-path", str(workspace.resolve()))  # the window's workspace
    name = page.get_by_test_id("picker-name")
    await expect(name).to_have_value("")
    await page.get_by_test_id("picker-choose").click()
    await expect(page.get_by_test_id("picker-error")).to_have_text("Type a name for the new file")
    await name.fill("draft.json")
    await page.get_by_test_id("picker-choose").click()
    # The app's refusal stays in the dialog.
    await expect(page.get_by_test_id("picker-error")).to_have_text(
        "INVALID_PATH: " + UNSUPPORTED.format(workspace / "draft.json")
    )
    await expect(dialog).to_be_visible()
    await name.fill("draft.md")
    await page.get_by_test_id("picker-choose").click()
    await expect(dialog).to_be_hidden()
    assert (workspace / "draft.md").read_bytes() == b"# drafted"
    assert not (workspace / "draft.json").exists()
    await expect(page.locator(".tab.active .title")).to_have_text("draft")
    await wait_editor_text(page, "# drafted")


async def _shows_an_editor(page: Page) -> bool:
    return await editor_text(page) is not None
