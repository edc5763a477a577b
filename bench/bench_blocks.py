"""Chromium's own work per Enter by how a long document's top-level blocks are laid out, in a page of plain HTML.

A 1 MB document in WYSIWYG is about 5,000 top-level blocks, each a child of the editor's element with
``content-visibility: auto`` (style.css). This bench isolates what the browser does per key from the editor's
JavaScript: a ``contenteditable`` of ``--blocks`` paragraphs, the caret at the end of the first, Enter pressed
``--keys`` times; Chromium's trace of each key (``Tracing`` over CDP) is summed by the renderer main thread's
*self thread time* per phase (thread time, not wall time: the figures hold on a loaded machine). Layouts:

``flat, content-visibility`` (the page today), ``flat, none`` (no containment), and ``groups of G,
content-visibility``: the same paragraphs in ``blocks / G`` containers, the containers carrying it: what a
document model with section nodes (or a view split in parts) would give, which ProseMirror's view does not allow
today (each child of the document is a child of the editor's element).

    .venv/bin/python bench/bench_blocks.py [--blocks 5000] [--group 50] [--keys 6]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from typing import Any

from benchlib import machine_line, renderer_trace, table
from playwright.async_api import Browser, async_playwright

from vmark.testing.chromium import CHROMIUM, CHROMIUM_ARGS

#: trace event name -> phase; an event's self time counts for its phase (the rest is "other")
PHASES = {
    "UpdateLayoutTree": "style",
    "Document::recalcStyle": "style",
    "Document::rebuildLayoutTree": "style",
    "LocalFrameView::performLayout": "layout",
    "Layout": "layout",
    "Blink.PrePaint.UpdateTime": "prepaint",
    "PrePaint": "prepaint",
    "Blink.CompositingInputs.UpdateTime": "prepaint",
    "IntersectionObserverController::computeIntersections": "intersection observer",
    "HitTest": "hover hit test",
    "LayoutView::HitTest": "hover hit test",
    "Paint": "paint",
    "CullRectUpdate": "paint",
    "Blink.Paint.UpdateTime": "paint",
    "Commit": "commit",
    "PaintArtifactCompositor::Update": "commit",
    "Layerize": "commit",
    "Editor::SyncSelection": "selection",
    "FunctionCall": "script",
    "EventDispatch": "script",
}
ORDER = (
    "intersection observer",
    "layout",
    "prepaint",
    "hover hit test",
    "paint",
    "commit",
    "style",
    "selection",
    "script",
    "other",
)
CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink"]
TEXT = "Paragraph {} with some words in it, enough of them to wrap on a narrow screen, lorem ipsum dolor sit amet."


def self_times(raw: bytes) -> Counter[str]:
    """Self thread time (ms) per phase of the renderer main thread's complete events in a trace."""
    events, main = renderer_trace(raw)
    spans = sorted(
        (e for e in events if (e.get("pid"), e.get("tid")) in main and e.get("ph") == "X" and "dur" in e),
        key=lambda e: (e["ts"], -e["dur"]),
    )
    out: Counter[str] = Counter()
    stack: list[dict[str, Any]] = []
    for e in spans:
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
            stack.pop()
        ms = e.get("tdur", e["dur"]) / 1000
        if stack:
            out[PHASES.get(stack[-1]["name"], "other")] -= ms
        out[PHASES.get(e["name"], "other")] += ms
        stack.append(e)
    return out


def page_html(blocks: int, group: int, css: str) -> str:
    paragraphs = [f"<p>{TEXT.format(i)}</p>" for i in range(blocks)]
    if group > 1:
        paragraphs = ["<div>" + "".join(paragraphs[k : k + group]) + "</div>" for k in range(0, blocks, group)]
    style = "#ed { max-width: 680px; margin: 0 auto; font: 16px/1.7 sans-serif; } " + css
    return f"<style>{style}</style><div id=ed contenteditable>{''.join(paragraphs)}</div>"


async def per_key(browser: Browser, html: str, keys: int) -> Counter[str]:
    """Each phase's self thread time per Enter, the first key left out (warm-up)."""
    page = await browser.new_page(viewport={"width": 1200, "height": 800})
    try:
        await page.set_content(html)
        await page.click("#ed p")
        await page.keyboard.press("End")
        await asyncio.sleep(1.0)
        total: Counter[str] = Counter()
        for n in range(keys + 1):
            await browser.start_tracing(page=page, categories=CATEGORIES)
            await page.keyboard.press("Enter")
            await page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
            raw = await browser.stop_tracing()
            if n:
                total.update(self_times(raw))
        return Counter({k: v / keys for k, v in total.items()})
    finally:
        await page.close()


async def run(blocks: int, group: int, keys: int) -> str:
    cv = "content-visibility: auto; contain-intrinsic-size: auto {};"
    layouts = {
        "flat, content-visibility": (1, "#ed > * { " + cv.format("1.6em") + " }"),
        "flat, none": (1, ""),
        f"groups of {group}, content-visibility": (group, "#ed > * { " + cv.format(f"{1.6 * group}em") + " }"),
    }
    got: dict[str, Counter[str]] = {}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for name, (size, css) in layouts.items():
                got[name] = await per_key(browser, page_html(blocks, size, css), keys)
        finally:
            await browser.close()
    names = list(layouts)
    rows = [[phase, *(f"{got[n][phase]:.1f}" for n in names)] for phase in ORDER]
    totals = [sum(got[n][p] for p in ORDER) for n in names]
    rows.append(["total", *(f"{t:.1f}" for t in totals)])
    rows.append(["total / flat, content-visibility", *(f"{t / totals[0]:.2f}" for t in totals)])
    return (
        f"Enter in a contenteditable of {blocks:,} paragraphs: the renderer main thread's self thread time per key "
        f"(ms, mean of {keys} keys)\n{table(['phase', *names], rows)}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=5000, help="top-level paragraphs")
    parser.add_argument("--group", type=int, default=50, help="paragraphs per container in the grouped layout")
    parser.add_argument("--keys", type=int, default=6, help="Enter presses traced per layout (after one warm-up)")
    args = parser.parse_args()
    print(machine_line())
    print(asyncio.run(run(args.blocks, args.group, args.keys)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
