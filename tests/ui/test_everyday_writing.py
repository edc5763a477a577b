"""Spell checking, focus mode and typewriter mode in both modes, in real Chromium with real keys.

- Spelling: the browser's checker is on in prose and off in code blocks, inline code, math and front matter
  (the effective ``spellcheck`` of each piece of text); the ``editor.spellcheck`` setting turns it off.
- Focus mode (F8, the palette, ``editor.focus_mode``): the block the caret is in stands out, the rest is dimmed.
- Typewriter mode (F9, ``editor.typewriter_mode``): typing and moving the caret by keys keep its line in the
  middle of the editor (measured: the caret's rect against the editor's).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import ARTIFACTS, Pages
from tests.ui.everyday import open_file_in
from tests.ui.helpers import wait_doc_text
from vmark.app.server import RunningApp

MIXED = (
    "---\ntitle: Frontmattr\n---\n\n"
    "Prose wordz here with `inlinecodez` inside.\n\n"
    "```python\ncodeblockz = 1\n```\n\n"
    "$$\nmathz + 1\n$$\n\n"
    "A [linkz](https://exampel.org/pathz) and $inlinemathz$ too.\n"
)
#: both modes, and each one's editable element and scrolling box
MODES = pytest.mark.parametrize("mode", ["source", "wysiwyg"])
EDITABLE = {"source": ".cm-content", "wysiwyg": ".ProseMirror"}
SCROLLER = {"source": ".cm-scroller", "wysiwyg": "#editor"}
PARAGRAPHS = "".join(f"Paragraph {n} says something.\n\n" for n in range(1, 81))


async def _spellchecked(page: Page, text: str) -> bool:
    """Whether the browser checks the spelling of the editor's text ``text`` (its element's effective spellcheck)."""
    found = await page.evaluate(
        """text => {
            const root = document.querySelector('#editor');
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                if (node.textContent.includes(text)) return node.parentElement.spellcheck;
            }
            return null;
        }""",
        text,
    )
    assert found is not None, f"{text!r} is not in the editor"
    return bool(found)


async def _stored(vmark: RunningApp, key: str) -> object:
    data = json.loads((vmark.data_dir / "settings.json").read_text("utf-8"))
    return data.get(key)


# --- spelling ------------------------------------------------------------------------------------------------
@MODES
async def test_spelling_is_checked_in_prose_only_and_the_setting_turns_it_off(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str
) -> None:
    page, _ = await open_file_in(pages, workspace, "mixed.md", MIXED.encode(), mode)
    await expect(page.locator(EDITABLE[mode])).to_have_attribute("spellcheck", "true")
    assert await _spellchecked(page, "Prose wordz here with")
    assert await _spellchecked(page, " too.")
    for not_prose in ("inlinecodez", "codeblockz", "mathz", "Frontmattr"):
        assert not await _spellchecked(page, not_prose), not_prose
    if mode == "source":  # the address and inline math show only in the source
        assert not await _spellchecked(page, "exampel.org")
        assert not await _spellchecked(page, "inlinemathz")

    # The settings dialog's switch turns it off everywhere, and it is remembered.
    await page.click("#settings-open")
    switch = page.locator(".setting[data-key='editor.spellcheck'] [role=switch]")
    await expect(switch).to_be_checked()
    await switch.click()
    await wait_until(lambda: _is(vmark, "editor.spellcheck", False), "the setting stored")
    await page.keyboard.press("Escape")
    await expect(page.locator(EDITABLE[mode])).to_have_attribute("spellcheck", "false")
    assert not await _spellchecked(page, "Prose wordz here with")
    await page.click("#mode-toggle")  # the other mode too
    other = EDITABLE["wysiwyg" if mode == "source" else "source"]
    await expect(page.locator(other)).to_have_attribute("spellcheck", "false")


async def _is(vmark: RunningApp, key: str, value: object) -> bool:
    return await _stored(vmark, key) == value


# --- focus mode ----------------------------------------------------------------------------------------------
FOCUS = "# Title\n\nFirst paragraph\nwith a soft break.\n\n- item one\n- item two\n\nLast paragraph.\n"


async def _opacity(page: Page, selector: str) -> float:
    return float(await page.eval_on_selector(selector, "e => getComputedStyle(e).opacity"))


async def _dimmed(page: Page, selector: str, dimmed: bool = True) -> None:
    """Wait until the element is dimmed (0.3) or not (1): the style sheet fades it."""
    want = 0.3 if dimmed else 1.0

    async def reached() -> bool:
        return abs(await _opacity(page, selector) - want) < 0.001

    try:
        await wait_until(reached, f"{selector} {'dimmed' if dimmed else 'lit'}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; its opacity is {await _opacity(page, selector)}") from None


async def test_focus_mode_in_wysiwyg_dims_all_but_the_current_block(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, _ = await open_file_in(pages, workspace, "focus.md", FOCUS.encode(), "wysiwyg")
    first = page.locator(".ProseMirror > .pm-section > p").first
    await first.click()
    await page.keyboard.press("F8")
    await expect(page.locator("html")).to_have_attribute("data-focus-mode", "")
    await expect(first).to_contain_class("focus-path focus-current")
    await _dimmed(page, ".ProseMirror > .pm-section > p:first-of-type", False)
    await _dimmed(page, ".ProseMirror > .pm-section > h1")
    await _dimmed(page, ".ProseMirror > .pm-section > ul")
    await wait_until(lambda: _is(vmark, "editor.focus_mode", True), "focus mode remembered")

    # Down into the list: the list stays lit around its current item's paragraph; the other item is dimmed.
    await page.keyboard.press("ArrowDown")
    await expect(page.locator(".ProseMirror > .pm-section > ul")).to_contain_class("focus-path")
    await expect(page.locator(".ProseMirror li p").first).to_contain_class("focus-current")
    await _dimmed(page, ".ProseMirror > .pm-section > ul", False)
    await _dimmed(page, ".ProseMirror li:nth-child(1) p", False)
    await _dimmed(page, ".ProseMirror li:nth-child(2) p")
    await _dimmed(page, ".ProseMirror > .pm-section > p:first-of-type")

    # Remembered: a new page starts in focus mode; F8 turns it off.
    again = await pages.open()
    await expect(again.locator("html")).to_have_attribute("data-focus-mode", "")
    await page.keyboard.press("F8")
    await expect(page.locator("html")).not_to_have_attribute("data-focus-mode", "")
    await _dimmed(page, ".ProseMirror > .pm-section > h1", False)
    await wait_until(lambda: _is(vmark, "editor.focus_mode", False), "focus mode off remembered")


async def test_focus_mode_in_source_lights_the_current_paragraphs_lines(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, _ = await open_file_in(pages, workspace, "focus.md", FOCUS.encode(), "source")
    await page.locator(".cm-line", has_text="with a soft break.").click()
    await page.keyboard.press("Control+Shift+P")
    await page.keyboard.type("Toggle focus mode")
    await page.keyboard.press("Enter")
    current = page.locator(".cm-line.cm-focus-current")
    await expect(current).to_have_text(["First paragraph", "with a soft break."])
    await _dimmed(page, ".cm-line:not(.cm-focus-current)")
    await _dimmed(page, ".cm-line.cm-focus-current", False)
    await page.keyboard.press("Control+End")
    await expect(current).to_have_text([""])  # the last, empty line: a paragraph of its own
    await page.keyboard.press("ArrowUp")
    await expect(current).to_have_text(["Last paragraph."])


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_screenshot_of_focus_mode(pages: Pages, vmark: RunningApp, workspace: Path, scheme: str) -> None:
    page, _ = await open_file_in(pages, workspace, "focus.md", FOCUS.encode(), "wysiwyg", scheme)
    await page.locator(".ProseMirror > .pm-section > p").first.click()
    await page.keyboard.press("F8")
    await expect(page.locator(".ProseMirror > .pm-section > p").first).to_contain_class("focus-path focus-current")
    await _dimmed(page, ".ProseMirror > .pm-section > ul")
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"everyday-focus-mode-{scheme}.png"))
    await page.keyboard.press("F8")  # leave the setting as it was


# --- typewriter mode -----------------------------------------------------------------------------------------
async def _caret_offset(page: Page, scroller: str) -> tuple[float, float]:
    """How far the caret's line is from the middle of the editor's scrolling box, and the line's height."""
    offset = await page.evaluate(
        """scroller => {
            const box = document.querySelector(scroller);
            const range = getSelection().getRangeAt(0);
            let rect = range.getBoundingClientRect();
            if (!rect.height) rect = range.startContainer.parentElement.getBoundingClientRect();
            const frame = box.getBoundingClientRect();
            return [(rect.top + rect.bottom) / 2 - (frame.top + box.clientHeight / 2), rect.height];
        }""",
        scroller,
    )
    return float(offset[0]), float(offset[1])


