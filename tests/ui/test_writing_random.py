"""Random sequences of real key presses in WYSIWYG (characters, Enter, Backspace, Tab, Shift+Tab, arrows, the block
keys, undo), in Chromium. After each sequence:

- every block the caret never entered keeps its bytes (the start file is framed by sentinel paragraphs, each with
  a word of its own; which ones the caret was in is read from the page after every key);
- the text parses to what the view shows: the view's blocks and text equal those of the same text opened afresh
  (the page's source mode and back, which builds the view from the text alone).

A bounded number of sequences runs in the suite (``WRITING_RUNS``, default 5); ``WRITING_SEED`` picks others
(``random``: a new one each run, printed).
"""

from __future__ import annotations

import os
import random

import pytest
from playwright.async_api import Page

from tests.contract.helpers import wait_until
from tests.ui.lossless import Stage, click_after, open_file, switch_mode
from tests.ui.lossless import scene as scene  # the fixtures this module uses
from tests.ui.lossless import stage as stage
from tests.ui.writing import CLICK_PAUSE_MS, KEY_GAP_MS, settle

PIECES = [
    "# A heading",
    "A paragraph with *emphasis*, `code`, a [link](https://example.com) and [[wiki]].",
    "- one\n- two\n  - nested",
    "1. first\n2. second",
    "- [ ] task\n- [x] done",
    "> a quote\n> on two lines",
    "```python\nprint(1)\n```",
    "Line one\\\nline two",
    "Text with snake_case, 2 * 3 and a <b>tag</b>.",
    "$$\nx^2\n$$",
]
KEYS = [
    *"abc *_#-`[]>1.",
    "Enter",
    "Enter",
    "Backspace",
    "Backspace",
    "Tab",
    "Shift+Tab",
    "Shift+Enter",
    "ArrowLeft",
    "ArrowRight",
    "ArrowUp",
    "ArrowDown",
    "Home",
    "End",
    "Control+2",
    "Control+0",
    "Control+Shift+8",
    "Control+Shift+7",
    "Control+Alt+q",
    "Control+z",
]
SENTINELS = 4
SEQUENCE = 10

_SEED = os.environ.get("WRITING_SEED", "20261202")
SEED = random.randrange(2**31) if _SEED == "random" else int(_SEED)
RUNS = int(os.environ.get("WRITING_RUNS", "5"))

#: the view's blocks as a tree of tags and texts: what a person sees, not how it is drawn (no empty paragraph of
#: the view's own, no widget, no code label, no rendered formula)
_OUTLINE = """
() => {
  const skip = (el) => el.matches(
    ".md-code-lang, .md-math-display, .md-diagram, .md-task-box, .ProseMirror-widget, br.ProseMirror-trailingBreak");
  const walk = (el) => {
    const out = [];
    for (const child of el.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) { if (child.data) out.push(child.data); continue; }
      if (child.nodeType !== Node.ELEMENT_NODE || skip(child)) continue;
      const empty = child.tagName === "P" && child.textContent === "";
      if (empty && !child.querySelector("img, br:not(.ProseMirror-trailingBreak)")) continue;
      out.push([child.tagName, ...walk(child)]);
    }
    return out;
  };
  return walk(document.querySelector(".ProseMirror"));
}
"""

#: which sentinels' words are in the block the caret is in (the top-level block of the selection's focus)
_CARET_BLOCK = """
() => {
  const sel = getSelection();
  let node = sel && sel.focusNode;
  const root = document.querySelector(".ProseMirror");
  while (node && node.parentNode !== root) node = node.parentNode;
  return node ? Array.from((node.textContent || "").matchAll(/Sentinel(\\d+)/g), (m) => Number(m[1])) : [];
}
"""


def sentinel(k: int) -> str:
    return f"Sentinel{k} paragraph stays as it is."


def start_text(rng: random.Random) -> str:
    middle = rng.sample(PIECES, 3)
    blocks = [sentinel(k) for k in range(SENTINELS)] + middle + [sentinel(SENTINELS + k) for k in range(SENTINELS)]
    return "\n\n".join(blocks) + "\n"


async def outline(page: Page) -> list[object]:
    return _trimmed(list(await page.evaluate(_OUTLINE)))


def _trimmed(items: list[object]) -> list[object]:
    """Spaces at a block's edges dropped: the view keeps the spaces a person just typed there, a parse does not."""
    out: list[object] = [_trimmed(i) if isinstance(i, list) else i for i in items]
    if out and isinstance(out[-1], str):
        out[-1] = out[-1].rstrip(" \t")
    if len(out) > 1 and isinstance(out[1], str):
        out[1] = out[1].lstrip(" \t")
    return [i for i in out if i != ""]


async def one_sequence(s: Stage, rng: random.Random, run: int) -> None:
    text = start_text(rng)
    keys = [rng.choice(KEYS) for _ in range(SEQUENCE)]
    label = f"seed {SEED}, run {run}: keys {keys} on {text!r} (page errors: {s.errors})"
    path = s.write(f"random-{run}.md", text.encode())
    await open_file(s, path)
    await switch_mode(s, "wysiwyg")
    # The caret starts at the end of a word in the middle pieces.
    words = [w for w in PIECES if w in text]
    anchor = {"# A heading": "heading", "- one\n- two\n  - nested": "two", "1. first\n2. second": "first"}.get(words[0])
    await click_after(s.page, anchor or _visible_word(words[0]))
    await s.page.wait_for_timeout(CLICK_PAUSE_MS)
    visited: set[int] = set()
    for key in keys:
        await s.page.keyboard.press(key, delay=KEY_GAP_MS)
        await s.page.wait_for_timeout(KEY_GAP_MS)
        visited.update(int(k) for k in await s.page.evaluate(_CARET_BLOCK))
    await settle(s.page)
    after = str(await s.page.evaluate("window.vmarkPage.editorText()"))
    for k in range(2 * SENTINELS):
        if k not in visited:
            assert f"\n{sentinel(k)}\n" in f"\n{after}\n", (
                f"{label}: sentinel {k} lost its bytes; the text is {after!r}"
            )
    shown = await outline(s.page)
    await switch_mode(s, "source")
    await switch_mode(s, "wysiwyg")
    await wait_until(lambda: _text_is(s.page, after), "the text to stay across the mode switch")
    fresh = await outline(s.page)
    assert shown == fresh, f"{label}: the view showed {shown!r} but the text {after!r} reads {fresh!r}"


async def _text_is(page: Page, text: str) -> bool:
    return bool(await page.evaluate("window.vmarkPage.editorText()") == text)


def _visible_word(piece: str) -> str:
    for word in ("paragraph", "task", "quote", "print", "Line one", "snake", "x^2"):
        if word in piece:
            return word
    return piece.split()[0]


@pytest.mark.parametrize("run", range(RUNS))
async def test_random_keys_keep_untouched_blocks_and_the_view_true_to_the_text(scene: Stage, run: int) -> None:
    rng = random.Random(SEED * 1000 + run)
    await one_sequence(scene, rng, run)
