"""Driving the page as a person would: the file tree, the editor, the tab strip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client
from playwright.async_api import Page

from tests.conftest import ok
from tests.contract.helpers import wait_until
from vmark.app.server import RunningApp
from vmark.core.model import Document
from vmark.storage.settings import Settings


def app_defaults(tmp_path: Path) -> Path:
    """A data directory with the app's own defaults (the shared ``data_dir`` fixture opens files in source
    mode): only the test tree made readable."""
    directory = tmp_path / "data"
    directory.mkdir()
    Settings(directory / "settings.json").set("readable_roots", [str(tmp_path)])
    return directory


async def editor_text(page: Page) -> str | None:
    text = await page.evaluate("window.vmarkPage.editorText()")
    return None if text is None else str(text)


async def active_tab(page: Page) -> str | None:
    tab = await page.evaluate("window.vmarkPage.tabId()")
    return None if tab is None else str(tab)


async def wait_editor_text(page: Page, expected: str) -> None:
    async def shows() -> bool:
        return await editor_text(page) == expected

    try:
        await wait_until(shows, f"the editor to show {expected!r}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; it shows {await editor_text(page)!r}") from None


async def picker_go(page: Page, path: Path | str) -> None:
    """In the open picker, type ``path`` into its filter and press Enter: wait until it shows that folder."""
    await page.fill("[data-testid=picker-filter]", str(path))
    await page.press("[data-testid=picker-filter]", "Enter")
    await page.wait_for_selector(f"[data-testid=picker][data-path='{Path(path).resolve()}']")


async def open_folder(page: Page, folder: Path) -> None:
    """Open the folder as the window's workspace as a person does: Open folder, its path typed into the picker,
    Enter, Ctrl+Enter (open the folder shown); wait for its tree."""
    await page.click("#open-folder")
    await picker_go(page, folder)
    await page.press("[data-testid=picker-filter]", "Control+Enter")
    await page.wait_for_selector(f"section.workspace[data-root='{folder.resolve()}']")


async def open_path(page: Page, path: Path) -> str:
    """Open a file by its path (typed into the Open file picker, Enter): the page shows it; its tab id."""
    await page.click("#open-file")
    await page.fill("[data-testid=picker-filter]", str(path))
    await page.press("[data-testid=picker-filter]", "Enter")
    return await wait_shown(page, path.name)


async def open_from_tree(page: Page, relative: str) -> str:
    await page.click(f"button.file[data-path='{relative}']")
    return await wait_shown(page, Path(relative).name)


async def wait_shown(page: Page, name: str) -> str:
    """The page shows file ``name``'s tab, its editor up: the tab's id."""
    stem = Path(name).stem
    await page.wait_for_selector(f".tab.active .title:text-is('{stem}')")
    # Polled from here: page-side polling (wait_for_function) would need eval, which the CSP forbids.
    await wait_until(lambda: _has_editor(page), "the editor to be up")
    tab = await active_tab(page)
    assert tab is not None
    return tab


async def _has_editor(page: Page) -> bool:
    return await editor_text(page) is not None


async def type_at_end(page: Page, text: str) -> None:
    """Click into the source editor, go to the end of the document and type."""
    await page.click(".cm-content")
    await page.keyboard.press("Control+End")
    await page.keyboard.type(text)


def doc_of(vmark: RunningApp, tab_id: str) -> Document:
    return vmark.app.session.find_tab(tab_id)[1].doc


async def wait_doc_text(vmark: RunningApp, tab_id: str, expected: str) -> None:
    doc = doc_of(vmark, tab_id)
    try:
        await wait_until(lambda: doc.state.text == expected, f"the document to hold {expected!r}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; it holds {doc.state.text!r}") from None


async def agent_write(agent: Client, tab_id: str, content: str) -> dict[str, Any]:
    """An agent's read-then-write of ``content`` (against the revision it read)."""
    read = await ok(agent, "document", "read", tabId=tab_id)
    return await ok(agent, "document", "write", tabId=tab_id, content=content, expected_revision=read["revision"])
