"""The picker (Open folder, Open file, Save as), the recents, ``vmark app`` reopening the last workspace and a
second window's start screen, driven with real keys and clicks in Chromium."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from tests.conftest import ok
from tests.contract.helpers import wait_until
from tests.e2e.helpers import AppProcess, Home, kill_apps_of, stdio_client
from tests.ui.conftest import ARTIFACTS, UI, Pages
from tests.ui.helpers import editor_text, open_from_tree, type_at_end, wait_editor_text
from vmark.app.handlers.ui_browse import OUTSIDE
from vmark.app.server import RunningApp
from vmark.storage.settings import Settings

NOTES_A = "# Alpha\n\nfirst\n"
NOTES_B = "# Beta\n\nsecond\n"
TAKEN = "A file named “{}” already exists in this folder. Save as never replaces a file: choose another name."


@dataclass(frozen=True)
class World:
    home: Path
    outside: Path

    @property
    def notes(self) -> Path:
        return self.home / "notes"

    @property
    def site(self) -> Path:
        return self.home / "projects" / "site"


@pytest.fixture
def world(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """``$HOME`` with notes and projects, a link in it leading out, and a folder outside every readable root."""
    home, outside = tmp_path / "home", tmp_path / "outside"
    for folder in (
        home / "notes" / "journal",
        home / "projects" / "site",
        home / "projects" / "old",
        home / ".config",
        outside,
    ):
        folder.mkdir(parents=True)
    (home / "notes" / "a.md").write_bytes(NOTES_A.encode())
    (home / "notes" / "b.md").write_bytes(NOTES_B.encode())
    (home / "notes" / "journal" / "day.md").write_bytes(b"# Day\n")
    (home / "notes" / "photo.png").write_bytes(b"\x89PNG")
    (home / "projects" / "site" / "index.md").write_bytes(b"# Site\n")
    (outside / "secret.md").write_bytes(b"# Secret\n")
    (home / "escape").symlink_to(outside)
    monkeypatch.setenv("HOME", str(home))
    Settings(data_dir / "settings.json").set("readable_roots", [])  # home only
    return World(home, outside)


def picker(page: Page):
    return page.get_by_test_id("picker")


async def shows(page: Page, folder: Path) -> None:
    await expect(picker(page)).to_have_attribute("data-path", str(folder))


async def row_names(page: Page) -> list[str]:
    return await page.locator("[data-testid=picker-entries] [role=option]").evaluate_all(
        "rows => rows.map(r => r.dataset.name ?? ('[' + r.dataset.kind + ']'))"
    )


async def active_row(page: Page) -> str | None:
    active = page.locator("[data-testid=picker-entries] [role=option][aria-selected=true]")
    if await active.count() == 0:
        return None
    return await active.evaluate("r => r.dataset.name ?? ('[' + r.dataset.kind + ']')")


async def focus_in_picker(page: Page) -> bool:
    return bool(await page.evaluate("document.activeElement?.closest('[data-testid=picker]') != null"))


def main_roots(vmark: RunningApp) -> list[str]:
    return [w.root for w in vmark.app.session.windows["main"].workspaces]


async def open_folder_typed(page: Page, typed: str, folder: Path) -> None:
    """Open folder, the path typed (ending in "/": the picker goes there at once), Ctrl+Enter: its tree shows."""
    await page.click("#open-folder")
    await page.keyboard.type(typed)
    await shows(page, folder)
    await page.keyboard.press("Control+Enter")
    await page.wait_for_selector(f"section.workspace[data-root='{folder}']")


async def open_file_typed(page: Page, typed: str, text: str) -> None:
    """Open file, its path typed, Enter: the editor shows ``text``."""
    await page.click("#open-file")
    await page.keyboard.type(typed)
    await page.keyboard.press("Enter")
    await wait_editor_text(page, text)


# --- Open folder ---------------------------------------------------------------------------------------------
async def test_open_a_folder_by_keyboard(pages: Pages, vmark: RunningApp, world: World) -> None:
    page = await pages.open()
    await page.focus("#open-folder")
    await page.keyboard.press("Enter")
    await expect(picker(page)).to_be_visible()
    await expect(page.get_by_test_id("picker-filter")).to_be_focused()
    await shows(page, world.home)  # home at first
    # Hidden names hidden, the link leading out shown as such; the row on top opens the folder shown.
    assert await row_names(page) == ["[here]", "notes", "projects", "escape"]
    await expect(page.locator("[data-name=escape]")).to_have_attribute("data-kind", "outside")
    assert await active_row(page) == "[here]"
    await expect(page.get_by_test_id("picker-choose")).to_have_text("Open “home”")

    await page.keyboard.type("PRO")  # type-to-filter, any case
    assert await row_names(page) == ["projects"]
    await expect(page.locator("[data-name=projects] mark")).to_have_text("pro")
    await page.keyboard.press("Enter")
    await shows(page, world.home / "projects")
    await expect(page.get_by_test_id("picker-filter")).to_have_value("")
    await expect(page.get_by_test_id("picker-crumbs")).to_have_text("~/projects")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("ArrowDown")
    assert await active_row(page) == "site"
    await page.keyboard.press("Enter")
    await shows(page, world.site)
    await page.keyboard.press("Backspace")  # the empty filter: the folder above, the one we came from selected
    await shows(page, world.home / "projects")
    assert await active_row(page) == "site"
    await page.keyboard.press("Alt+ArrowUp")
    await shows(page, world.home)
    assert await active_row(page) == "projects"
    await page.keyboard.press("Alt+ArrowUp")  # the top of what the picker lists: it stays
    await expect(page.get_by_test_id("picker-status")).to_have_text(
        "This is the top of the folders the picker may list."
    )
    await shows(page, world.home)

    await page.keyboard.type("projects/site/")  # a path ending in "/": goes there at once
    await shows(page, world.site)
    assert await active_row(page) == "[here]"
    await page.keyboard.press("Enter")
    await expect(picker(page)).to_be_hidden()
    await page.wait_for_selector(f"section.workspace[data-root='{world.site}']")
    assert main_roots(vmark) == [str(world.site)]
    await expect(page.locator("#open-folder")).to_be_focused()  # the focus went back


async def test_open_a_folder_by_mouse(pages: Pages, vmark: RunningApp, world: World) -> None:
    page = await pages.open()
    await page.click("#open-folder")
    await shows(page, world.home)
    await page.click("[data-testid=picker-entries] [data-name=notes]")  # one click opens a folder in the picker
    await shows(page, world.notes)
    assert await row_names(page) == ["[here]", "journal"]  # folders only
    await page.click("[data-testid=picker-crumbs] button[data-path='" + str(world.home) + "']")
    await shows(page, world.home)
    await page.click("[data-testid=picker-entries] [data-name=notes]")
    await shows(page, world.notes)  # as a person sees the folder before choosing it (the click lists it first)
    await page.get_by_test_id("picker-choose").click()
    await expect(picker(page)).to_be_hidden()
    await page.wait_for_selector(f"section.workspace[data-root='{world.notes}']")
    assert main_roots(vmark) == [str(world.notes)]
    await expect(page.locator("button.file[data-path='a.md']")).to_be_visible()


async def test_focus_stays_in_the_dialog_and_escape_cancels(pages: Pages, vmark: RunningApp, world: World) -> None:
    page = await pages.open()
    await page.click("#open-file")
    await shows(page, world.home)
    visited = []
    for _ in range(9):
        await page.keyboard.press("Tab")
        assert await focus_in_picker(page)
        visited.append(await page.evaluate("document.activeElement.dataset.testid || document.activeElement.className"))
    # filter, entries, places and recent, cancel, open (disabled until a file is chosen: skipped), the path, hidden
    assert visited[:6] == [
        "picker-entries",
        "picker-side",
        "picker-cancel",
        "fp-crumb",
        "picker-hidden",
        "picker-filter",
    ]
    for _ in range(3):
        await page.keyboard.press("Shift+Tab")
        assert await focus_in_picker(page)
    await page.get_by_test_id("picker-hidden").check()  # hidden files: shown on request
    await wait_until(lambda: _has_row(page, ".config"), "the hidden folder")
    await page.keyboard.press("Escape")
    await expect(picker(page)).to_be_hidden()
    assert main_roots(vmark) == [] and vmark.app.session.windows["main"].tabs == []


async def _has_row(page: Page, name: str) -> bool:
    return name in await row_names(page)


# --- Open file -----------------------------------------------------------------------------------------------
async def test_open_a_file(pages: Pages, vmark: RunningApp, world: World) -> None:
    page = await pages.open()
    await page.click("#open-file")
    await shows(page, world.home)
    await page.keyboard.type("notes/")
    await shows(page, world.notes)
    assert await row_names(page) == ["journal", "a.md", "b.md", "photo.png"]
    photo = page.locator("[data-name='photo.png']")
    await expect(photo).to_have_attribute("aria-disabled", "true")  # not a file VMark opens: dimmed
    # A person may click it (Playwright would wait for an aria-disabled row to become enabled: force).
    await photo.click(force=True)
    await expect(page.get_by_test_id("picker-choose")).to_be_disabled()
    await photo.dblclick(force=True)
    await expect(page.get_by_test_id("picker-status")).to_contain_text("photo.png is neither")
    await expect(picker(page)).to_be_visible()

    await page.get_by_test_id("picker-filter").focus()
    await page.keyboard.type("b")
    assert await row_names(page) == ["b.md"]
    await page.keyboard.press("Enter")
    await expect(picker(page)).to_be_hidden()
    await expect(page.locator(".tab.active .title")).to_have_text("b")
    await wait_editor_text(page, NOTES_B)

    await page.click("#open-file")  # the second time: where the picker was last
    await shows(page, world.notes)
    await page.locator("[data-name='a.md']").dblclick()
    await expect(page.locator(".tab.active .title")).to_have_text("a")
    await wait_editor_text(page, NOTES_A)
    assert [t.doc.path for t in vmark.app.session.windows["main"].tabs] == [
        str(world.notes / "b.md"),
        str(world.notes / "a.md"),
    ]


async def test_a_typed_file_path_opens_it(pages: Pages, world: World) -> None:
    page = await pages.open()
    await page.click("#open-file")
    await page.keyboard.type("~/notes/journal/day.md")
    await page.keyboard.press("Enter")
    await expect(page.locator(".tab.active .title")).to_have_text("day")
    await wait_editor_text(page, "# Day\n")


# --- outside the readable roots ------------------------------------------------------------------------------
async def test_a_folder_outside_is_neither_listed_nor_openable(pages: Pages, vmark: RunningApp, world: World) -> None:
    page = await pages.open()
    await page.click("#open-folder")
    await shows(page, world.home)
    await page.keyboard.type(str(world.outside))
    await expect(page.get_by_test_id("picker-status")).to_have_text(f"Enter goes to {world.outside}")
    await page.keyboard.press("Enter")
    error = page.get_by_test_id("picker-error")
    await expect(error).to_have_text(f"INVALID_PATH: {OUTSIDE.format(path=world.outside)}")
    await shows(page, world.home)  # still home: nothing of the outside folder was listed
    await expect(page.locator("[data-name='secret.md']")).to_have_count(0)
    # The link in home that leads out is not followed: not by Enter on it, not by its path typed.
    await page.get_by_test_id("picker-filter").fill("")
    await page.keyboard.type("esc")
    assert await row_names(page) == ["escape"]
    await page.keyboard.press("Enter")
    await expect(page.get_by_test_id("picker-status")).to_have_text(
        "escape leads outside the folders the picker may list."
    )
    await shows(page, world.home)
    await page.get_by_test_id("picker-filter").fill("")
    await page.keyboard.type("~/escape/")
    await expect(error).to_have_text(f"INVALID_PATH: {OUTSIDE.format(path=world.home / 'escape')}")
    await shows(page, world.home)
    await expect(page.locator("[data-name='secret.md']")).to_have_count(0)
    await page.keyboard.press("Escape")
    assert main_roots(vmark) == []


# --- Save as -------------------------------------------------------------------------------------------------
async def test_save_as_through_the_picker(pages: Pages, vmark: RunningApp, world: World) -> None:
    page = await pages.open()
    await open_file_typed(page, "~/notes/a.md", NOTES_A)
    await type_at_end(page, "more\n")
    await page.keyboard.press("Control+Shift+P")  # Save as from the command palette, as a person finds it
    await page.keyboard.type("Save as")
    await page.keyboard.press("Enter")
    await expect(picker(page)).to_have_attribute("data-mode", "save")
    await shows(page, world.notes)
    name = page.get_by_test_id("picker-name")
    await expect(name).to_be_focused()
    await expect(name).to_have_value("a.md")
    error = page.get_by_test_id("picker-error")
    await expect(page.get_by_test_id("picker-status")).to_have_text(
        "This is the document's own file: saving under this name saves it in place."
    )
    await expect(error).to_be_hidden()
    await page.keyboard.type("b")  # the stem was selected: typing replaces it
    await expect(name).to_have_value("b.md")
    await expect(error).to_have_text(TAKEN.format("b.md"))  # said before the app is asked
    await page.keyboard.press("Enter")
    await expect(error).to_have_text(TAKEN.format("b.md"))
    assert (world.notes / "b.md").read_bytes() == NOTES_B.encode()

    await page.click("[data-testid=picker-entries] [data-name=journal]")  # a folder: the picker goes there
    await shows(page, world.notes / "journal")
    await expect(error).to_be_hidden()  # no b.md there
    await page.click("[data-testid=picker-entries] [data-name='day.md']")  # a file: its name is taken
    await expect(name).to_have_value("day.md")
    await expect(error).to_have_text(TAKEN.format("day.md"))
    await name.fill("entry")
    await expect(error).to_be_hidden()
    await name.press("Enter")
    await expect(picker(page)).to_be_hidden()
    target = world.notes / "journal" / "entry.md"
    assert target.read_bytes() == (NOTES_A + "more\n").encode()
    assert (world.notes / "a.md").read_bytes() == NOTES_A.encode()
    assert (world.notes / "journal" / "day.md").read_bytes() == b"# Day\n"
    await expect(page.locator(".tab.active .title")).to_have_text("entry")
    tab = vmark.app.session.windows["main"].tabs[0]
    assert (tab.doc.path, tab.doc.dirty) == (str(target), False)


async def test_save_as_onto_the_documents_own_name_saves_it_in_place(pages: Pages, world: World) -> None:
    page = await pages.open()
    await open_file_typed(page, "~/notes/b.md", NOTES_B)
    await type_at_end(page, "again\n")
    await page.click("#save-as-open")
    await expect(page.get_by_test_id("picker-name")).to_have_value("b.md")
    await page.keyboard.press("Enter")
    await expect(picker(page)).to_be_hidden()
    assert (world.notes / "b.md").read_bytes() == (NOTES_B + "again\n").encode()
    assert sorted(p.name for p in world.notes.iterdir()) == ["a.md", "b.md", "journal", "photo.png"]


async def test_save_as_refuses_a_hidden_name_it_did_not_list(pages: Pages, vmark: RunningApp, world: World) -> None:
    (world.notes / ".hidden.md").write_bytes(b"keep\n")
    page = await pages.open()
    await page.keyboard.press("Alt+n")
    await page.wait_for_selector(".cm-content")
    await page.click(".cm-content")
    await page.keyboard.type("draft")
    await page.click("#save-as-open")
    await shows(page, world.home)  # no workspace, no file: home
    name = page.get_by_test_id("picker-name")
    await name.fill("notes/.hidden.md")
    await name.press("Enter")
    await shows(page, world.notes)
    await expect(page.get_by_test_id("picker-error")).to_have_text(TAKEN.format(".hidden.md"))
    assert (world.notes / ".hidden.md").read_bytes() == b"keep\n"
    await expect(picker(page)).to_be_visible()


# --- recents and a restart -----------------------------------------------------------------------------------
@pytest.fixture
async def restartable(browser: Browser, data_dir: Path) -> AsyncIterator[list[RunningApp]]:
    """Apps started on ``data_dir`` one after another (each stopped at the end)."""
    apps: list[RunningApp] = []
    try:
        yield apps
    finally:
        for app in apps:
            await app.stop()


async def _start(apps: list[RunningApp], data_dir: Path) -> RunningApp:
    app = RunningApp(data_dir, test_hooks=True)
    await app.start()
    apps.append(app)
    return app


async def test_recents_survive_a_restart(
    browser: Browser, data_dir: Path, world: World, restartable: list[RunningApp]
) -> None:
    first = await _start(restartable, data_dir)
    pages = Pages(browser, UI(first.port, first.ui_token))
    try:
        page = await pages.open()
        for folder in (world.notes, world.site):
            await open_folder_typed(page, f"{folder}/", folder)
        await open_from_tree(page, "index.md")
        await open_file_typed(page, "~/notes/b.md", NOTES_B)
        # b.md is in the other workspace of the window: the window shows that one now (its tab is visible)
        await expect(page.locator(".tab.active .title")).to_have_text("b")
        await expect(page.locator("#rail .rail-item.active")).to_have_attribute("data-root", str(world.notes))
    finally:
        await pages.close()
    await first.stop()
    restartable.remove(first)
    (world.home / "projects" / "site" / "index.md").unlink()  # gone since: shown as gone

    second = await _start(restartable, data_dir)
    pages = Pages(browser, UI(second.port, second.ui_token))
    try:
        page = await pages.open()
        await page.click("#open-file")
        side = page.get_by_test_id("picker-side")
        files = side.locator("[data-group='Recent files'] [role=option]")
        await expect(files).to_have_count(2)
        assert await files.evaluate_all("rows => rows.map(r => r.dataset.path)") == [
            str(world.notes / "b.md"),
            str(world.site / "index.md"),
        ]
        await expect(files.nth(1)).to_have_attribute("aria-disabled", "true")
        await expect(files.nth(1).locator(".fp-detail")).to_have_text("gone")
        folders = side.locator("[data-group='Recent folders'] [role=option]")
        assert await folders.evaluate_all("rows => rows.map(r => r.dataset.path)") == [
            str(world.site),
            str(world.notes),
        ]
        # By keyboard: Tab to the side list, down to the gone file, Delete forgets it; Enter opens the other.
        await page.keyboard.press("Tab")
        await page.keyboard.press("Tab")
        await expect(side).to_be_focused()
        await expect(side.locator("[role=option][aria-selected=true]")).to_have_attribute("data-path", str(world.home))
        for _ in range(2):  # past the first recent file to the second
            await page.keyboard.press("ArrowDown")
        await expect(side.locator("[role=option][aria-selected=true]")).to_have_attribute(
            "data-path", str(world.site / "index.md")
        )
        await page.keyboard.press("Delete")
        await expect(files).to_have_count(1)
        await page.keyboard.press("ArrowUp")
        await expect(side.locator("[role=option][aria-selected=true]")).to_have_attribute(
            "data-path", str(world.notes / "b.md")
        )
        await page.keyboard.press("Enter")
        await expect(picker(page)).to_be_hidden()
        await wait_editor_text(page, NOTES_B)
    finally:
        await pages.close()


# --- a second window --------------------------------------------------------------------------------------------
async def test_a_second_window_offers_the_open_and_recent_workspaces(
    pages: Pages, vmark: RunningApp, world: World
) -> None:
    first = await pages.open()
    empty = first.get_by_test_id("start-screen")
    await expect(empty).to_be_visible()  # the main window, before anything is open, offers the same
    await expect(first.locator("#empty-hint")).to_have_text(
        "Open a folder to work in, or a file, or create a new document."
    )
    for folder in (world.notes, world.site):
        await open_folder_typed(first, f"{folder}/", folder)
    await open_from_tree(first, "index.md")

    second = await pages.open()  # a new page: a new window
    assert await second.evaluate("new URLSearchParams(location.search).get('window')") == "doc-1"
    start = second.get_by_test_id("start-screen")
    await expect(start).to_be_visible()
    await expect(second.locator("#empty-hint")).not_to_contain_text("from the tree")
    open_now = start.get_by_test_id("start-open-workspaces").locator("button")
    assert await open_now.evaluate_all(
        "bs => bs.map(b => [b.dataset.path, b.querySelector('.start-path').textContent])"
    ) == [
        [str(world.notes), "open in main"],
        [str(world.site), "open in main"],
    ]
    recent_files = start.get_by_test_id("start-recent-files").locator("button")
    assert await recent_files.evaluate_all("bs => bs.map(b => b.dataset.path)") == [str(world.site / "index.md")]
    await expect(start.get_by_test_id("start-recent-folders")).to_contain_text(
        "No recent folders yet."
    )  # both are open
    await open_now.nth(1).click()
    await second.wait_for_selector(f"section.workspace[data-root='{world.site}']")
    await expect(start).to_be_hidden()
    await expect(second.locator("#empty-hint")).to_have_text("Open a file from the tree, or create a new document.")
    assert [w.root for w in vmark.app.session.windows["doc-1"].workspaces] == [str(world.site)]
    await recent_file_opens(second)


async def recent_file_opens(page: Page) -> None:
    await open_from_tree(page, "index.md")
    assert await editor_text(page) == "# Site\n"


# --- vmark app without a folder: a real process ---------------------------------------------------------------
async def test_vmark_app_without_a_folder_reopens_the_last_workspace(browser: Browser, tmp_path: Path) -> None:
    world = Home(root=tmp_path, home=tmp_path / "home", data=tmp_path / "data", workspace=tmp_path / "home" / "ws")
    for folder in (world.workspace / "docs", world.home / "other"):
        folder.mkdir(parents=True)
    (world.workspace / "docs" / "guide.md").write_bytes(b"# Guide\n")
    Settings(world.data / "settings.json").set("readable_roots", [])
    env = world.env()
    try:
        first = AppProcess(env, world.data)
        info = await first.aready()
        pages = Pages(browser, UI(info.port, info.ui_token))
        try:
            page = await pages.open()
            await open_folder_typed(page, "~/ws/", world.workspace)
        finally:
            await pages.close()
        first.signal(signal.SIGTERM)
        assert first.wait() == 0

        again = AppProcess(env, world.data)  # `vmark app --headless`, no folder
        info = await again.aready()
        pages = Pages(browser, UI(info.port, info.ui_token))
        try:
            page = await pages.open()
            await page.wait_for_selector(f"section.workspace[data-root='{world.workspace}']")
            await expect(page.locator("button.file[data-path='docs/guide.md']")).to_be_visible()
            await expect(page.get_by_test_id("start-screen")).to_be_hidden()
        finally:
            await pages.close()
        again.signal(signal.SIGTERM)
        assert again.wait() == 0
        out, _ = again.output()
        assert out.splitlines()[-1] == f"vmark reopened the last workspace: {world.workspace}"

        # An agent's `vmark mcp` starting the app never opens the person's folder.
        async with stdio_client(world) as agent:
            state = await ok(agent, "session", "get_state")
        (main,) = state["windows"]
        assert main["activeWorkspaceInstanceId"] is None
        kill_apps_of(world.data)

        (world.workspace / "docs" / "guide.md").unlink()
        for path in (world.workspace / "docs", world.workspace):
            path.rmdir()
        gone = AppProcess(env, world.data)  # the folder is gone: the start screen, as with no workspace
        info = await gone.aready()
        pages = Pages(browser, UI(info.port, info.ui_token))
        try:
            page = await pages.open()
            await expect(page.get_by_test_id("start-screen")).to_be_visible()
            await expect(page.locator("section.workspace")).to_have_count(0)
            folders = page.get_by_test_id("start-recent-folders").locator("button")
            await expect(folders).to_have_count(1)
            await expect(folders.first).to_be_disabled()  # gone
        finally:
            await pages.close()
        gone.signal(signal.SIGTERM)
        assert gone.wait() == 0
    finally:
        kill_apps_of(world.data)


# --- screenshots, light and dark ---------------------------------------------------------------------------------
@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_screenshots(pages: Pages, world: World, scheme: str) -> None:
    context = await pages.context(color_scheme=scheme)
    page = await pages.open(context=context)
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"picker-{scheme}-start.png"))
    await open_folder_typed(page, "~/notes/", world.notes)
    await page.click("#open-file")
    await shows(page, world.notes)
    await page.keyboard.type("a")
    await page.screenshot(path=str(ARTIFACTS / f"picker-{scheme}-file.png"))
    await page.keyboard.press("Enter")
    await wait_editor_text(page, NOTES_A)
    await page.click("#open-folder")
    await shows(page, world.notes)
    await page.click("[data-testid=picker-crumbs] button[data-path='" + str(world.home) + "']")
    await shows(page, world.home)
    await page.screenshot(path=str(ARTIFACTS / f"picker-{scheme}-folder.png"))
    await page.keyboard.press("Escape")
    await page.click("#save-as-open")
    await page.get_by_test_id("picker-name").fill("b.md")
    await expect(page.get_by_test_id("picker-error")).to_have_text(TAKEN.format("b.md"))
    await page.screenshot(path=str(ARTIFACTS / f"picker-{scheme}-save.png"))
    await page.keyboard.press("Escape")
    second = await pages.open(context=context)
    await expect(second.get_by_test_id("start-screen")).to_be_visible()
    await second.screenshot(path=str(ARTIFACTS / f"picker-{scheme}-second-window.png"))
