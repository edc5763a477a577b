"""What WYSIWYG renders (issue 18): KaTeX math, task checkboxes, code blocks with a language and
highlighting, tables with a grid; the file's bytes stay exactly as they were."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.ui.conftest import ARTIFACTS, Pages
from tests.ui.helpers import doc_of, open_folder, open_from_tree, wait_doc_text
from vmark.app.server import RunningApp

DOC = (
    "# Sums\n\nEuler: $e^{i\\pi}+1=0$ and more.\n\n"
    "$$\n\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}\n$$\n\n"
    "- [ ] first task\n- [x] done task\n- [ ]   spaced\n\n"
    "```js\nconst answer = 42; // the answer\n```\n\n"
    "```\nplain\n```\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\n"
    "A note[^1].\n\n[^1]: The note.\n"
)


async def rendered(pages: Pages, vmark: RunningApp, workspace: Path, scheme: str = "light") -> tuple[Page, str]:
    (workspace / "rich.md").write_text(DOC, "utf-8")
    context = await pages.context(viewport={"width": 1200, "height": 900}, color_scheme=scheme)
    page = await pages.open(context=context)
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "rich.md")
    await page.click("#mode-toggle")
    await page.wait_for_selector(".ProseMirror .katex")
    return page, tab


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_math_renders_with_katex_and_the_bytes_stay(
    pages: Pages, vmark: RunningApp, workspace: Path, scheme: str
) -> None:
    page, tab = await rendered(pages, vmark, workspace, scheme)
    inline = page.locator(".md-math-inline")
    await expect(inline).to_have_count(1)
    await expect(inline.locator(".katex")).to_have_count(1)
    assert await inline.get_attribute("title") == "$e^{i\\pi}+1=0$"
    assert await inline.locator("annotation").text_content() == "e^{i\\pi}+1=0"  # KaTeX's MathML keeps the TeX
    display = page.locator(".md-math-block .md-math-display .katex-display")
    await expect(display).to_have_count(1)
    assert "frac" in await page.locator(".md-math-block annotation").text_content() or ""
    # The source of the block shows only while the cursor is in it.
    source = page.locator(".md-math-source")
    assert (await source.bounding_box() or {"x": 0})["x"] < 0
    await page.locator(".md-math-display").click()
    await expect(page.locator(".md-math-block.md-editing")).to_have_count(1)
    await expect(source).to_be_in_viewport()
    await page.locator(".ProseMirror h1").click()
    await expect(page.locator(".md-math-block.md-editing")).to_have_count(0)
    await page.screenshot(path=str(ARTIFACTS / f"rendering-{scheme}.png"), full_page=True)
    assert await page.evaluate("window.vmarkPage.editorText()") == DOC
    doc = doc_of(vmark, tab)
    assert (doc.state.text, doc.dirty) == (DOC, False)
    assert (workspace / "rich.md").read_text("utf-8") == DOC


async def test_a_task_checkbox_changes_only_its_mark(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, tab = await rendered(pages, vmark, workspace)
    boxes = page.get_by_role("checkbox")
    await expect(boxes).to_have_count(3)
    assert [await b.get_attribute("aria-checked") for b in await boxes.all()] == ["false", "true", "false"]
    await boxes.nth(0).click()
    await wait_doc_text(vmark, tab, DOC.replace("- [ ] first", "- [x] first"))
    await expect(boxes.nth(0)).to_have_attribute("aria-checked", "true")
    await boxes.nth(1).click()
    await wait_doc_text(vmark, tab, DOC.replace("- [ ] first", "- [x] first").replace("- [x] done", "- [ ] done"))
    await boxes.nth(2).click()  # the spaces after the mark stay
    expected = DOC.replace("- [ ] first", "- [x] first").replace("- [x] done", "- [ ] done")
    expected = expected.replace("- [ ]   spaced", "- [x]   spaced")
    await wait_doc_text(vmark, tab, expected)
    await boxes.nth(0).click()
    await wait_doc_text(vmark, tab, expected.replace("- [x] first", "- [ ] first"))
    assert await page.locator("li.md-task.done").count() == 1
    await page.keyboard.press("Control+z")  # one undo takes one toggle back
    await wait_doc_text(vmark, tab, expected)


async def test_code_blocks_show_their_language_and_highlighting(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab = await rendered(pages, vmark, workspace)
    blocks = page.locator(".md-code")
    await expect(blocks).to_have_count(2)
    await expect(blocks.nth(0).locator(".md-code-lang")).to_have_text("JavaScript")
    await expect(blocks.nth(1).locator(".md-code-lang")).to_be_hidden()
    assert await blocks.nth(0).locator(".tok-keyword").first.inner_text() == "const"
    assert await blocks.nth(0).locator(".tok-comment").inner_text() == "// the answer"
    assert await blocks.nth(0).locator("code").inner_text() == "const answer = 42; // the answer"
    # Typing in highlighted code edits its text; the label is not part of it.
    await blocks.nth(0).locator(".tok-number").click()
    await page.keyboard.press("End")
    await page.keyboard.type("!")
    await wait_doc_text(vmark, tab, DOC.replace("// the answer\n", "// the answer!\n"))


async def test_tables_have_a_grid(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, _ = await rendered(pages, vmark, workspace)
    cell = page.locator(".ProseMirror td").first
    assert await cell.evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"
    assert await cell.evaluate("e => parseFloat(getComputedStyle(e).borderTopWidth)") >= 1


async def test_a_mermaid_block_is_drawn_and_its_source_kept(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    text = "# Flow\n\n```mermaid\ngraph TD\n  A[Write] --> B[Review]\n```\n\nAfter.\n"
    (workspace / "flow.md").write_text(text, "utf-8")
    (workspace / "bad.md").write_text("```mermaid\nnot a diagram at all\n```\n", "utf-8")
    page = await pages.open()
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "flow.md")
    await page.click("#mode-toggle")
    diagram = page.locator(".md-diagram img")
    await expect(diagram).to_have_count(1, timeout=20000)
    await expect(page.locator(".md-diagram")).to_have_attribute("data-state", "rendered")
    assert await diagram.evaluate("i => i.complete && i.naturalWidth > 0")
    assert "Review" in (await diagram.get_attribute("src") or "")
    await page.screenshot(path=str(ARTIFACTS / "mermaid-light.png"))
    # The source shows while the cursor is in the block.
    source = page.locator(".md-diagram-block pre")
    assert (await source.bounding_box() or {"x": 0})["x"] < 0
    await page.locator(".md-diagram").click()
    await expect(page.locator(".md-diagram-block.md-editing")).to_have_count(1)
    assert (workspace / "flow.md").read_text("utf-8") == text
    assert doc_of(vmark, tab).state.text == text
    # A diagram that does not parse says so.
    await open_from_tree(page, "bad.md")
    await page.click("#mode-toggle")
    await expect(page.locator(".md-diagram")).to_have_attribute("data-state", "error", timeout=20000)
    await expect(page.locator(".md-diagram")).to_contain_text("The diagram cannot be drawn")


async def test_tab_moves_between_table_cells_and_typing_edits_one_cell(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab = await rendered(pages, vmark, workspace)
    await page.locator(".ProseMirror th", has_text="a").click()
    await page.keyboard.press("Tab")  # to "b", selected
    await page.keyboard.type("beta")
    await wait_doc_text(vmark, tab, DOC.replace("| a | b |", "| a | beta |"))
    await page.keyboard.press("Tab")  # the next row's first cell
    await page.keyboard.type("one")
    await wait_doc_text(vmark, tab, DOC.replace("| a | b |", "| a | beta |").replace("| 1 | 2 |", "| one | 2 |"))
    await page.keyboard.press("Shift+Tab")
    await page.keyboard.type("B")
    await wait_doc_text(vmark, tab, DOC.replace("| a | b |", "| a | B |").replace("| 1 | 2 |", "| one | 2 |"))


async def test_kbd_and_other_inline_html_show_as_they_would(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    text = "Press <kbd>Ctrl</kbd>+<kbd>S</kbd>, H<sub>2</sub>O and <mark>this</mark>.\n"
    (workspace / "keys.md").write_text(text, "utf-8")
    page = await pages.open()
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "keys.md")
    await page.click("#mode-toggle")
    await page.wait_for_selector(".ProseMirror p")
    assert await page.locator(".md-html-kbd").all_inner_texts() == ["Ctrl", "S"]
    assert await page.locator(".md-html-sub").inner_text() == "2"
    assert await page.locator(".md-html-mark").inner_text() == "this"
    assert await page.locator(".md-html-kbd").first.evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"
    await expect(page.locator(".md-html-tag")).to_have_count(8)
    assert doc_of(vmark, tab).state.text == text and not doc_of(vmark, tab).dirty
