"""The scenes of the lossless-WYSIWYG tests: one app and one page per module, a person's keystrokes and saves,
and the bytes a file must hold afterwards, computed on the Python side (markdown-it-py), not by the editor.

The app runs in this process and one page (window ``main``) is reused by a module's tests: each test opens its
own file, and every tab is closed after it. A failing test leaves a screenshot in ``tests/ui/artifacts/`` and
gets a fresh page, so one broken editor cannot fail the tests after it.
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from playwright.async_api import Browser, BrowserContext, Page, expect

from tests.contract.helpers import wait_until
from tests.corpora import CORPORA
from tests.ui.conftest import ARTIFACTS, FAILED, new_context
from tests.ui.helpers import open_folder
from vmark.app.server import RunningApp
from vmark.storage.settings import Settings
from vmark.testing.uiclient import UIClient

#: the one character the person types in every scenario (a letter: no input rule, no Markdown syntax)
KEY = "Q"
#: the corpus of real Markdown files beside the repository
CORPUS = CORPORA / "markdown"
SAVE_TIMEOUT_MS = 15_000


# --- the stage: one app, one page -----------------------------------------------------------------------------
@dataclass
class Stage:
    app: RunningApp
    browser: Browser
    folder: Path
    operator: UIClient
    page: Page = field(init=False)
    context: BrowserContext = field(init=False)
    #: uncaught exceptions of the page since the current test began (shown with a failure)
    errors: list[str] = field(default_factory=list)

    async def new_page(self) -> None:
        self.context = await new_context(self.browser)
        self.page = await self.context.new_page()
        self.page.on("pageerror", lambda exc: self.errors.append(f"{exc.name}: {exc.message}"))
        self.page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
        response = await self.page.goto(self.app.ui_url + "&window=main")
        assert response is not None and response.status == 200, response
        await self.page.wait_for_selector("body[data-ready=true]")
        await open_folder(self.page, self.folder)

    async def close_tabs(self) -> None:
        """Close every tab of window ``main`` (force: a failed test may leave one dirty); the page shows none."""
        window = self.app.app.session.windows.get("main")
        for tab in list(window.tabs if window else []):
            await self.operator.call("ui.close", tabId=tab.id, force=True)
        await expect(self.page.locator(".tab")).to_have_count(0)

    def path(self, name: str) -> Path:
        return self.folder / name

    def write(self, name: str, data: bytes) -> Path:
        path = self.folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path


@pytest.fixture(scope="module")
async def stage(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stage]:
    tmp = tmp_path_factory.mktemp("lossless")
    data_dir, folder = tmp / "data", tmp / "ws"
    data_dir.mkdir()
    folder.mkdir()
    Settings(data_dir / "settings.json").set("readable_roots", [str(tmp)])
    Settings(data_dir / "settings.json").set("editor.default_mode", "source")  # the scenes toggle from source
    app = RunningApp(data_dir, test_hooks=True)
    await app.start()
    try:
        async with UIClient(data_dir) as operator:
            s = Stage(app, browser, folder.resolve(), operator)
            await s.new_page()
            try:
                yield s
            finally:
                await s.context.close()
    finally:
        await app.stop()


@pytest.fixture
async def scene(stage: Stage, request: pytest.FixtureRequest) -> AsyncIterator[Stage]:
    """The module's stage for one test: a screenshot and a fresh page after a failure, no tab left open.

    The notifications of earlier tests are taken off the page first: they pile up in a corner for 8 s each
    and would cover what a test clicks.
    """
    stage.errors.clear()
    await stage.page.evaluate("document.querySelectorAll('.toast').forEach(t => t.remove())")
    yield stage
    if request.node.stash.get(FAILED, False):
        ARTIFACTS.mkdir(exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        try:
            await stage.page.screenshot(path=str(ARTIFACTS / f"{safe}.png"), timeout=10_000)
        finally:
            await stage.context.close()
            await stage.new_page()
            await stage.close_tabs()
        return
    violations = await stage.page.evaluate("window.__cspViolations.splice(0)")
    await stage.close_tabs()
    assert violations == [], f"Content-Security-Policy violations in the page: {violations}"


# --- the person's side ----------------------------------------------------------------------------------------
async def open_file(s: Stage, path: Path) -> str:
    """Open ``path`` through the Open file picker (its path typed, Enter); the page shows it in source mode."""
    await s.page.click("#open-file")
    await s.page.fill("[data-testid=picker-filter]", str(path))
    await s.page.press("[data-testid=picker-filter]", "Enter")
    await s.page.wait_for_selector(f".tab.active .title:text-is('{path.stem}')")
    await wait_until(lambda: _has_mode(s.page, "source"), f"{path.name} to show in source mode")
    tab = await s.page.evaluate("window.vmarkPage.tabId()")
    return str(tab)


async def _has_mode(page: Page, mode: str) -> bool:
    shown = await page.evaluate("window.vmarkPage.mode()")
    return bool(shown == mode and await page.evaluate("window.vmarkPage.editorText() !== null"))


async def switch_mode(s: Stage, mode: str) -> None:
    """Click the mode toggle; wait until the tab shows ``mode`` and its editor is in the page."""
    await s.page.click("#mode-toggle")
    await wait_until(lambda: _has_mode(s.page, mode), f"the tab to show {mode}", timeout=30)
    await s.page.wait_for_selector(".ProseMirror" if mode == "wysiwyg" else ".cm-content", timeout=30_000)


async def save(s: Stage, path: Path) -> None:
    """Ctrl+S, as the person saves; wait for the page's "Saved PATH" (an error toast fails at once)."""
    saved = s.page.locator(".toast").filter(has_text=re.compile(f"^Saved {re.escape(str(path))}$"))
    errors = s.page.locator(".toast.error")
    before = await errors.count()
    await s.page.keyboard.press("Control+s")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SAVE_TIMEOUT_MS / 1000
    while not await saved.count():
        if await errors.count() > before:
            raise AssertionError(f"saving {path.name} failed: {await errors.last.inner_text()}")
        if loop.time() > deadline:
            raise AssertionError(f"{path.name} was not saved within {SAVE_TIMEOUT_MS / 1000:.0f} s")
        await asyncio.sleep(0.02)


