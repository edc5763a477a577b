"""A soft line break inside a paragraph shows as a space in WYSIWYG (as every Markdown renderer shows it), while
the text keeps its line break byte for byte: typing right before and right after it changes only what was
typed. Code blocks keep their line breaks on screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.ui.conftest import ARTIFACTS, Pages
from tests.ui.everyday import open_file_in
from tests.ui.helpers import wait_doc_text
from vmark.app.server import RunningApp

TEXT = "Soft breaks\r\nshow as spaces.\r\n\r\nOne line.\r\n\r\n```\r\ncode one\r\ncode two\r\n```\r\n"


async def _lines(page: Page, selector: str) -> int:
    """How many lines the element's text is drawn on (its text's client rects, one per line box)."""
    return int(
        await page.eval_on_selector(
            selector,
            """e => {
                const range = document.createRange();
                range.selectNodeContents(e);
                const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
                return tops.size;
            }""",
        )
    )


async def test_a_soft_break_shows_as_a_space_and_typing_around_it_keeps_it(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    path = workspace / "soft.md"
    page, tab = await open_file_in(pages, workspace, "soft.md", TEXT.encode(), "wysiwyg")
    first = page.locator(".ProseMirror > .pm-section > p").first
    await expect(first).to_have_text("Soft breaks\nshow as spaces.")  # the "\n" is in the text ...
    assert await _lines(page, ".ProseMirror > .pm-section > p") == 1  # ... drawn on one line
    assert await first.evaluate("e => e.innerText") == "Soft breaks show as spaces."  # ... as a space
    assert await _lines(page, ".ProseMirror pre") == 2  # a code block keeps its lines

    # Type right before the break and right after it: the arrow steps over it as over one character.
    await first.click(position={"x": 1, "y": 4})  # before its first letter
    for _ in range(len("Soft breaks")):
        await page.keyboard.press("ArrowRight")
    await page.keyboard.type(" here")
    await page.keyboard.press("ArrowRight")
    await page.keyboard.type("it ")
    expected = TEXT.replace("Soft breaks\r\nshow", "Soft breaks here\r\nit show")
    await wait_doc_text(vmark, tab, expected)
    assert await _lines(page, ".ProseMirror > .pm-section > p") == 1
    await page.keyboard.press("Control+s")
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_attribute("data-dirty", "false")
    assert path.read_bytes() == expected.encode()  # CRLF and every other byte as it was


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_screenshot_of_a_soft_break(pages: Pages, vmark: RunningApp, workspace: Path, scheme: str) -> None:
    page, _ = await open_file_in(pages, workspace, "soft.md", TEXT.encode(), "wysiwyg", scheme)
    await expect(page.locator(".md-soft-break")).to_have_count(1)
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"everyday-soft-break-{scheme}.png"))
