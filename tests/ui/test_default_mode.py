"""Which mode a file opens in (docs/links.md, "Default mode"): WYSIWYG unless the person chose Source in the
settings; a file the person toggled opens in the mode it was last shown in, also after a restart of the app;
a workflow (YAML) tab is always source.

These tests use the app's own default: their data directory sets no `editor.default_mode`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import Pages, new_context
from tests.ui.helpers import app_defaults, open_folder, open_from_tree
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient, UIError


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return app_defaults(tmp_path)


async def mode(page: Page) -> str:
    return str(await page.evaluate("window.vmarkPage.mode()"))


async def shows(page: Page, expected: str) -> None:
    """The page shows the active tab in `expected` mode: its editor, the toggle's word, the status bar."""
    await page.wait_for_selector(".ProseMirror" if expected == "wysiwyg" else ".cm-content")
    await wait_until(lambda: _mode_is(page, expected), f"the {expected} editor")
    await expect(page.locator("#mode-toggle")).to_have_text("Source" if expected == "wysiwyg" else "WYSIWYG")
    await expect(page.locator("#editor")).to_have_attribute("data-mode", expected)


async def _mode_is(page: Page, expected: str) -> bool:
    return await mode(page) == expected


async def toggle(page: Page, to: str) -> None:
    await page.click("#mode-toggle")
    await shows(page, to)


def remembered(data_dir: Path) -> object:
    return json.loads((data_dir / "modes.json").read_text("utf-8"))


async def test_new_and_existing_markdown_files_open_in_wysiwyg(
    pages: Pages, workspace: Path, vmark: RunningApp
) -> None:
    page = await pages.open()
    await open_folder(page, workspace)
    # Markdown in WYSIWYG, in any folder; a workflow stays source.
    for name, expected in (("a.md", "wysiwyg"), (".github/workflows/ci.yml", "source"), ("notes/c.md", "wysiwyg")):
        await open_from_tree(page, name)
        await shows(page, expected)
    await page.locator(".tab", has_text="a").click()
    await expect(page.locator(".ProseMirror h1")).to_have_text("A")
    await page.click("#new-tab")
    await expect(page.locator(".tab.active .title")).to_have_text("Untitled-1")
    await shows(page, "wysiwyg")
    modes = {t.title: t.mode for t in vmark.app.session.windows["main"].tabs}
    assert modes == {"a": "wysiwyg", "ci": "source", "c": "wysiwyg", "Untitled-1": "wysiwyg"}
    assert not (vmark.data_dir / "modes.json").exists()  # nothing was toggled: nothing is remembered


async def test_the_setting_opens_markdown_in_source_and_a_toggled_file_keeps_its_own(
    pages: Pages, workspace: Path, data_dir: Path
) -> None:
    page = await pages.open()
    await open_folder(page, workspace)
    await page.click("#settings-open")
    row = page.locator(".setting[data-key='editor.default_mode']")
    await expect(row.locator("label")).to_have_text("Open Markdown files in")
    assert await row.locator("select option").all_inner_texts() == ["WYSIWYG", "Source"]
    await expect(row.locator("select")).to_have_value("wysiwyg")
    await row.locator("select").select_option("source")
    await expect(row).to_have_attribute("data-state", "saved")
    assert json.loads((data_dir / "settings.json").read_text("utf-8"))["editor.default_mode"] == "source"
    await page.click("#settings-close")

    await open_from_tree(page, "a.md")
    await shows(page, "source")
    await page.click("#new-tab")
    await shows(page, "source")
    # b.md toggled to WYSIWYG opens so again; a.md, never toggled, follows the setting.
    await open_from_tree(page, "b.md")
    await shows(page, "source")
    await toggle(page, "wysiwyg")
    assert remembered(data_dir) == {"files": [[str(workspace.resolve() / "b.md"), "wysiwyg"]]}
    for name in ("b", "a"):
        await page.locator(".tab", has_text=name).locator("button.close").click()
    await expect(page.locator(".tab", has_text="b")).to_have_count(0)
    await open_from_tree(page, "b.md")
    await shows(page, "wysiwyg")
    await open_from_tree(page, "a.md")
    await shows(page, "source")


@asynccontextmanager
async def running(browser: Browser, data_dir: Path, workspace: Path) -> AsyncIterator[Page]:
    """An app of `data_dir` and a page of it on `workspace`; both end with the block (a restart is another block)."""
    app = RunningApp(data_dir, test_hooks=True)
    await app.start()
    try:
        context = await new_context(browser)
        page = await context.new_page()
        await page.goto(app.ui_url)
        await page.wait_for_selector("body[data-ready=true]")
        await open_folder(page, workspace)
        yield page
        assert await page.evaluate("window.__cspViolations") == []
        await context.close()
    finally:
        await app.stop()


async def test_a_toggled_file_keeps_its_mode_after_a_restart(browser: Browser, data_dir: Path, workspace: Path) -> None:
    a, b, c = (str(workspace.resolve() / name) for name in ("a.md", "b.md", "notes/c.md"))
    async with running(browser, data_dir, workspace) as page:
        await open_from_tree(page, "a.md")
        await shows(page, "wysiwyg")
        await toggle(page, "source")
        await open_from_tree(page, "b.md")
        await toggle(page, "source")
        await toggle(page, "wysiwyg")  # the last shown mode counts
        assert remembered(data_dir) == {"files": [[a, "source"], [b, "wysiwyg"]]}
    async with running(browser, data_dir, workspace) as page:
        for name, mode in (("a.md", "source"), ("b.md", "wysiwyg"), ("notes/c.md", "wysiwyg")):  # c: never toggled
            await open_from_tree(page, name)
            await shows(page, mode)
        await toggle(page, "source")
        assert remembered(data_dir) == {"files": [[a, "source"], [b, "wysiwyg"], [c, "source"]]}


async def test_a_renamed_file_keeps_its_mode(person: UIClient, workspace: Path, data_dir: Path) -> None:
    root = workspace.resolve()
    await person.call("ui.open_folder", path=str(root))
    tab = (await person.call("ui.open", path=str(root / "a.md")))["tabId"]
    assert (await person.call("ui.read", tabId=tab))["mode"] == "wysiwyg"
    assert await person.call("ui.set_mode", tabId=tab, mode="source") == {"mode": "source"}
    await person.call("ui.file_rename", **{"from": str(root / "a.md"), "to": str(root / "z.md")})
    assert remembered(data_dir) == {"files": [[str(root / "z.md"), "source"]]}
    assert (await person.call("ui.close", tabId=tab)) == {"closed": True}
    again = (await person.call("ui.open", path=str(root / "z.md")))["tabId"]
    assert (await person.call("ui.read", tabId=again))["mode"] == "source"
    # A refused mode changes nothing.
    with pytest.raises(UIError) as info:
        await person.call("ui.set_mode", tabId=again, mode="rich")
    assert info.value.error == "argument 'mode' must be one of: wysiwyg, source"
    assert remembered(data_dir) == {"files": [[str(root / "z.md"), "source"]]}