#: the point on the right half of ``range``'s last character, scrolled into view, where nothing covers it (a click
#: there puts the caret after that character); else what covers it. ``settle`` first waits for the layout to stop
#: moving (a click measured while images load lands elsewhere): fonts loaded, every image complete (loaded or
#: failed), and the element's box the same over two animation frames (Playwright's "stable" check for clicks).
_CLICKABLE = """
  const settle = async (element) => {
    await document.fonts.ready;
    let before = "";
    for (let frame = 0; frame < 600; frame++) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
      const box = element.getBoundingClientRect();
      const now = [box.x, box.y, box.width, box.height].join();
      if (now === before && [...document.images].every((img) => img.complete)) return;
      before = now;
    }
  };
  const clickable = (element, range, scope) => {
    let covered = "";
    for (const block of ["center", "start", "end"]) {
      element.scrollIntoView({ block });
      const rects = range.getClientRects();
      const rect = rects[rects.length - 1];
      const x = rect.right - Math.min(1, rect.width / 4), y = rect.top + rect.height / 2;
      const hit = document.elementFromPoint(x, y);
      if (hit && (scope.contains(hit) || hit.contains(element))) return { x, y };
      covered = hit ? hit.outerHTML.slice(0, 120) : "nothing (off screen)";
    }
    return { covered };
  };
"""

_CLICK_AFTER = (
    """
async ([root, anchor, nth]) => {"""
    + _CLICKABLE
    + """
  // The nth occurrence of `anchor` in one text node under `root`: where to click to put the caret after it.
  const scope = document.querySelector(root);
  if (!scope) return null;
  const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  let seen = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let at = node.data.indexOf(anchor); at >= 0; at = node.data.indexOf(anchor, at + 1)) {
      if (seen++ !== nth) continue;
      const range = document.createRange();
      const end = at + anchor.length;
      range.setStart(node, end - 1);
      range.setEnd(node, end);
      await settle(node.parentElement);
      return clickable(node.parentElement, range, scope);
    }
  }
  return null;
}
"""
)

_CLICK_PARAGRAPH_END = (
    """
async ([index]) => {"""
    + _CLICKABLE
    + """
  // The end of the last character of top-level paragraph `index` of the WYSIWYG view.
  const p = document.querySelectorAll(".ProseMirror > .pm-section > p")[index];
  if (!p) return null;
  const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
  let last = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if (node.data.length) last = node;
  if (!last) return null;
  const range = document.createRange();
  range.setStart(last, last.data.length - 1);
  range.setEnd(last, last.data.length);
  await settle(p);
  return clickable(p, range, p);
}
"""
)


_CARET_AFTER = """
([anchor]) => {
  // Whether the caret is collapsed right after the text `anchor` (in one text node).
  const selection = document.getSelection();
  const node = selection && selection.isCollapsed ? selection.focusNode : null;
  if (!node || node.nodeType !== Node.TEXT_NODE) return false;
  const at = selection.focusOffset;
  return at >= anchor.length && node.data.slice(at - anchor.length, at) === anchor;
}
"""


