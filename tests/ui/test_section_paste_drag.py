"""Paste and drag at the edge between two of the WYSIWYG view's sections (groups of some 50 blocks, never in the
text), in real Chromium with real keys and a real mouse: the file holds exactly what the same edit writes between
any two blocks, and one Ctrl+Z gives back every byte.

The file is ``test_section_edges.py``'s: 120 paragraphs, ``Para 49`` ends the first section, ``Para 50`` starts the
second (``mdsource/sections.ts``). The clipboard is the browser's own, written as ``test_writing_paste.py`` does.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.async_api import Page

from tests.ui.lossless import Stage, click_after, dblclick_word, open_file, switch_mode
from tests.ui.lossless import scene as scene  # the fixtures this module uses
from tests.ui.lossless import stage as stage
from tests.ui.test_section_edges import TEXT
from tests.ui.test_writing_paste import paste as paste
from tests.ui.test_writing_paste import shows, write_clipboard
from tests.ui.test_writing_tables import saved
from tests.ui.writing import CLICK_PAUSE_MS, Step, keys, play, settle

HTML = "<h2>Pasted title</h2><p>Some <strong>bold</strong> text.</p>"
#: what the HTML becomes, and the Markdown text pasted as such
PASTED = "## Pasted title\n\nSome **bold** text."
#: a paste long enough for sections of its own (``replaceBlocks``): 130 paragraphs
LONG = "\n\n".join(f"New {n} line." for n in range(130))
#: paragraphs 48 to 51, which a selection from the end of 48 three lines down covers
ACROSS = "Para 48 words.\n\nPara 49 words.\n\nPara 50 words.\n\nPara 51 words."


@dataclass(frozen=True)
class Paste:
    id: str
    #: the visible text the caret goes right after, then the keys before Ctrl+V (a selection, Home)
    at: str
    before: tuple[Step, ...]
    html: str | None
    text: str
    want: str


PASTES = [
    # A selection from the end of the first section's third last block into the second section, replaced.
    Paste(
        "html-over-selection-across",
        "Para 48 words.",
        keys(*["Shift+ArrowDown"] * 3),
        HTML,
        "Pasted title",
        TEXT.replace(ACROSS, f"Para 48 words.\n\n{PASTED}"),
    ),
    Paste(
        "markdown-over-selection-across",
        "Para 48 words.",
        keys(*["Shift+ArrowDown"] * 3),
        None,
        PASTED,
        TEXT.replace(ACROSS, f"Para 48 words.\n\n{PASTED}"),
    ),
    # The caret at the end of the first section's last block: the blocks go between the two sections' blocks.
    Paste(
        "html-at-section-end",
        "Para 49 words.",
        (),
        HTML,
        "Pasted title",
        TEXT.replace("Para 49 words.\n\n", f"Para 49 words.\n\n{PASTED}\n\n"),
    ),
    # The caret at the start of the second section's first block.
    Paste(
        "markdown-at-section-start",
        "Para 50 words.",
        keys("Home"),
        None,
        PASTED,
        TEXT.replace("Para 50 words.", f"{PASTED}\n\nPara 50 words."),
    ),
    # A long paste at the edge: its blocks go into sections of their own.
    Paste(
        "long-markdown-at-section-end",
        "Para 49 words.",
        (),
        None,
        LONG,
        TEXT.replace("Para 49 words.\n\n", f"Para 49 words.\n\n{LONG}\n\n"),
    ),
]


async def _open(s: Stage, name: str) -> None:
    path = s.write(name, TEXT.encode())
    await open_file(s, path)
    await switch_mode(s, "wysiwyg")


async def _caret_after(s: Stage, text: str) -> None:
    """A click right after ``text``, then a person's pause before the next key (``CLICK_PAUSE_MS``)."""
    await click_after(s.page, text)
    await s.page.wait_for_timeout(CLICK_PAUSE_MS)


