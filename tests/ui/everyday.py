"""What the everyday tests (``test_everyday_*.py``) share: a file of the workspace opened in a page of the theme
asked for, in the mode asked for."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Page

from tests.ui.conftest import Pages
from tests.ui.helpers import open_folder, open_from_tree
from tests.ui.test_theme import themed_page


async def open_file_in(
    pages: Pages, workspace: Path, name: str, data: bytes | None = None, mode: str = "source", scheme: str = "light"
) -> tuple[Page, str]:
    """``name`` of ``workspace`` (written with ``data`` first, when given) open in a new page in ``scheme``,
    shown in ``mode``: the page and the tab's id."""
    if data is not None:
        (workspace / name).write_bytes(data)
    page = await themed_page(pages, scheme)
    await open_folder(page, workspace)
    tab = await open_from_tree(page, name)
    if mode == "wysiwyg":
        await page.click("#mode-toggle")
        await page.wait_for_selector(".ProseMirror")
    return page, tab