async def click_after(page: Page, anchor: str, nth: int = 0, root: str = ".ProseMirror") -> None:
    """Click right after the ``nth`` occurrence of the visible text ``anchor`` (within one text node).

    The point is measured once the layout is still; as a person would, click again (measured again) when the caret
    did not land there."""
    for _attempt in range(5):
        point = await page.evaluate(_CLICK_AFTER, [root, anchor, nth])
        assert point is not None, f"the editor shows no {anchor!r} (occurrence {nth}) in one piece"
        assert "covered" not in point, f"{anchor!r} is covered on screen by {point['covered']}"
        await page.mouse.click(point["x"], point["y"])
        if await page.evaluate(_CARET_AFTER, [anchor]):
            return
    raise AssertionError(f"the caret does not stay right after {anchor!r}")


async def dblclick_word(page: Page, anchor: str, root: str = ".ProseMirror") -> None:
    """Double-click the word that ends ``anchor``'s text (the browser selects that word)."""
    point = await page.evaluate(_CLICK_AFTER, [root, anchor, 0])
    assert point is not None, f"the editor shows no {anchor!r} in one piece"
    assert "covered" not in point, f"{anchor!r} is covered on screen by {point['covered']}"
    await page.mouse.dblclick(point["x"] - 2, point["y"])


_CARET_AT_PARAGRAPH_END = """
([index]) => {
  // Whether the caret is collapsed right after the last character of top-level paragraph `index`.
  const p = document.querySelectorAll(".ProseMirror > .pm-section > p")[index];
  const selection = document.getSelection();
  if (!p || !selection || !selection.isCollapsed || !selection.focusNode) return false;
  const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
  let last = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if (node.data.length) last = node;
  return last !== null && selection.focusNode === last && selection.focusOffset === last.data.length;
}
"""


async def click_paragraph_end(page: Page, index: int) -> None:
    """Click on the end of top-level paragraph ``index`` of the WYSIWYG view, then End (its last line's end).

    The point is measured once the layout is still (images loading or failing above the paragraph would move it
    between the measure and the click); as a person would, click again when the caret did not land there."""
    for _attempt in range(5):
        point = await page.evaluate(_CLICK_PARAGRAPH_END, [index])
        assert point is not None, f"WYSIWYG paragraph {index} has no text to click"
        assert "covered" not in point, f"the end of paragraph {index} is covered on screen by {point['covered']}"
        await page.mouse.click(point["x"], point["y"])
        await page.keyboard.press("End")
        if await page.evaluate(_CARET_AT_PARAGRAPH_END, [index]):
            return
    raise AssertionError(f"the caret does not stay at the end of WYSIWYG paragraph {index}")


async def wysiwyg_paragraphs(page: Page) -> list[str]:
    """The text of every top-level paragraph of the WYSIWYG view, whitespace collapsed."""
    texts = await page.evaluate(_PARAGRAPH_TEXTS)
    return [squash(t) for t in texts]


#: the text of each top-level paragraph, a hard break (``<br>``) read as a space, as the Python side reads it
_PARAGRAPH_TEXTS = """
() => Array.from(document.querySelectorAll(".ProseMirror > .pm-section > p"), (p) => {
  let text = "";
  const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeType === Node.TEXT_NODE) text += node.data;
    else if (node.nodeName === "BR") text += " ";
  }
  return text;
})
"""


async def wait_paragraph_end(page: Page, index: int, end: str) -> None:
    """Wait until top-level WYSIWYG paragraph ``index`` ends with ``end`` (the key typed at its end is shown)."""
    shown: list[str] = []

    async def ends() -> bool:
        nonlocal shown
        shown = await wysiwyg_paragraphs(page)
        return index < len(shown) and shown[index].endswith(end)

    try:
        await wait_until(ends, f"WYSIWYG paragraph {index} to end with {end!r}", timeout=5)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; it reads {shown[index] if index < len(shown) else None!r}") from None


async def source_caret_at_line_end(page: Page, line: int) -> None:
    """Put the source editor's caret at the end of 1-based ``line`` with CodeMirror's go-to-line (Ctrl+Alt+G).

    ``LINE:COLUMN`` with a column past the end lands at the line's end, whatever its wrapping on screen.
    """
    await page.locator(".cm-content").click()
    await page.keyboard.press("Control+Alt+g")
    field_ = page.locator(".cm-goto-line input[name=line]")
    await field_.fill(f"{line}:1000000")
    await field_.press("Enter")
    await expect(page.locator(".cm-goto-line")).to_have_count(0)
    await expect(page.locator(".cm-content")).to_be_focused()


# --- the expected bytes, from the Python side -----------------------------------------------------------------
def parser() -> MarkdownIt:
    """CommonMark with HTML, GFM tables and strikethrough, front matter, ``$``/``$$`` math and footnotes."""
    return (
        MarkdownIt("commonmark", {"html": True})
        .enable(["table", "strikethrough"])
        .use(front_matter_plugin)
        .use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)
        .use(footnote_plugin)
    )


