"""The editor UI in a real Chromium: large files opened, keystrokes to screen (and bytes sent), keystrokes to disk.

The app runs in this process (``RunningApp``, as the tests start it) and Debian's Chromium is
driven by Playwright with the UI tests' launch. Three measurements:

1. **Open 5 MB.** The person clicks the file in the tree; the clock stops when the editor shows
   the document's first heading ("shown"), and again when a character the person then types
   into that heading is on screen ("interactive": click, End, one key). Three ways:
   ``source (fresh)``: a file no tab has open (the app reads it from disk on the click);
   ``source (tab open)`` and ``wysiwyg (tab open)``: the agent opened the file as a background
   tab first and the person's side set its mode with ``ui.set_mode`` (a tab's mode belongs to
   the tab, and a new tab starts in source mode), so these two differ only in the editor.
   Each round uses its own copy of the file, so no round reuses another's editor or document.
2. **Keystroke to saved.** In a 20 KB document the person types one character and presses
   Ctrl+S; the clock stops when the file on disk holds exactly the text typed so far. Quiet
   blocks alternate with loaded blocks, in which an agent (``vmark mcp`` over stdio, its own
   process, like a real client) writes ANOTHER document of the same window every 100 ms with
   ``document.write`` (journaled, applied, saved).

3. **Keystroke to screen** (issue 14), source and WYSIWYG side by side, in a 20 KB and a 1 MB document: the
   person types into the document's first heading at a steady pace (one key every ``--interval`` seconds).
   The clock runs inside the page: from the ``keydown`` event's timestamp to the first animation frame after a
   ``MutationObserver`` saw the character in the heading's DOM (``performance.now()``); median and p95 over
   ``--latency-keystrokes`` keys after a few uncounted ones. **Bytes per keystroke** is the sum of the payloads
   of every WebSocket frame the page sent to the app while typing them (Playwright's ``framesent``, including
   the debounced edits sent after the last key), divided by the keys.

4. **Agent change to highlight** (issue 17): a 1 MB document open in the page (source and WYSIWYG); an agent
   (``vmark mcp`` over stdio) reads it and writes it back with one word changed (``document.write``, saved). The
   page stamps, on the epoch clock (``performance.timeOrigin + performance.now()``), the first animation frame
   after a ``MutationObserver`` saw the new word in the editor (``text``) and highlighted as a change to review
   (``highlight``); the bench stamps the agent's answer (``time.time()``) and its call. "From the answer" can be
   below zero: the app pushes the change to the page before it answers the agent. Each round's change is accepted
   (``review.accept``, outside the clock) so that every round has exactly one pending change. The peer run is the
   same write with review switched off in the app (``review_off``: ``Review.enabled``, the switch of the test
   hook ``test.fault {review: false}``): only ``text`` can be measured there.

5. **Paste to screen**: a 1 MB document open in WYSIWYG, the caret at the end of its first heading; the clipboard
   holds 100 KB of HTML (the generated Markdown rendered by markdown-it-py, as a web page would give it), then
   the same content as Markdown text; the person presses Ctrl+V. The clock runs in the page as for keystrokes:
   from the keydown to the first animation frame after the last pasted block is in the DOM; median and p95
   over ``--paste-rounds`` pastes, each into its own copy of the document (target < 500 ms for the HTML).
6. **Enter in a list item** (writing in WYSIWYG): a 1 MB document opened in WYSIWYG starts with a list; the
   person presses Enter at the end of its last item, then types one letter into the new item, and again (one key
   every ``--interval`` seconds). The clock runs inside the page as in 3.: from Enter's ``keydown`` to the first
   frame after the new item is in the list's DOM, and from the letter's ``keydown`` to the first frame after it
   is in the new item; median and p95 of each. The app's document must then hold every item typed.

The Markdown is generated deterministically (a seeded PRNG): headings, paragraphs with inline
markup, bullet and ordered lists, fenced code blocks, tables, block quotes. Nothing asserts on
a timing; the target is printed beside the figures.

    .venv/bin/python bench/bench_ui.py [--rounds 3] [--keystrokes 40] [--latency-keystrokes 40]
    .venv/bin/python bench/bench_ui.py --quick              # a smoke run: one round of everything, few keys
    .venv/bin/python bench/bench_ui.py --parts latency  # only some parts: open, latency, saved, review, paste, enter
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import random
import re
import statistics
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib import (
    ROOT,
    BenchError,
    bench_dir,
    logs_on_error,
    machine_line,
    prepare_home,
    run_async,
    save_results,
    stdio_client_for,
    table,
    tool_data,
    vmark_mcp_params,
)
from mcp import Client
from playwright.async_api import Browser, Locator, Page, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeout

from vmark.app.server import RunningApp
from vmark.app.ui_server import DIST, UIServer
from vmark.storage.settings import Settings
from vmark.testing.chromium import CHROMIUM, CHROMIUM_ARGS
from vmark.testing.uiclient import UIClient


class _App(RunningApp):
    """The app with its page served from ``dist`` (``--dist``: another build of the page, for before/after)."""

    def __init__(self, home: Path, folder: str, dist: Path) -> None:
        super().__init__(home, folder)
        self._dist = dist

    def _ui_server(self) -> UIServer:
        return UIServer(self.bridge, self.app.settings, self.ui_token, self.port, self._dist)


#: the page's build the app serves (``--dist``)
PAGE_DIST = [DIST]

BIG_BYTES = 5_000_000
NOTES_BYTES = 20_000
OTHER_BYTES = 2_000
TARGET_SOURCE_SECONDS = 2.0
AGENT_PERIOD_SECONDS = 0.1
#: keystrokes per block; quiet and loaded blocks alternate
BLOCK = 10
WARMUP_KEYSTROKES = 3
SOURCE_TIMEOUT_SECONDS = 30.0
SAVE_TIMEOUT_SECONDS = 10.0
FAILURE_SHOT = ROOT / "bench/results/ui-failure.png"
HOME_TEXT = "# Home\n\nThe tab the person had open before.\n"

#: where each mode's editor shows a level-1 heading, and how that heading reads there
HEADING = {
    "source": (".cm-content .cm-line", "# {}"),
    "wysiwyg": (".ProseMirror h1", "{}"),
}


@dataclass(frozen=True)
class Opening:
    label: str
    slug: str
    mode: str
    #: the agent opened the file as a background tab first (and its mode was set), or no tab had it open
    tab_open: bool
    size: int


OPENINGS = (
    Opening("source, 5 MB, fresh", "source-fresh", "source", False, BIG_BYTES),
    Opening("source, 5 MB, tab open", "source-open", "source", True, BIG_BYTES),
    Opening("wysiwyg, 1 MB, tab open", "wysiwyg-1mb", "wysiwyg", True, 1_000_000),
    Opening("wysiwyg, 5 MB, tab open", "wysiwyg-5mb", "wysiwyg", True, BIG_BYTES),
)
#: one uncounted opening first: the browser's first large document also pays for JIT warm-up and heap growth
WARMUP = Opening("source, 5 MB, fresh, warm-up", "warmup", "source", False, BIG_BYTES)


# --- realistic Markdown ---------------------------------------------------------------------------------
_WORDS = (  # noqa: SIM905 (a word list reads better as one string)
    "editor document agent person revision journal history window workspace tab file save write read change "
    "merge text line block heading table list code quote link image review approval folder session token "
    "the a of and to in is that for with on as by it this be from are at or an was we can not but all"
).split()
_LANGS = ("python", "ts", "sh", "json")


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(6, 16))]
    roll = rng.random()
    i = rng.randrange(len(words))
    if roll < 0.2:
        words[i] = f"**{words[i]}**"
    elif roll < 0.35:
        words[i] = f"*{words[i]}*"
    elif roll < 0.5:
        words[i] = f"`{words[i]}()`"
    elif roll < 0.6:
        words[i] = f"[{words[i]}](https://example.com/{words[i]}/{rng.randint(1, 999)})"
    elif roll < 0.65:
        words[i] = f"{words[i]} — déjà vu ✓"
    return " ".join(words).capitalize() + rng.choice(".!?.")


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(2, 6))) + "\n"


def _list(rng: random.Random) -> str:
    ordered = rng.random() < 0.4
    lines = []
    for n in range(rng.randint(3, 7)):
        lines.append(f"{n + 1}. " if ordered else "- ")
        lines[-1] += _sentence(rng)
        if rng.random() < 0.25:
            lines.append(f"   - {_sentence(rng)}")
    return "\n".join(lines) + "\n"


def _code(rng: random.Random) -> str:
    lang = rng.choice(_LANGS)
    body = [f"def {rng.choice(_WORDS)}_{n}(value):\n    return value * {n}" for n in range(rng.randint(1, 4))]
    return f"```{lang}\n" + "\n".join(body) + "\n```\n"


def _table(rng: random.Random) -> str:
    head = "| name | kind | count | note |\n| --- | --- | ---: | --- |\n"
    rows = [
        f"| {rng.choice(_WORDS)} | {rng.choice(_WORDS)} | {rng.randint(0, 9999)} | {rng.choice(_WORDS)} |"
        for _ in range(rng.randint(3, 6))
    ]
    return head + "\n".join(rows) + "\n"


def _quote(rng: random.Random) -> str:
    return f"> {_sentence(rng)}\n> {_sentence(rng)}\n"


_BLOCKS: tuple[tuple[float, Callable[[random.Random], str]], ...] = (
    (0.45, _paragraph),
    (0.2, _list),
    (0.12, _code),
    (0.1, _table),
    (0.13, _quote),
)


def realistic_markdown(size: int, seed: int = 7) -> str:
    """At least ``size`` UTF-8 bytes of Markdown, the same for the same seed, ending at a block boundary.

    It has no level-1 heading: the benchmark puts its own first, to find it on screen.
    """
    rng = random.Random(seed)
    parts: list[str] = []
    total, section = 0, 0
    weights = [w for w, _ in _BLOCKS]
    while total < size:
        if section % 8 == 0 or rng.random() < 0.08:
            block = f"## Section {section}: {_sentence(rng)[:-1]}\n"
        else:
            block = rng.choices([make for _, make in _BLOCKS], weights)[0](rng)
        if rng.random() < 0.2:
            block = f"### {rng.choice(_WORDS).capitalize()} {section}\n\n" + block
        section += 1
        parts.append(block + "\n")
        total += len(parts[-1].encode())
    return "".join(parts)


# --- the stage: app, browser, page, agent ------------------------------------------------------------
@dataclass
class Wire:
    """The payload bytes of the WebSocket frames the page sent to the app (every socket it opened)."""

    sent: int = 0
    frames: int = 0

    def count(self, payload: str | bytes) -> None:
        self.sent += len(payload.encode() if isinstance(payload, str) else payload)
        self.frames += 1


@dataclass
class Stage:
    app: RunningApp
    folder: Path
    browser: Browser
    page: Page
    agent: Client
    #: the person's side without a browser, for what the page has no control for (a tab's mode before it shows)
    operator: UIClient
    wire: Wire

    async def new_page(self) -> None:
        """Replace the page by a fresh one (a new browser context): nothing of an earlier opening stays behind."""
        await self.page.context.close()
        self.page = await open_page(self.browser, self.app, self.folder, self.wire)


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    if not Path(CHROMIUM).exists():
        raise BenchError(f"{CHROMIUM} is absent (Debian's chromium package)")
    if not (PAGE_DIST[0] / "index.html").is_file():
        raise BenchError("the UI is not built: run `make setup`")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


async def open_page(browser: Browser, app: RunningApp, folder: Path, wire: Wire | None = None) -> Page:
    """A page on the app's UI with the workspace's tree loaded (it shows the window's active tab, if any)."""
    context = await browser.new_context(viewport={"width": 1200, "height": 800})
    page = await context.new_page()
    if wire is not None:
        page.on("websocket", lambda ws: ws.on("framesent", wire.count))
    await page.goto(app.ui_url + "&window=main")
    await page.wait_for_selector("body[data-ready=true]")
    await page.wait_for_selector(f"section.workspace[data-root='{folder}']")
    return page


@contextlib.asynccontextmanager
async def stage(tmp: Path, files: dict[str, str]) -> AsyncIterator[Stage]:
    folder, home = tmp / "ws", prepare_home(tmp / "home")
    # The measurements set each tab's mode themselves, from a tab that opens in source mode (the app's default
    # is WYSIWYG).
    Settings(home / "settings.json").set("editor.default_mode", "source")
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, "utf-8")
    app = _App(home, str(folder), PAGE_DIST[0])
    await app.start()
    try:
        with open(tmp / "mcp.log", "w") as errlog, logs_on_error(tmp / "mcp.log"):
            async with (
                chromium() as browser,
                stdio_client_for(vmark_mcp_params(home), errlog) as agent,
                UIClient(home) as operator,
            ):
                wire = Wire()
                page = await open_page(browser, app, folder.resolve(), wire)
                s = Stage(app, folder.resolve(), browser, page, agent, operator, wire)
                try:
                    yield s
                except BaseException:
                    await s.page.screenshot(path=str(FAILURE_SHOT))
                    print(f"the page at the failure: {FAILURE_SHOT}", file=sys.stderr)
                    raise
    finally:
        await app.stop()