async def _saved_then_undone(s: Stage, name: str, want: str) -> None:
    """Ctrl+S: the file holds ``want``; then Ctrl+Z and Ctrl+S: it holds the start's bytes again."""
    path = s.path(name)
    await shows(s, want)
    await saved(s, path, want.encode())
    await s.page.keyboard.press("Control+z")
    await shows(s, TEXT)
    await saved(s, path, TEXT.encode())


@pytest.mark.parametrize("case", PASTES, ids=lambda c: c.id)
async def test_paste_at_a_section_edge(paste: Stage, case: Paste) -> None:
    s = paste
    name = f"{case.id}.md"
    await _open(s, name)
    await _caret_after(s, case.at)
    await play(s.page, case.before)
    await write_clipboard(s.page, html=case.html, text=case.text)
    await s.page.keyboard.press("Control+v")
    await _saved_then_undone(s, name, case.want)


#: a point of the first occurrence of ``anchor`` in one text node of the editor, as it is on screen now: the middle of
#: ``part`` (a piece of the anchor), or with no part the right end of the anchor (a caret there)
_POINT = """
([anchor, part]) => {
  const walker = document.createTreeWalker(document.querySelector(".ProseMirror"), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(anchor);
    if (at < 0) continue;
    const range = document.createRange();
    const from = part ? at + anchor.indexOf(part) : at + anchor.length - 1;
    range.setStart(node, from);
    range.setEnd(node, part ? from + part.length : from + 1);
    const rect = range.getBoundingClientRect();
    return { x: part ? rect.left + rect.width / 2 : rect.right - 1, y: rect.top + rect.height / 2 };
  }
  return null;
}
"""


async def _point(page: Page, anchor: str, part: str = "") -> tuple[float, float]:
    point = await page.evaluate(_POINT, [anchor, part])
    assert point is not None, f"the editor shows no {anchor!r} in one piece"
    return point["x"], point["y"]


async def test_drag_a_selected_word_into_the_next_section(scene: Stage) -> None:
    """A word of the first section's third last block, double-clicked, dragged with the mouse to after ``Para 52``
    (the second section): the word moves, as it would between any two blocks; one Ctrl+Z puts it back."""
    s = scene
    name = "drag-across.md"
    await _open(s, name)
    await dblclick_word(s.page, "Para 48 words")  # scrolled to the middle of the screen, Para 52 below it
    assert await s.page.evaluate("String(document.getSelection())") == "words"
    x0, y0 = await _point(s.page, "Para 48 words", "words")
    x1, y1 = await _point(s.page, "Para 52")
    await s.page.mouse.move(x0, y0)
    await s.page.mouse.down()
    await s.page.mouse.move(x0 + 5, y0 + 5, steps=3)
    await s.page.mouse.move(x1, y1, steps=10)
    await s.page.mouse.up()
    await settle(s.page)
    want = TEXT.replace("Para 48 words.", "Para 48 .").replace("Para 52 words.", "Para 52words words.")
    await _saved_then_undone(s, name, want)


async def test_copy_across_a_section_edge_pastes_the_same_blocks(paste: Stage) -> None:
    """Paragraphs 48 to 51 (two in each section) selected by keys, copied with Ctrl+C, and pasted with Ctrl+V after
    the last paragraph: the browser's clipboard carries the view's HTML (sections included), and the paste gives the
    same four paragraphs, not a section's wrapper nor an escape."""
    s = paste
    name = "copy-across.md"
    await _open(s, name)
    await _caret_after(s, "Para 48 words.")
    await s.page.keyboard.press("Home")
    await play(s.page, keys(*["Shift+ArrowDown"] * 3, "Shift+End", "Control+c"))
    copied = await s.page.evaluate("navigator.clipboard.readText()")
    assert copied == ACROSS
    await _caret_after(s, "Para 119 words.")
    await play(s.page, keys("Enter", "Control+v"))
    want = TEXT + ACROSS + "\n\n"
    await shows(s, want)
    await saved(s, s.path(name), want.encode())