def squash(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


@dataclass(frozen=True)
class Paragraph:
    """A top-level paragraph that ends in plain text: where a key typed at its end goes in the source."""

    #: 0-based line of the source where the paragraph ends
    line: int
    #: the visible text of the paragraph's last run of text (whitespace collapsed): how the page shows its end
    suffix: str
    #: paragraphs before it (top-level, in source order) whose visible text ends with the same suffix
    nth: int


_TEXTUAL = {
    "text",
    "code_inline",
    "softbreak",
    "hardbreak",
    "strong_open",
    "strong_close",
    "em_open",
    "em_close",
    "s_open",
    "s_close",
    "link_open",
    "link_close",
}


def _visible_end(inline: Token) -> str:
    """The visible text after the last non-textual inline (an image, inline HTML, math), whitespace collapsed."""
    parts: list[str] = []
    for child in reversed(inline.children or []):
        if child.type not in _TEXTUAL:
            break
        if child.type in {"text", "code_inline"}:
            parts.append(child.content)
        elif child.type in {"softbreak", "hardbreak"}:
            parts.append(" ")
    return squash("".join(reversed(parts)))[-60:]


def first_plain_paragraph(text: str) -> Paragraph | None:
    """The first top-level paragraph whose source ends with the last character of its visible text.

    That excludes paragraphs ending in markup (``**``, a link's ``)``, a code span's backtick, an entity, an
    image, inline HTML or math) and in trailing spaces or a backslash: at the end of those, where a typed key
    belongs (inside the mark or after it) is the editor's choice, not a fact of the source.
    """
    lines = text.split("\n")
    tokens = parser().parse(text)
    ends: list[str] = []
    for n, token in enumerate(tokens):
        if token.type != "paragraph_open" or token.level != 0 or token.map is None:
            continue
        inline = tokens[n + 1]
        suffix = _visible_end(inline)
        children = inline.children or []
        last_line = lines[token.map[1] - 1].rstrip("\r")
        plain = (
            bool(children)
            and children[-1].type == "text"
            and bool(children[-1].content)
            and not children[-1].content[-1].isspace()
            and children[-1].content[-1] != "\\"
            and last_line.endswith(children[-1].content[-1])
            and len(suffix) >= 3
        )
        if plain:
            return Paragraph(token.map[1] - 1, suffix, sum(e.endswith(suffix) for e in ends))
        ends.append(squash(inline.content if not inline.children else _all_visible(inline)))
    return None


def _all_visible(inline: Token) -> str:
    return "".join(
        c.content if c.type in {"text", "code_inline"} else " " if c.type in {"softbreak", "hardbreak"} else ""
        for c in inline.children or []
    )


def insert_at_line_end(data: bytes, line: int, key: str = KEY) -> bytes:
    """``data`` with ``key`` at the end of 0-based ``line`` (before its line ending)."""
    lines = data.split(b"\n")
    body = lines[line]
    cut = len(body) - 1 if body.endswith(b"\r") else len(body)
    lines[line] = body[:cut] + key.encode() + body[cut:]
    return b"\n".join(lines)


def matching_paragraph(shown: list[str], paragraph: Paragraph) -> int | None:
    """Which top-level WYSIWYG paragraph shows ``paragraph``: the nth one whose text ends with its suffix."""
    hits = [i for i, text in enumerate(shown) if text.endswith(paragraph.suffix)]
    return hits[paragraph.nth] if paragraph.nth < len(hits) else None


def diff_excerpt(want: bytes, got: bytes, context: int = 3, limit: int = 40) -> str:
    """A unified diff of the two texts (the first ``limit`` lines of it), for a failure message."""
    import difflib

    a = want.decode("utf-8", "replace").splitlines(keepends=True)
    b = got.decode("utf-8", "replace").splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, "expected", "on disk", n=context))
    shown = "".join(repr_line(x) for x in lines[:limit])
    more = f"\n... {len(lines) - limit} more diff lines" if len(lines) > limit else ""
    return f"{len(b)} lines on disk, {len(a)} expected\n{shown}{more}"


def repr_line(line: str) -> str:
    return line if line.endswith("\n") and "\r" not in line else repr(line) + "\n"


def report(config: pytest.Config, line: str) -> None:
    """A line in pytest's terminal output, whatever the capture (a summary a module prints at its end)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None:  # pragma: no cover - without the terminal plugin
        print(line)
    elif capture is None:
        reporter.write_line(line)
    else:
        with capture.global_and_fixture_disabled():
            reporter.write_line(line)


def assert_bytes(path: Path, want: bytes, errors: list[str] | None = None) -> None:
    got = path.read_bytes()
    if got != want:
        note = f"\npage errors: {errors}" if errors else ""
        raise AssertionError(f"{path.name}: the bytes on disk differ\n{diff_excerpt(want, got)}{note}")