def heading(page: Page, mode: str, title: str) -> Locator:
    """The heading ``title`` on screen, its whole text exactly (CodeMirror wraps a line's text in spans)."""
    selector, shown = HEADING[mode]
    return page.locator(selector).filter(has_text=re.compile(f"^{re.escape(shown.format(title))}$"))


async def click_file(page: Page, relative: str) -> None:
    await page.click(f"button.file[data-path='{relative}']")


async def wait_for(predicate: Callable[[], bool], what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise BenchError(f"timed out waiting for {what}")
        await asyncio.sleep(0.002)


async def agent_open(s: Stage, name: str) -> str:
    args = {"action": "open", "filePath": str(s.folder / name)}
    return str(tool_data(await s.agent.call_tool("workspace", args), f"workspace.open {name}")["tabId"])


# --- 1. opening a large file ---------------------------------------------------------------------------------
def big_name(way: Opening, n: int) -> tuple[str, str]:
    """The file name and first heading of round ``n`` of an opening."""
    return f"big-{way.slug}-{n}.md", f"Benchmark document {way.slug} {n}"


def big_files(plan: Plan) -> dict[str, str]:
    bodies = {size: realistic_markdown(size) for size in {way.size for way in OPENINGS}}
    rounds = [(WARMUP, 0)] + [(way, n) for way in OPENINGS for n in range(plan.rounds_of(way))]
    files = {}
    for way, n in rounds:
        name, title = big_name(way, n)
        files[name] = f"# {title}\n\n{bodies[way.size]}"
    return files


@dataclass(frozen=True)
class Plan:
    rounds: int
    wysiwyg_rounds: int
    #: a WYSIWYG opening not interactive after this long is cut off (reported as "> timeout")
    wysiwyg_timeout: float
    keystrokes: int
    latency_keystrokes: int = 40
    #: seconds between two keys of the keystroke-to-screen measurement
    interval: float = 0.15
    parts: frozenset[str] = frozenset({"open", "latency", "saved", "review", "paste", "enter"})
    #: agent writes per mode and review setting (change to highlight)
    review_rounds: int = 20
    #: pastes per kind of clipboard content (paste to screen)
    paste_rounds: int = 10

    def rounds_of(self, way: Opening) -> int:
        return self.wysiwyg_rounds if way.mode == "wysiwyg" else self.rounds

    def timeout_of(self, way: Opening) -> float:
        return self.wysiwyg_timeout if way.mode == "wysiwyg" else SOURCE_TIMEOUT_SECONDS


async def open_round(s: Stage, way: Opening, n: int, timeout: float) -> tuple[float | None, float | None]:
    """(shown, interactive) seconds of one opening (None: not within ``timeout``); checked outside the clock."""
    name, title = big_name(way, n)
    tab = await agent_open(s, name) if way.tab_open else None
    if tab is not None:
        await s.operator.call("ui.set_mode", tabId=tab, mode=way.mode)
    shown = interactive = None
    start = time.perf_counter()
    await click_file(s.page, name)
    with contextlib.suppress(PlaywrightTimeout):
        shown_at = heading(s.page, way.mode, title)
        await shown_at.wait_for(timeout=timeout * 1000)
        shown = time.perf_counter() - start
        await shown_at.click(timeout=remaining_ms(start, timeout))
        await s.page.keyboard.press("End")
        await s.page.keyboard.type("Z")
        await heading(s.page, way.mode, title + "Z").wait_for(timeout=remaining_ms(start, timeout))
        interactive = time.perf_counter() - start
    if interactive is not None and way.mode == "source":
        await check_source(s, name, title)
    tab = tab or str(s.app.app.session.windows["main"].active_tab)
    await s.operator.call("ui.close", tabId=tab, force=True)
    if way.mode == "wysiwyg":
        await s.new_page()  # a page still busy with a large document would slow what follows
    await heading(s.page, "source", "Home").wait_for()
    return shown, interactive


def remaining_ms(start: float, timeout: float) -> float:
    return max(1.0, (start + timeout - time.perf_counter()) * 1000)


async def check_source(s: Stage, name: str, title: str) -> None:
    """The page showed the whole file in source mode, and the typed key reached the app's document."""
    if await s.page.evaluate("window.vmarkPage.mode()") != "source":
        raise BenchError(f"{name} did not open in source mode")
    doc = s.app.app.session.doc_by_path(str(s.folder / name))
    if doc is None:
        raise BenchError(f"{name} is not open in the app")
    expected = f"# {title}Z" + (s.folder / name).read_text("utf-8")[len(title) + 2 :]
    await wait_for(lambda: doc.state.text == expected, f"the typed key to reach {name}", SOURCE_TIMEOUT_SECONDS)
    if await s.page.evaluate("window.vmarkPage.editorText().length") != len(expected):
        raise BenchError(f"the editor does not hold the whole of {name}")


async def bench_open(s: Stage, plan: Plan) -> dict[str, dict[str, list[float | None]]]:
    samples: dict[str, dict[str, list[float | None]]] = {w.label: {"shown": [], "interactive": []} for w in OPENINGS}
    shown, interactive = await open_round(s, WARMUP, 0, SOURCE_TIMEOUT_SECONDS)
    progress(f"{WARMUP.label} (not counted): shown {ms(shown)}, interactive {ms(interactive)}")
    for n in range(max(plan.rounds, plan.wysiwyg_rounds)):
        for way in OPENINGS:
            if n >= plan.rounds_of(way):
                continue
            shown, interactive = await open_round(s, way, n, plan.timeout_of(way))
            progress(f"{way.label} #{n}: shown {ms(shown)}, interactive {ms(interactive)}")
            samples[way.label]["shown"].append(shown)
            samples[way.label]["interactive"].append(interactive)
    return samples


def ms(seconds: float | None) -> str:
    return "not within the time limit" if seconds is None else f"{seconds * 1000:.0f} ms"


# --- 2. keystroke to saved ---------------------------------------------------------------------------------
@dataclass
class AgentLoad:
    """An agent writing another document every ``AGENT_PERIOD_SECONDS`` while ``on`` is set."""

    agent: Client
    tab: str
    texts: tuple[str, str]
    on: asyncio.Event = field(default_factory=asyncio.Event)
    writes: int = 0
    busy_seconds: float = 0.0

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time()
        while True:
            await self.on.wait()
            due = max(due + AGENT_PERIOD_SECONDS, loop.time())
            start = time.perf_counter()
            args = {"action": "write", "tabId": self.tab, "content": self.texts[self.writes % 2]}
            result = tool_data(await self.agent.call_tool("document", args), "agent document.write")
            if not (result.get("applied") and result.get("saved")):
                raise BenchError(f"an agent write was not applied and saved: {result}")
            self.writes += 1
            self.busy_seconds += time.perf_counter() - start
            await asyncio.sleep(max(0.0, due - loop.time()))


async def keystroke(page: Page, path: Path, expected: bytes, key: str) -> float:
    """Type ``key``, press Ctrl+S: seconds until the file holds exactly ``expected``."""
    start = time.perf_counter()
    await page.keyboard.type(key)
    await page.keyboard.press("Control+s")
    deadline = start + SAVE_TIMEOUT_SECONDS
    while True:
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_size == len(expected) and path.read_bytes() == expected:
                return time.perf_counter() - start
        if time.perf_counter() > deadline:
            raise BenchError(f"{path.name} did not get the keystroke {key!r} within {SAVE_TIMEOUT_SECONDS:.0f} s")
        await asyncio.sleep(0.001)


async def bench_keystrokes(s: Stage, count: int) -> dict[str, Any]:
    texts = (realistic_markdown(OTHER_BYTES, 1), realistic_markdown(OTHER_BYTES, 2))
    load = AgentLoad(s.agent, await agent_open(s, "other.md"), texts)
    notes = s.folder / "notes.md"
    await click_file(s.page, "notes.md")
    await s.page.locator(".cm-content").click()
    await s.page.keyboard.press("Control+End")
    text = notes.read_bytes()
    samples: dict[str, list[float]] = {"quiet": [], "loaded": []}
    runner = asyncio.ensure_future(load.run())
    try:
        for n in range(WARMUP_KEYSTROKES + 2 * count):
            counted = n - WARMUP_KEYSTROKES
            condition = "loaded" if counted >= 0 and (counted // BLOCK) % 2 == 1 else "quiet"
            if (condition == "loaded") != load.on.is_set():
                await switch_load(load, on=condition == "loaded")
            key = "abcdefghijklmnopqrstuvwxyz"[n % 26]
            text += key.encode()
            elapsed = await keystroke(s.page, notes, text, key)
            if counted >= 0:
                samples[condition].append(elapsed)
            if runner.done():
                runner.result()  # an agent failure ends the benchmark with its error
        await switch_load(load, on=False)
    finally:
        runner.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runner
    return {"samples": samples, "agent_writes": load.writes, "agent_busy_seconds": load.busy_seconds}


async def switch_load(load: AgentLoad, on: bool) -> None:
    if on:
        load.on.set()
        await asyncio.sleep(3 * AGENT_PERIOD_SECONDS)  # measure the steady state, not the first write
    else:
        load.on.clear()
        await asyncio.sleep(2 * AGENT_PERIOD_SECONDS)  # a write in flight finishes first


def progress(line: str) -> None:
    print(f"  {line}", file=sys.stderr, flush=True)


# --- 3. keystroke to screen, and the bytes a keystroke sends ------------------------------------------------------
LATENCY_SIZES = (("20 KB", NOTES_BYTES), ("1 MB", 1_000_000))
LATENCY_MODES = ("source", "wysiwyg")
LATENCY_WARMUP = 3
#: after the last key: the page's debounced edit (and anything else it sends for the keys) goes out meanwhile
LATENCY_SETTLE_SECONDS = 1.0
KEY_TIMEOUT_MS = 10_000
#: how long a WYSIWYG document may take to have all its blocks appended (the Enter part waits for it)
FILL_TIMEOUT_SECONDS = 180
OPEN_TIMEOUT_SECONDS = 60.0

#: installed once per page: `arm(text)` before a key, `wait(ms)` after it gives {dom, frame} ms since its keydown
KEY_PROBE = """
() => {
  if (window.__keyProbe) return;
  let armed = null, t0 = 0, seenAt = 0, result = null;
  const waiters = [];
  const finish = (value) => {
    result = value;
    armed = null;
    for (const resolve of waiters.splice(0)) resolve(value);
  };
  window.addEventListener("keydown", (e) => { if (armed !== null && t0 === 0) t0 = e.timeStamp; }, true);
  const shows = (node) => {
    const element = node.nodeType === 1 ? node : node.parentElement;
    // A block of the editor's sections, or a section the edit added whole (the page before them: the editor's child).
    const blocks = ".cm-line, .ProseMirror > .pm-section > *, .ProseMirror > *";
    const block = element && element.closest(blocks);
    return Boolean(block && block.textContent.includes(armed));
  };
  new MutationObserver((records) => {
    if (armed === null || t0 === 0 || seenAt) return;
    for (const r of records) {
      if (shows(r.target) || Array.from(r.addedNodes).some(shows)) {
        seenAt = performance.now();
        const start = t0, dom = seenAt - start;
        requestAnimationFrame(() => finish({ dom, frame: performance.now() - start }));
        return;
      }
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
  window.__keyProbe = {
    arm: (text) => { armed = text; t0 = 0; seenAt = 0; result = null; },
    wait: (ms) => new Promise((resolve) => {
      if (result) return resolve(result);
      waiters.push(resolve);
      setTimeout(() => resolve(null), ms);
    }),
  };
}
"""


def typing_name(mode: str, size: int) -> tuple[str, str]:
    return f"typing-{mode}-{size}.md", f"Typing in {mode} {size}"


def typing_files() -> dict[str, str]:
    files = {}
    for _, size in LATENCY_SIZES:
        body = realistic_markdown(size, seed=5)
        for mode in LATENCY_MODES:
            name, title = typing_name(mode, size)
            files[name] = f"# {title}\n\n{body}"
    return files


async def latency_round(s: Stage, mode: str, size: int, plan: Plan) -> dict[str, Any]:
    """Type ``plan.latency_keystrokes`` keys (after a few uncounted ones) into the first heading of a document."""
    name, title = typing_name(mode, size)
    tab = await agent_open(s, name)
    await s.operator.call("ui.set_mode", tabId=tab, mode=mode)
    await click_file(s.page, name)
    shown = heading(s.page, mode, title)
    await shown.wait_for(timeout=OPEN_TIMEOUT_SECONDS * 1000)
    await shown.click()
    await s.page.keyboard.press("End")
    await s.page.evaluate(KEY_PROBE)
    await asyncio.sleep(LATENCY_SETTLE_SECONDS)  # what opening and clicking sent is not the keys'
    typed, frames, doms, lost = "", [], [], 0
    sent_before = frames_before = 0
    for n in range(LATENCY_WARMUP + plan.latency_keystrokes):
        if n == LATENCY_WARMUP:
            sent_before, frames_before = s.wire.sent, s.wire.frames
        key = "abcdefghijklmnopqrstuvwxyz"[n % 26]
        typed += key
        line = HEADING[mode][1].format(title + typed)
        await s.page.evaluate("(text) => window.__keyProbe.arm(text)", line)
        await s.page.keyboard.press(key)
        got = await s.page.evaluate("(ms) => window.__keyProbe.wait(ms)", KEY_TIMEOUT_MS)
        if n >= LATENCY_WARMUP:
            if got is None:
                lost += 1
            else:
                frames.append(got["frame"] / 1000)
                doms.append(got["dom"] / 1000)
        await asyncio.sleep(plan.interval)
    await asyncio.sleep(LATENCY_SETTLE_SECONDS)
    sent, sent_frames = s.wire.sent - sent_before, s.wire.frames - frames_before
    await check_typed(s, name, f"# {title}{typed}")
    await s.operator.call("ui.close", tabId=tab, force=True)
    await s.new_page()  # the next document starts on a page that never held a large one
    await heading(s.page, "source", "Home").wait_for()
    return {
        "mode": mode,
        "bytes": size,
        "frame": summary(frames) if frames else {"n": 0},
        "dom": summary(doms) if doms else {"n": 0},
        "lost": lost,
        "sent_bytes_per_key": sent / plan.latency_keystrokes,
        "sent_frames_per_key": sent_frames / plan.latency_keystrokes,
    }


async def check_typed(s: Stage, name: str, line: str) -> None:
    """The keys reached the app's document (its first line is the heading with every key typed)."""
    doc = s.app.app.session.doc_by_path(str(s.folder / name))
    if doc is None:
        raise BenchError(f"{name} is not open in the app")
    await wait_for(lambda: doc.state.text.startswith(line + "\n"), f"the typed keys to reach {name}", 30.0)


async def bench_latency(s: Stage, plan: Plan) -> list[dict[str, Any]]:
    rounds = []
    for label, size in LATENCY_SIZES:
        for mode in LATENCY_MODES:
            got = await latency_round(s, mode, size, plan)
            frame = got["frame"]
            median = f"{frame['median_ms']:.1f} ms" if frame["n"] else "none"
            progress(
                f"keystroke to screen, {mode}, {label}: median {median}, "
                f"{got['sent_bytes_per_key']:,.0f} bytes sent per key, {got['lost']} lost"
            )
            rounds.append({"label": label, **got})
    return rounds


def render_latency(rounds: list[dict[str, Any]], plan: Plan) -> str:
    rows = []
    by = {(r["label"], r["mode"]): r for r in rounds}
    for label, _ in LATENCY_SIZES:
        for mode in LATENCY_MODES:
            r = by[(label, mode)]
            f, d = r["frame"], r["dom"]
            cells = [f"{f[k]:.1f}" if f["n"] else "-" for k in ("median_ms", "p95_ms", "max_ms")]
            dom = f"{d['median_ms']:.1f}" if d["n"] else "-"
            rows.append([label, mode, str(f["n"]), *cells, dom, str(r["lost"]), f"{r['sent_bytes_per_key']:,.0f}"])
        src, wys = by[(label, "source")], by[(label, "wysiwyg")]
        rows.append([label, "wysiwyg/source", "", *ratio_cells(src, wys), "", "", bytes_ratio(src, wys)])
    head = ["document", "mode", "n", "median ms", "p95 ms", "max ms", "dom median ms", "lost", "bytes sent/key"]
    return (
        f"Keystroke to screen: keydown to the first frame after the character is in the DOM (in the page), one key "
        f"every {plan.interval * 1000:.0f} ms into the first heading; bytes = WebSocket payload the page sent per key "
        f"(target: WYSIWYG p95 < 50 ms at 1 MB)\n{table(head, rows)}"
    )


def ratio_cells(src: dict[str, Any], wys: dict[str, Any]) -> list[str]:
    if not (src["frame"]["n"] and wys["frame"]["n"]):
        return ["-", "-", "-"]
    return [f"{wys['frame'][k] / src['frame'][k]:.2f}" for k in ("median_ms", "p95_ms", "max_ms")]


def bytes_ratio(src: dict[str, Any], wys: dict[str, Any]) -> str:
    if not src["sent_bytes_per_key"]:
        return "-"
    return f"{wys['sent_bytes_per_key'] / src['sent_bytes_per_key']:.2f}"


# --- 5. paste to screen ------------------------------------------------------------------------------------------
PASTE_DOC_BYTES = 1_000_000
PASTE_HTML_BYTES = 100_000
PASTE_KINDS = ("html", "markdown")
PASTE_TARGET_MS = 500.0


def paste_name(n: int) -> tuple[str, str]:
    return f"paste-{n}.md", f"Paste target {n}"


def paste_files(plan: Plan) -> dict[str, str]:
    body = realistic_markdown(PASTE_DOC_BYTES, seed=11)
    rounds = PASTE_WARMUP + plan.paste_rounds
    return {paste_name(n)[0]: f"# {paste_name(n)[1]}\n\n{body}" for n in range(rounds * len(PASTE_KINDS))}


PASTE_WARMUP = 1


def paste_content() -> tuple[str, str]:
    """About 100 KB of HTML as a web page would put it on the clipboard, and its Markdown (the plain text)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    size = PASTE_HTML_BYTES
    while True:
        source = realistic_markdown(int(size * 0.75), seed=13)
        html = md.render(source)
        if len(html.encode()) >= PASTE_HTML_BYTES:
            return html, source
        size += 10_000


#: the page writes the clipboard (the browser's sanitizer reads the HTML then, not on the clock)
_PASTE_CLIPBOARD = """
async ([html, text]) => {
  const items = { "text/plain": new Blob([text], { type: "text/plain" }) };
  if (html) items["text/html"] = new Blob([html], { type: "text/html" });
  await navigator.clipboard.write([new ClipboardItem(items)]);
}
"""


async def paste_round(s: Stage, page: Page, n: int, kind: str, html: str, source: str) -> float | None:
    """One Ctrl+V of ``kind`` content at the end of the first heading of document ``n``: ms to screen."""
    name, title = paste_name(n)
    tab = await agent_open(s, name)
    await s.operator.call("ui.set_mode", tabId=tab, mode="wysiwyg")
    await click_file(page, name)
    shown = heading(page, "wysiwyg", title)
    await shown.wait_for(timeout=OPEN_TIMEOUT_SECONDS * 1000)
    await shown.click()
    await page.keyboard.press("End")
    marker = f"Pasted end {n}"
    clipboard = [html + f"<p>{marker}</p>" if kind == "html" else "", f"{source}\n{marker}\n"]
    await page.evaluate(_PASTE_CLIPBOARD, clipboard)
    await page.evaluate(KEY_PROBE)
    await page.evaluate("(text) => window.__keyProbe.arm(text)", marker)
    await page.keyboard.press("Control+v")
    got = await page.evaluate("(ms) => window.__keyProbe.wait(ms)", KEY_TIMEOUT_MS)
    doc = s.app.app.session.doc_by_path(str(s.folder / name))
    if doc is None:
        raise BenchError(f"{name} is not open in the app")
    await wait_for(lambda: marker in doc.state.text, f"the paste to reach {name}", 30.0)
    await s.operator.call("ui.close", tabId=tab, force=True)
    return None if got is None else float(got["frame"])


async def bench_paste(s: Stage, plan: Plan) -> dict[str, Any]:
    html, source = paste_content()
    context = await s.browser.new_context(viewport={"width": 1200, "height": 800})
    await context.grant_permissions(["clipboard-read", "clipboard-write"], origin=s.app.ui_url.split("/?")[0])
    page = await context.new_page()
    await page.goto(s.app.ui_url + "&window=main")
    await page.wait_for_selector("body[data-ready=true]")
    samples: dict[str, list[float]] = {kind: [] for kind in PASTE_KINDS}
    lost = dict.fromkeys(PASTE_KINDS, 0)
    n = 0
    try:
        for k in range(PASTE_WARMUP + plan.paste_rounds):
            for kind in PASTE_KINDS:
                got = await paste_round(s, page, n, kind, html, source)
                n += 1
                if k < PASTE_WARMUP:
                    continue
                if got is None:
                    lost[kind] += 1
                else:
                    samples[kind].append(got / 1000)
            counted = k + 1 - PASTE_WARMUP
            progress(f"paste to screen, round {counted} of {plan.paste_rounds}" if counted else "paste warm-up done")
    finally:
        await context.close()
    return {
        "document_bytes": len(paste_files(plan)[paste_name(0)[0]].encode()),
        "html_bytes": len(html.encode()),
        "markdown_bytes": len(source.encode()),
        "target_ms": PASTE_TARGET_MS,
        **{kind: {**(summary(got) if got else {"n": 0}), "lost": lost[kind]} for kind, got in samples.items()},
    }


def render_paste(p: dict[str, Any]) -> str:
    rows = []
    for kind in PASTE_KINDS:
        d = p[kind]
        size = p["html_bytes"] if kind == "html" else p["markdown_bytes"]
        cells = [f"{d[k]:.0f}" if d["n"] else "-" for k in ("median_ms", "p95_ms", "max_ms")]
        rows.append([kind, f"{size:,}", str(d["n"]), *cells, str(d["lost"])])
    if p["html"]["n"] and p["markdown"]["n"]:
        ratio = [f"{p['html'][k] / p['markdown'][k]:.2f}" for k in ("median_ms", "p95_ms", "max_ms")]
        rows.append(["html/markdown", "", "", *ratio, ""])
    head = ["clipboard", "bytes", "n", "median ms", "p95 ms", "max ms", "lost"]
    return (
        f"Paste to screen: Ctrl+V at the end of the first heading of a {p['document_bytes'] / 1e6:.1f} MB document in "
        f"WYSIWYG, keydown to the first frame after the pasted blocks are in the DOM (target: HTML p95 < "
        f"{p['target_ms']:.0f} ms)\n{table(head, rows)}"
    )


# --- 6. Enter in a list item, in WYSIWYG ---------------------------------------------------------------------
ENTER_BYTES = 1_000_000
ENTER_WARMUP = 2
ENTER_TITLE = "Enter in a list"
#: installed once per page: `arm(kind, value)` before a key, `wait(ms)` after it gives {frame} ms since its keydown:
#: kind "items": the first list of the document has `value` items; kind "text": its last item reads `value`
ENTER_PROBE = """
() => {
  if (window.__enterProbe) return;
  let armed = null, t0 = 0, result = null;
  const waiters = [];
  const finish = (value) => {
    result = value;
    armed = null;
    for (const resolve of waiters.splice(0)) resolve(value);
  };
  const list = () => document.querySelector(":is(.ProseMirror, .ProseMirror > .pm-section) > ul");
  const done = () => {
    const ul = list();
    if (!ul || armed === null) return false;
    if (armed.kind === "items") return ul.children.length >= armed.value;
    const last = ul.lastElementChild;
    return Boolean(last && last.textContent === armed.value);
  };
  window.addEventListener("keydown", (e) => { if (armed !== null && t0 === 0) t0 = e.timeStamp; }, true);
  new MutationObserver(() => {
    if (armed === null || t0 === 0 || result || !done()) return;
    const start = t0;
    requestAnimationFrame(() => finish({ frame: performance.now() - start }));
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
  window.__enterProbe = {
    arm: (kind, value) => { armed = { kind, value }; t0 = 0; result = null; },
    wait: (ms) => new Promise((resolve) => {
      if (result) return resolve(result);
      waiters.push(resolve);
      setTimeout(() => resolve(null), ms);
    }),
  };
}
"""


def enter_file() -> tuple[str, str]:
    return (
        "enter-wysiwyg.md",
        f"# {ENTER_TITLE}\n\n- first item\n- second item\n\n{realistic_markdown(ENTER_BYTES, seed=11)}",
    )


async def enter_round(s: Stage, plan: Plan) -> dict[str, Any]:
    """Enter at the end of the list's last item, then a letter into the new item, ``plan.latency_keystrokes`` times."""
    name, _ = enter_file()
    tab = await agent_open(s, name)
    await s.operator.call("ui.set_mode", tabId=tab, mode="wysiwyg")
    await click_file(s.page, name)
    items = s.page.locator(":is(.ProseMirror, .ProseMirror > .pm-section) > ul > li")
    last = items.filter(has_text=re.compile("^second item$"))
    await last.wait_for(timeout=OPEN_TIMEOUT_SECONDS * 1000)
    # The keys are timed in the whole document: the blocks after the first screens appended first (a page that
    # appends them in idle time marks the editor `aria-busy` meanwhile), so no key shares a frame with that work.
    await s.page.locator(".ProseMirror:not([aria-busy='true'])").wait_for(timeout=FILL_TIMEOUT_SECONDS * 1000)
    await last.click()
    await s.page.keyboard.press("End")
    await s.page.evaluate(ENTER_PROBE)
    await asyncio.sleep(LATENCY_SETTLE_SECONDS)
    enters: list[float] = []
    letters: list[float] = []
    lost = 0
    items = 2
    for n in range(ENTER_WARMUP + plan.latency_keystrokes):
        for kind, key in (("items", "Enter"), ("text", "abcdefghijklmnopqrstuvwxyz"[n % 26])):
            value: int | str = items + 1 if kind == "items" else key
            await s.page.evaluate("([kind, value]) => window.__enterProbe.arm(kind, value)", [kind, value])
            await s.page.keyboard.press(key)
            got = await s.page.evaluate("(ms) => window.__enterProbe.wait(ms)", KEY_TIMEOUT_MS)
            if n >= ENTER_WARMUP:
                if got is None:
                    lost += 1
                else:
                    (enters if kind == "items" else letters).append(got["frame"] / 1000)
            await asyncio.sleep(plan.interval)
        items += 1
    await asyncio.sleep(LATENCY_SETTLE_SECONDS)
    typed = "".join("abcdefghijklmnopqrstuvwxyz"[n % 26] for n in range(ENTER_WARMUP + plan.latency_keystrokes))
    want = f"# {ENTER_TITLE}\n\n- first item\n- second item\n" + "".join(f"- {k}\n" for k in typed)
    doc = s.app.app.session.doc_by_path(str(s.folder / name))
    if doc is None:
        raise BenchError(f"{name} is not open in the app")
    await wait_for(lambda: doc.state.text.startswith(want + "\n"), f"the new items to reach {name}", 30.0)
    await s.operator.call("ui.close", tabId=tab, force=True)
    await s.new_page()
    await heading(s.page, "source", "Home").wait_for()
    return {"bytes": len(enter_file()[1].encode()), "enter": summary(enters), "letter": summary(letters), "lost": lost}


def render_enter(r: dict[str, Any], plan: Plan) -> str:
    rows = [
        [what, str(r[key]["n"]), f"{r[key]['median_ms']:.1f}", f"{r[key]['p95_ms']:.1f}", f"{r[key]['max_ms']:.1f}"]
        for what, key in (("Enter: a new list item", "enter"), ("a letter into it", "letter"))
    ]
    head = ["key", "n", "median ms", "p95 ms", "max ms"]
    return (
        f"Enter at the end of a list item of a {r['bytes'] / 1e6:.1f} MB document in WYSIWYG, then a letter into "
        f"the new item, one key every {plan.interval * 1000:.0f} ms: keydown to the first frame showing it "
        f"({r['lost']} lost; target: p95 < 50 ms)\n{table(head, rows)}"
    )


# --- figures -------------------------------------------------------------------------------------------------
def p95(samples: list[float]) -> float:
    if len(samples) < 2:
        return samples[0]
    return statistics.quantiles(samples, n=20, method="inclusive")[18]


# --- 4. an agent's change to its highlight ------------------------------------------------------------------
REVIEW_BYTES = 1_000_000
REVIEW_MODES = ("source", "wysiwyg")
REVIEW_WARMUP = 2
REVIEW_TIMEOUT_MS = 20_000
#: the page's side: stamps (epoch ms) of the first frame after the armed word is in the editor, and highlighted
REVIEW_PROBE = """
() => {
  if (window.__reviewProbe) return;
  let word = null, marked = false, seen = { text: false, highlight: false }, at = {};
  const waiters = [];
  const stamp = () => performance.timeOrigin + performance.now();
  const settle = () => {
    if (at.text === undefined || (marked && at.highlight === undefined)) return;
    word = null;
    for (const resolve of waiters.splice(0)) resolve(at);
  };
  const later = (what) => { seen[what] = true; requestAnimationFrame(() => { at[what] = stamp(); settle(); }); };
  const HIGHLIGHT = ".cm-review-insert, .pm-review-insert";
  const look = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    if (!el || !el.closest(".cm-content, .ProseMirror")) return;
    if (!seen.text && (node.textContent || "").includes(word)) later("text");
    if (marked && !seen.highlight) {
      const marks = [el.closest(HIGHLIGHT), ...(node.nodeType === 1 ? node.querySelectorAll(HIGHLIGHT) : [])];
      if (marks.some((m) => m && m.textContent === word)) later("highlight");
    }
  };
  new MutationObserver((records) => {
    if (word === null) return;
    for (const r of records) {
      // A childList target is a whole block (a WYSIWYG document's is the whole text): only what was added counts.
      if (r.type === "characterData" || r.type === "attributes") look(r.target);
      r.addedNodes.forEach(look);
    }
  }).observe(document.body, {
    subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["class"],
  });
  window.__reviewProbe = {
    arm: (text, highlight) => { word = text; marked = highlight; seen = { text: false, highlight: false }; at = {}; },
    wait: (ms) => new Promise((resolve) => {
      if (word === null) return resolve(at);
      waiters.push(resolve);
      setTimeout(() => resolve(null), ms);
    }),
  };
}
"""


def review_file() -> tuple[str, str]:
    return "review-1mb.md", "# Reviewed document\n\nThe agent changes this word here.\n\n" + realistic_markdown(
        REVIEW_BYTES, 11
    )


@contextlib.contextmanager
def review_off(app: RunningApp) -> Iterator[None]:
    """The app without review: ``Review.enabled`` off (what the test hook ``test.fault {review: false}`` sets, as
    bench_review.py does): an agent's edit then makes no pending change, no ``review`` event and no history entry,
    so there is nothing to highlight."""
    app.app.review.enabled = False
    try:
        yield
    finally:
        app.app.review.enabled = True


def review_texts(text: str, rounds: int) -> Iterator[tuple[int, str, str]]:
    """Each round's number, word, and text: the one before with the word changed (warm-ups first)."""
    at, old = text.index("this word") + len("this "), "word"
    for n in range(REVIEW_WARMUP + rounds):
        word = f"revised{n}"
        text = text[:at] + word + text[at + len(old) :]
        old = word
        yield n, word, text


async def armed_write(s: Stage, tab: str, word: str, text: str, highlight: bool) -> dict[str, Any]:
    """The page's probe armed for ``word``, and the agent's ``document.write`` of ``text`` on the revision it read."""
    read = tool_data(await s.agent.call_tool("document", {"action": "read", "tabId": tab}), "document.read")
    await s.page.evaluate("([w, m]) => window.__reviewProbe.arm(w, m)", [word, highlight])
    return {"action": "write", "tabId": tab, "content": text, "expected_revision": read["revision"]}


async def review_round(s: Stage, mode: str, reviewed: bool, rounds: int) -> dict[str, list[float]]:
    """``rounds`` one-word agent writes into the 1 MB document shown in ``mode`` (after uncounted warm-ups)."""
    name, text = review_file()
    tab = await agent_open(s, name)
    await s.operator.call("ui.set_mode", tabId=tab, mode=mode)
    await click_file(s.page, name)
    await heading(s.page, mode, "Reviewed document").wait_for(timeout=OPEN_TIMEOUT_SECONDS * 1000)
    await s.page.evaluate(REVIEW_PROBE)
    samples: dict[str, list[float]] = {
        k: [] for k in ("answer_text", "answer_highlight", "call_text", "call_highlight")
    }
    for n, word, written in review_texts(text, rounds):
        args = await armed_write(s, tab, word, written, reviewed)
        called = time.time() * 1000
        wrote = tool_data(await s.agent.call_tool("document", args), "agent document.write")
        answered = time.time() * 1000
        if not wrote.get("applied"):
            raise BenchError(f"the agent's write was not applied: {wrote}")
        got = await s.page.evaluate("(ms) => window.__reviewProbe.wait(ms)", REVIEW_TIMEOUT_MS)
        if got is None:
            raise BenchError(f"{word!r} was not {'highlighted' if reviewed else 'shown'} within {REVIEW_TIMEOUT_MS} ms")
        if reviewed:
            await s.operator.call("review.accept", tabId=tab, all=True)
        if n < REVIEW_WARMUP:
            continue
        for what in ("text", "highlight") if reviewed else ("text",):
            samples[f"answer_{what}"].append((got[what] - answered) / 1000)
            samples[f"call_{what}"].append((got[what] - called) / 1000)
    await s.operator.call("ui.close", tabId=tab, force=True)
    await s.new_page()
    await heading(s.page, "source", "Home").wait_for()
    return samples


async def bench_review(s: Stage, plan: Plan) -> list[dict[str, Any]]:
    out = []
    for mode in REVIEW_MODES:
        for reviewed in (True, False):
            with contextlib.nullcontext() if reviewed else review_off(s.app):
                got = await review_round(s, mode, reviewed, plan.review_rounds)
            row = {"mode": mode, "review": reviewed, **{k: summary(v) for k, v in got.items() if v}}
            progress(f"review {mode} {'on' if reviewed else 'off'}: {row}")
            out.append(row)
    return out


def render_review(rows: list[dict[str, Any]]) -> str:
    body = []
    for r in rows:
        for what in ("highlight", "text"):
            if f"answer_{what}" not in r:
                continue
            a, c = r[f"answer_{what}"], r[f"call_{what}"]
            body.append(
                [
                    r["mode"],
                    "on" if r["review"] else "off (peer)",
                    what,
                    str(a["n"]),
                    *(f"{a[k]:.0f}" for k in ("median_ms", "p95_ms")),
                    *(f"{c[k]:.0f}" for k in ("median_ms", "p95_ms")),
                ]
            )
    head = [
        "mode",
        "review",
        "on screen",
        "n",
        "answer→ median ms",
        "answer→ p95 ms",
        "call→ median ms",
        "call→ p95 ms",
    ]
    return (
        f"A one-word agent document.write into a {REVIEW_BYTES / 1e6:.0f} MB document the page shows: from the agent's "
        "answer (and from its call) to the first frame with the new word in the editor (text) and highlighted as a "
        f"change to review (highlight); peer = review switched off in the app\n{table(head, body)}"
    )


def summary(samples: list[float]) -> dict[str, float | int]:
    return {
        "median_ms": statistics.median(samples) * 1000,
        "p95_ms": p95(samples) * 1000,
        "min_ms": min(samples) * 1000,
        "max_ms": max(samples) * 1000,
        "n": len(samples),
    }


async def run(plan: Plan) -> dict[str, Any]:
    files = {
        **(big_files(plan) if "open" in plan.parts else {}),
        **(typing_files() if "latency" in plan.parts else {}),
        **(dict([review_file()]) if "review" in plan.parts else {}),
        **(paste_files(plan) if "paste" in plan.parts else {}),
        **(dict([enter_file()]) if "enter" in plan.parts else {}),
        "home.md": HOME_TEXT,
        "notes.md": "# Notes\n\n" + realistic_markdown(NOTES_BYTES, seed=3),
        "other.md": "# Other\n",
    }
    with bench_dir("ui") as tmp:
        async with stage(tmp, files) as s:
            await click_file(s.page, "home.md")
            await heading(s.page, "source", "Home").wait_for()
            opening = await bench_open(s, plan) if "open" in plan.parts else None
            latency = await bench_latency(s, plan) if "latency" in plan.parts else None
            typing = await bench_keystrokes(s, plan.keystrokes) if "saved" in plan.parts else None
            review = await bench_review(s, plan) if "review" in plan.parts else None
            pasted = await bench_paste(s, plan) if "paste" in plan.parts else None
            enter = await enter_round(s, plan) if "enter" in plan.parts else None
    results: dict[str, Any] = {"machine": machine_line()}
    if pasted is not None:
        results["paste"] = pasted
    if enter is not None:
        results["enter"] = {"interval_ms": plan.interval * 1000, **enter}
    if review is not None:
        results["review"] = review
    if opening is not None:
        ways = {}
        for way in OPENINGS:
            got = opening[way.label]
            ways[way.label] = {
                "mode": way.mode,
                "bytes": len(files[big_name(way, 0)[0]].encode()),
                "timeout_seconds": plan.timeout_of(way),
                **{what: finished(got[what]) for what in ("shown", "interactive")},
            }
        results["open"] = {"target_source_seconds": TARGET_SOURCE_SECONDS, "ways": ways}
    if latency is not None:
        results["latency"] = {"interval_ms": plan.interval * 1000, "rounds": latency}
    if typing is None:
        return results
    quiet, loaded = typing["samples"]["quiet"], typing["samples"]["loaded"]
    return {
        **results,
        "keystroke": {
            "document_bytes": len(files["notes.md"].encode()),
            "agent_period_ms": AGENT_PERIOD_SECONDS * 1000,
            "agent_writes": typing["agent_writes"],
            "quiet": summary(quiet),
            "loaded": summary(loaded),
            "ratio_median": statistics.median(loaded) / statistics.median(quiet),
            "ratio_p95": p95(loaded) / p95(quiet),
        },
    }


def finished(samples: list[float | None]) -> dict[str, Any]:
    """The summary of the openings that got there in time, and how many were cut off."""
    done = [x for x in samples if x is not None]
    return {**(summary(done) if done else {}), "n": len(done), "cut_off": len(samples) - len(done)}


def fmt_open(d: dict[str, Any], timeout: float) -> str:
    cut = f"> {timeout * 1000:.0f} (cut off)" if d["cut_off"] else ""
    if not d["n"]:
        return cut
    return fmt(d) + (f"; {d['cut_off']} {cut}" if cut else "")


def render(results: dict[str, Any], plan: Plan) -> str:
    parts = []
    if "open" in results:
        parts.append(render_open(results["open"]))
    if "latency" in results:
        parts.append(render_latency(results["latency"]["rounds"], plan))
    if "keystroke" in results:
        parts.append(render_saved(results["keystroke"]))
    if "review" in results:
        parts.append(render_review(results["review"]))
    if "paste" in results:
        parts.append(render_paste(results["paste"]))
    if "enter" in results:
        parts.append(render_enter(results["enter"], plan))
    return "\n\n".join(parts)


def render_open(op: dict[str, Any]) -> str:
    target = op["target_source_seconds"]
    rows = []
    for label, way in op["ways"].items():
        goal = f"target < {target:.0f} s" if way["mode"] == "source" else "as measured"
        shown, ready = (fmt_open(way[what], way["timeout_seconds"]) for what in ("shown", "interactive"))
        rows.append([label, f"{way['bytes']:,}", str(ready and way["interactive"]["n"]), shown, ready, goal])
    opening = table(["opening", "bytes", "n", "shown ms", "interactive ms", ""], rows)
    return (
        "Open a large Markdown file from the tree, ms median (min–max): shown = its first heading on screen, "
        "interactive = a key typed into that heading on screen\n"
        f"{opening}"
    )


def render_saved(ks: dict[str, Any]) -> str:
    rows = [
        [name, str(ks[name]["n"]), f"{ks[name]['median_ms']:.1f}", f"{ks[name]['p95_ms']:.1f}", fmt(ks[name])]
        for name in ("quiet", "loaded")
    ]
    rows.append(["loaded/quiet", "", f"{ks['ratio_median']:.2f}", f"{ks['ratio_p95']:.2f}", ""])
    typing = table(["agent", "n", "median ms", "p95 ms", "median (min–max)"], rows)
    return (
        f"One key + Ctrl+S until the {ks['document_bytes'] / 1000:.0f} KB file on disk holds it; loaded = an agent "
        f"writes another document every {ks['agent_period_ms']:.0f} ms ({ks['agent_writes']} writes in all)\n"
        f"{typing}"
    )


def fmt(d: dict[str, Any]) -> str:
    return f"{d['median_ms']:.0f} ({d['min_ms']:.0f}–{d['max_ms']:.0f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="openings per source-mode way (each its own file)")
    parser.add_argument("--wysiwyg-rounds", type=int, default=1, help="openings per WYSIWYG way")
    parser.add_argument(
        "--wysiwyg-timeout", type=float, default=30.0, help="seconds before a WYSIWYG opening is cut off"
    )
    parser.add_argument("--keystrokes", type=int, default=40, help="counted keystrokes per condition (to saved)")
    parser.add_argument(
        "--latency-keystrokes", type=int, default=40, help="counted keystrokes per mode and size (to screen)"
    )
    parser.add_argument("--interval", type=float, default=0.15, help="seconds between keys (to screen)")
    parser.add_argument("--review-rounds", type=int, default=20, help="agent writes per mode and review setting")
    parser.add_argument("--paste-rounds", type=int, default=10, help="pastes per kind of clipboard content")
    parser.add_argument(
        "--parts",
        default="open,latency,saved,review,paste,enter",
        help="which measurements, comma-separated: open (large files), latency (to screen), saved (to disk), "
        "review (an agent's change to its highlight), paste (100 KB of HTML to screen), "
        "enter (Enter in a list item of 1 MB, WYSIWYG)",
    )
    parser.add_argument(
        "--dist",
        type=Path,
        default=DIST,
        help="the page's build to serve (default: this checkout's); another commit's for before/after figures: "
        "`npx vite build --outDir DIR` in its frontend/",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        help="another build of the page (OLD) run before this one (or --dist) for each part, with ratios new / old",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: one opening per way (WYSIWYG cut off after 10 s), few keys per measurement",
    )
    args = parser.parse_args()
    parts = frozenset(p.strip() for p in args.parts.split(",") if p.strip())
    PAGE_DIST[0] = args.dist.resolve()
    if args.keystrokes < BLOCK:
        parser.error(f"--keystrokes: at least {BLOCK} (one quiet and one loaded block)")
    if not parts or parts - {"open", "latency", "saved", "review", "paste", "enter"}:
        parser.error(f"--parts: choose among open, latency, saved, review, paste, enter (got {args.parts!r})")
    if args.quick:
        plan = Plan(1, 1, 10.0, BLOCK, 5, args.interval, parts, 3, 2)  # one quiet and one loaded block
    else:
        plan = Plan(
            args.rounds,
            args.wysiwyg_rounds,
            args.wysiwyg_timeout,
            args.keystrokes,
            args.latency_keystrokes,
            args.interval,
            parts,
            args.review_rounds,
            args.paste_rounds,
        )
    if args.compare is not None:
        return compare(plan, args.compare.resolve(), PAGE_DIST[0])
    results = run_async(run, plan)
    print(results["machine"])
    print(render(results, plan))
    print(f"figures saved to {save_results('ui', results)}")
    return 0


def compared_figures(results: dict[str, Any]) -> dict[str, dict[str, float]]:
    """The figures ``--compare`` sets side by side: name -> {median_ms, p95_ms}."""
    out: dict[str, dict[str, float]] = {}
    for r in results.get("review", []):
        for what in ("text", "highlight"):
            if f"answer_{what}" in r:
                out[f"review {r['mode']} {'on' if r['review'] else 'off'}: answer to {what}"] = r[f"answer_{what}"]
    for kind in PASTE_KINDS:
        if results.get("paste", {}).get(kind, {}).get("n"):
            out[f"paste {kind}"] = results["paste"][kind]
    for key in ("enter", "letter"):
        if key in results.get("enter", {}):
            out[f"enter: {key}"] = results["enter"][key]
    return out


def compare(plan: Plan, old: Path, new: Path) -> int:
    """Each part run with the ``old`` build of the page, then with ``new``, in one process; ratios new / old."""
    both: dict[str, dict[str, Any]] = {"old": {}, "new": {}}
    loads = [os.getloadavg()]
    for part in sorted(plan.parts):
        for label, dist in (("old", old), ("new", new)):
            PAGE_DIST[0] = dist
            progress(f"--compare: {part} with the {label} page ({dist})")
            got = run_async(run, dataclasses.replace(plan, parts=frozenset({part})))
            both[label] = {**both[label], **got}
            loads.append(os.getloadavg())
    print(both["new"]["machine"])
    print("load average (1 min) before and after each run: " + ", ".join(f"{load[0]:.1f}" for load in loads))
    for label, dist in (("old", old), ("new", new)):
        print(f"\n=== the {label} page: {dist}\n{render(both[label], plan)}")
    figures = {label: compared_figures(both[label]) for label in both}
    rows = []
    for name, n in figures["new"].items():
        o = figures["old"].get(name)
        if o is None:
            continue
        rows.append(
            [
                name,
                *(f"{o[k]:.0f}" for k in ("median_ms", "p95_ms")),
                *(f"{n[k]:.0f}" for k in ("median_ms", "p95_ms")),
                *(f"{n[k] / o[k]:.2f}" if o[k] else "-" for k in ("median_ms", "p95_ms")),
            ]
        )
    head = ["figure", "old median ms", "old p95 ms", "new median ms", "new p95 ms", "median new/old", "p95 new/old"]
    print(
        "\nnew page / old page (each part run with the old page, then the new, one after the other)\n"
        + table(head, rows)
    )
    print(f"figures saved to {save_results('ui-compare', both)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
