"""The Backlinks panel (panels/backlinks.ts, docs/backlinks.md): the other files that link to the active tab's,
opened by a click or Enter, refreshed as the active tab changes; wikilinks only where the page resolves them
to this file. Light and dark screenshots go to tests/ui/artifacts."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.ui.conftest import ARTIFACTS, Pages
from tests.ui.helpers import active_tab, app_defaults, open_folder, open_from_tree, wait_shown

FILES = {
    "b.md": "# B\n\nLinks to [itself](b.md).\n",
    "a.md": "# A\n\nSee [b](b.md#b) first.\n",
    "notes/c.md": "# C\n[[b|bee]] too\n",
    # [[b]] here is the nearer other/b.md: the page's rule drops it
    "other/b.md": "# Other B\n",
    "other/x.md": "[[b]] is my neighbour\n",
    "other/data.yml": "[b](../b.md)\n",
}
ENTRIES = ["a.md — line 3: See [b](b.md#b) first.", "c.md — line 2: [[b|bee]] too"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    for folder in ("notes", "other"):
        (ws / folder).mkdir(parents=True)
    for name, text in FILES.items():
        (ws / name).write_text(text, "utf-8")
    return ws


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return app_defaults(tmp_path)  # the app's own defaults (Markdown opens in WYSIWYG)


async def _page(pages: Pages, root: Path, scheme: str) -> Page:
    context = await pages.browser.new_context(viewport={"width": 1280, "height": 720}, color_scheme=scheme)  # type: ignore[arg-type]
    pages.contexts.append(context)
    page = await pages.open(context=context)
    await open_folder(page, root)
    return page


async def _entries(page: Page) -> list[str]:
    return [t.strip() for t in await page.locator("#backlinks-list li").all_inner_texts()]


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_the_panel_lists_the_files_that_link_here_and_opens_them(pages: Pages, root: Path, scheme: str) -> None:
    page = await _page(pages, root, scheme)
    b_tab = await open_from_tree(page, "b.md")
    toggle = page.locator("#backlinks-toggle")
    await toggle.click()
    await expect(toggle).to_have_attribute("aria-pressed", "true")
    entries = page.locator("#backlinks-list button.backlink")
    await expect(entries).to_have_count(2)
    assert await _entries(page) == ENTRIES
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"backlinks-{scheme}.png"))

    # A click opens the file that links here; the panel now shows that file's backlinks (none).
    await entries.nth(0).click()
    a_tab = await wait_shown(page, "a.md")
    assert a_tab != b_tab and await active_tab(page) == a_tab
    await expect(page.locator("#backlinks-list li")).to_have_text(["No other file links here."])

    # Back to b.md, the list again; Enter on the second entry opens notes/c.md.
    await page.click(f".tab[data-tab-id='{b_tab}']")
    await expect(entries).to_have_count(2)
    await entries.nth(1).focus()
    await page.keyboard.press("Enter")
    c_tab = await wait_shown(page, "c.md")
    assert await active_tab(page) == c_tab

    # Hidden, the panel loads nothing; shown again it is the active tab's.
    await toggle.click()
    await expect(page.locator("#backlinks")).to_be_hidden()
    await page.click(f".tab[data-tab-id='{b_tab}']")
    await toggle.click()
    await expect(entries).to_have_count(2)


async def test_a_new_link_written_elsewhere_shows_up(pages: Pages, root: Path) -> None:
    page = await _page(pages, root, "light")
    await open_from_tree(page, "b.md")
    await page.click("#backlinks-toggle")
    await expect(page.locator("#backlinks-list button.backlink")).to_have_count(2)
    # Another program creates a file linking to b.md: the workspace's files changed, the list follows.
    (root / "other" / "y.md").write_text("# Y\nand [the far b](../b.md)\n", "utf-8")
    await expect(page.locator("#backlinks-list button.backlink")).to_have_count(3)
    assert await _entries(page) == [*ENTRIES, "y.md — line 2: and [the far b](../b.md)"]
