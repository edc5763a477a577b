"""A long document in WYSIWYG (issues 25 and 26): the panels and decorations that now follow each change (and
finish in idle time) instead of reading the whole document again still show all of it."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import Page, expect

from tests.ui.conftest import Pages
from tests.ui.helpers import editor_text, open_folder, open_from_tree, wait_editor_text

PARTS = 480
CODE = "```python\ndef part_{k}(value):\n    return value + {k}\n```"
PARAGRAPH = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon"


def long_doc() -> str:
    """About 1 MB: a heading, paragraphs and a Python code block per part; a soft line break at its end."""
    parts = []
    for k in range(PARTS):
        body = "\n\n".join(f"{PARAGRAPH} {k} {n}." for n in range(18))
        parts.append(f"## Part {k}\n\n{body}\n\n{CODE.format(k=k)}")
    return "# Long document\n\n" + "\n\n".join(parts) + "\n\nThe end\nof it.\n"


def words(text: str) -> int:
    """The status bar's word count of ASCII text (statusbar.ts `counts`)."""
    return len(re.findall(r"[A-Za-z0-9][A-Za-z0-9'_-]*", text))


async def open_long(pages: Pages, workspace: Path, text: str) -> Page:
    (workspace / "long.md").write_text(text, "utf-8")
    page = await pages.open()
    await open_folder(page, workspace)
    await open_from_tree(page, "long.md")
    await page.click("#mode-toggle")
    await page.wait_for_selector(".ProseMirror h1")
    return page


async def test_a_heading_typed_at_the_end_of_a_long_document_is_in_the_outline_and_counted(
    pages: Pages, workspace: Path
) -> None:
    text = long_doc()
    assert len(text.encode()) > 1_000_000
    page = await open_long(pages, workspace, text)
    items = page.get_by_role("navigation", name="Outline").locator(".outline-item")
    await expect(items).to_have_count(PARTS + 1, timeout=60_000)
    status = page.get_by_test_id("status-words")
    await expect(status).to_have_text(f"{words(text):,} words", timeout=60_000)
    characters = len(text.replace("\n", ""))
    await expect(page.get_by_test_id("status-characters")).to_have_text(f"{characters:,} characters")
    # The last paragraph, scrolled to: its soft break drawn as a space (decorated as it came near the screen).
    last = page.locator(".ProseMirror > .pm-section > p", has_text="The end")
    await last.click()
    await expect(last.locator(".md-soft-break")).to_have_count(1)
    # After it, a new heading.
    await page.keyboard.press("Control+End")
    await page.keyboard.press("Enter")
    await page.keyboard.type("# Finale here")
    await expect(items).to_have_count(PARTS + 2)
    await expect(items.last).to_have_text("Finale here")
    await expect(items.last).to_have_attribute("data-level", "1")
    await expect(items.last).to_have_attribute("aria-current", "location")
    await expect(status).to_have_text(f"{words(text) + 2:,} words")
    await wait_editor_text(page, text[:-1] + "\n\n# Finale here\n")
    # The outline still jumps: to the first part, far above.
    await items.nth(1).click()
    await expect(items.nth(1)).to_have_attribute("aria-current", "location")
    await expect(page.locator(".ProseMirror h2", has_text="Part 0").first).to_be_in_viewport()
    assert await editor_text(page) == text[:-1] + "\n\n# Finale here\n"


async def test_the_code_blocks_of_a_long_document_are_all_highlighted_and_follow_edits(
    pages: Pages, workspace: Path
) -> None:
    text = long_doc()
    page = await open_long(pages, workspace, text)
    blocks = page.locator(".ProseMirror > .pm-section > .md-code")
    await expect(blocks).to_have_count(PARTS, timeout=60_000)
    # The first screen's right away; the last one's once the page had idle time for the blocks before it.
    await expect(blocks.first.locator(".tok-keyword").first).to_have_text("def")
    await expect(blocks.last.locator(".tok-keyword").first).to_have_text("def", timeout=60_000)
    assert await blocks.last.locator(".tok-keyword").count() == 2  # def, return: each once
    assert await page.locator(".ProseMirror .md-code .tok-keyword").count() == 2 * PARTS
    # Typing into the last block highlights what it typed.
    await blocks.last.locator(".tok-keyword", has_text="return").click()
    await page.keyboard.press("End")
    await page.keyboard.type("  # note")
    await expect(blocks.last.locator(".tok-comment")).to_have_text("# note")
    expected = text.replace(f"    return value + {PARTS - 1}\n", f"    return value + {PARTS - 1}  # note\n")
    await wait_editor_text(page, expected)