async def _centred(page: Page, scroller: str) -> bool:
    off, height = await _caret_offset(page, scroller)
    return abs(off) <= max(height, 16) / 2


@MODES
async def test_typewriter_mode_keeps_the_caret_line_in_the_middle(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str
) -> None:
    page, tab = await open_file_in(pages, workspace, "long.md", PARAGRAPHS.encode(), mode)
    scroller = SCROLLER[mode]
    paragraph = ".cm-line" if mode == "source" else ".ProseMirror > .pm-section > p"
    line = page.locator(paragraph, has_text="Paragraph 12 says")
    await line.click()
    await page.keyboard.press("F9")
    await expect(page.locator("html")).to_have_attribute("data-typewriter", "")
    await page.keyboard.press("End")
    await page.keyboard.type(" More")
    await wait_doc_text(
        vmark, tab, PARAGRAPHS.replace("Paragraph 12 says something.", "Paragraph 12 says something. More")
    )
    await wait_until(lambda: _centred(page, scroller), "the caret's line in the middle after typing")
    for _ in range(6):
        await page.keyboard.press("ArrowDown")
    await wait_until(lambda: _centred(page, scroller), "the caret's line in the middle after moving down")
    # Near the top the padding lets the first line be in the middle too.
    await page.keyboard.press("Control+Home")
    await page.keyboard.type("X")
    await wait_until(lambda: _centred(page, scroller), "the first line in the middle")
    await wait_until(lambda: _is(vmark, "editor.typewriter_mode", True), "typewriter mode remembered")
    await page.keyboard.press("F9")
    await expect(page.locator("html")).not_to_have_attribute("data-typewriter", "")
