"""Where the page's time goes in bench_ui.py's WYSIWYG paths: Chromium's CPU profiler around each action.

For each chosen path (``review``: an agent's one-word write into a 1 MB document to its highlight; ``paste``:
Ctrl+V of 100 KB of HTML; ``enter``: Enter at the end of a list item, then a letter), the page's CPU profile is
recorded over the Chrome DevTools Protocol (``Profiler.start`` / ``Profiler.stop``) from just before the action
to the first frame that shows its result, over several rounds, and the functions are listed by self time and by
total time (a function counts once per sample however deeply it recurses), summed over the rounds.

Profile an unminified build to read the names: ``npx vite build --minify false --outDir DIR`` in ``frontend/``,
then ``--dist DIR``.

    .venv/bin/python bench/profile_ui.py --parts review,paste,enter --rounds 5 [--dist DIR] [--top 30] [--settled]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bench_ui as ui
from benchlib import BenchError, bench_dir, machine_line, renderer_trace, run_async, tool_data
from playwright.async_api import CDPSession, Page

from vmark.app.ui_server import DIST

#: microseconds between samples
SAMPLING_US = 200


@dataclass
class Profile:
    """Self and total time per function (``name file:line``), milliseconds summed over the recorded actions."""

    self_ms: Counter[str] = field(default_factory=Counter)
    total_ms: Counter[str] = field(default_factory=Counter)
    wall_ms: float = 0.0
    actions: int = 0

    def add(self, profile: dict[str, Any]) -> None:
        if SAVE:
            SAVE[0].mkdir(parents=True, exist_ok=True)
            (SAVE[0] / f"profile-{len(list(SAVE[0].iterdir()))}.cpuprofile").write_text(json.dumps(profile))
        nodes = {n["id"]: n for n in profile["nodes"]}
        parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}
        deltas = profile.get("timeDeltas", [])
        samples = profile.get("samples", [])
        # a sample's time is the gap to the next one (the last gets the mean)
        mean = (profile["endTime"] - profile["startTime"]) / max(1, len(samples))
        for i, sample in enumerate(samples):
            ms = (deltas[i + 1] if i + 1 < len(deltas) else mean) / 1000
            self.self_ms[_name(nodes[sample])] += ms
            seen: set[str] = set()
            at: int | None = sample
            while at is not None:
                name = _name(nodes[at])
                if name not in seen:
                    seen.add(name)
                    self.total_ms[name] += ms
                at = parent.get(at)
        self.wall_ms += (profile["endTime"] - profile["startTime"]) / 1000
        self.actions += 1

    def render(self, title: str, top: int) -> str:
        per = max(1, self.actions)
        lines = [f"{title}: {self.actions} actions, {self.wall_ms / per:.0f} ms recorded per action"]
        for label, counter in (("self", self.self_ms), ("total", self.total_ms)):
            lines.append(f"  by {label} time (ms per action)")
            for name, ms in counter.most_common(top):
                lines.append(f"    {ms / per:8.1f}  {name}")
        return "\n".join(lines)


def _name(node: dict[str, Any]) -> str:
    frame = node["callFrame"]
    url = frame.get("url", "").rsplit("/", 1)[-1]
    where = f" {url}:{frame['lineNumber'] + 1}" if url else ""
    return f"{frame['functionName'] or '(anonymous)'}{where}"


#: where to save each recorded profile (``--save DIR``: open them in the DevTools' Performance panel)
SAVE: list[Path] = []
#: record only once the long document's fill is done (``--settled``): an edit's own cost, not the fill's beside it
SETTLED: list[bool] = [False]


async def settled(page: Page) -> None:
    """With ``--settled``: the document's blocks are all in the view (mdsource/fill.ts) and the page is idle."""
    if SETTLED[0]:
        await page.wait_for_function("() => !document.querySelector('.ProseMirror[aria-busy]')", timeout=120_000)
        await asyncio.sleep(2.0)  # the idle-time highlighting of the blocks the fill appended


#: also record the renderer's trace (style, layout, paint per action: ``--trace``)
TRACE: list[Counter[str]] = []
#: the trace events summed (renderer main thread, milliseconds; Layout and UpdateLayoutTree also count objects)
TRACED = (
    "UpdateLayoutTree",
    "Layout",
    "PrePaint",
    "Paint",
    "Layerize",
    "Commit",
    "HitTest",
    "IntersectionObserverController::computeIntersections",
    "FunctionCall",
    "EvaluateScript",
    "RunMicrotasks",
    "TimerFire",
    "FireAnimationFrame",
    "EventDispatch",
    "ParseHTML",
    "MajorGC",
    "MinorGC",
    "V8.GC_SCAVENGER",
    "BlinkGC.AtomicPhase",
)


def _trace_sums(raw: bytes) -> Counter[str]:
    events, main = renderer_trace(raw)
    out: Counter[str] = Counter()
    for e in events:
        if e.get("name", "").endswith("InvalidationTracking"):
            data = e.get("args", {}).get("data", {})
            node = str(data.get("nodeName", ""))[:40]
            out[f"{e['name']}: {data.get('reason') or (data.get('invalidationSet', {}) and 'set')} @ {node}"] += 1
            continue
        if (e.get("pid"), e.get("tid")) not in main or e.get("ph") != "X" or e.get("name") not in TRACED:
            continue
        out[f"{e['name']} ms"] += e.get("dur", 0) / 1000
        out[f"{e['name']} count"] += 1
        data = e.get("args", {}).get("beginData", {})
        if e["name"] == "Layout":
            out["Layout dirtyObjects"] += data.get("dirtyObjects", 0)
            out["Layout totalObjects"] += data.get("totalObjects", 0)
        if e["name"] == "UpdateLayoutTree":
            out["UpdateLayoutTree elementCount"] += e.get("args", {}).get("elementCount", 0)
    return out


async def profiled(page: Page, action: Callable[[], Awaitable[None]]) -> dict[str, Any]:
    if TRACE:
        browser = page.context.browser
        assert browser is not None
        await browser.start_tracing(
            page=page,
            categories=[
                "devtools.timeline",
                "disabled-by-default-devtools.timeline",
                "disabled-by-default-devtools.timeline.invalidationTracking",
            ],
        )
        try:
            await action()
        finally:
            TRACE[0].update(_trace_sums(await browser.stop_tracing()))
            TRACE[0]["actions"] += 1
        return {"nodes": [], "samples": [], "timeDeltas": [], "startTime": 0, "endTime": 0}
    cdp: CDPSession = await page.context.new_cdp_session(page)
    await cdp.send("Profiler.enable")
    await cdp.send("Profiler.setSamplingInterval", {"interval": SAMPLING_US})
    await cdp.send("Profiler.start")
    try:
        await action()
    finally:
        got = await cdp.send("Profiler.stop")
        await cdp.detach()
    return dict(got["profile"])


async def profile_review(s: ui.Stage, rounds: int) -> Profile:
    out = Profile()
    name, text = ui.review_file()
    tab = await ui.agent_open(s, name)
    await s.operator.call("ui.set_mode", tabId=tab, mode="wysiwyg")
    await ui.click_file(s.page, name)
    await ui.heading(s.page, "wysiwyg", "Reviewed document").wait_for(timeout=ui.OPEN_TIMEOUT_SECONDS * 1000)
    await settled(s.page)
    await s.page.evaluate(ui.REVIEW_PROBE)
    for n, word, written in ui.review_texts(text, rounds):
        args = await ui.armed_write(s, tab, word, written, True)

        async def write(args: dict[str, Any] = args, word: str = word) -> None:
            tool_data(await s.agent.call_tool("document", args), "agent document.write")
            got = await s.page.evaluate("(ms) => window.__reviewProbe.wait(ms)", ui.REVIEW_TIMEOUT_MS)
            if got is None:
                raise BenchError(f"{word!r} was not highlighted")
            await asyncio.sleep(0.3)  # what the page does after the highlight (status bar, outline, idle work)

        got = await profiled(s.page, write)
        if n >= ui.REVIEW_WARMUP:
            out.add(got)
        await s.operator.call("review.accept", tabId=tab, all=True)
        await asyncio.sleep(0.3)
    await s.operator.call("ui.close", tabId=tab, force=True)
    return out


async def profile_paste(s: ui.Stage, rounds: int) -> Profile:
    out = Profile()
    html, source = ui.paste_content()
    context = await s.browser.new_context(viewport={"width": 1200, "height": 800})
    await context.grant_permissions(["clipboard-read", "clipboard-write"], origin=s.app.ui_url.split("/?")[0])
    page = await context.new_page()
    await page.goto(s.app.ui_url + "&window=main")
    await page.wait_for_selector("body[data-ready=true]")
    try:
        for n in range(ui.PASTE_WARMUP + rounds):
            name, title = ui.paste_name(n)
            tab = await ui.agent_open(s, name)
            await s.operator.call("ui.set_mode", tabId=tab, mode="wysiwyg")
            await ui.click_file(page, name)
            shown = ui.heading(page, "wysiwyg", title)
            await shown.wait_for(timeout=ui.OPEN_TIMEOUT_SECONDS * 1000)
            await settled(page)
            await shown.click()
            await page.keyboard.press("End")
            marker = f"Pasted end {n}"
            await page.evaluate(ui._PASTE_CLIPBOARD, [html + f"<p>{marker}</p>", f"{source}\n{marker}\n"])
            await page.evaluate(ui.KEY_PROBE)
            await page.evaluate("(text) => window.__keyProbe.arm(text)", marker)
            await asyncio.sleep(1.0)

            async def paste() -> None:
                await page.keyboard.press("Control+v")
                if await page.evaluate("(ms) => window.__keyProbe.wait(ms)", ui.KEY_TIMEOUT_MS) is None:
                    raise BenchError("the paste did not show")

            got = await profiled(page, paste)
            if n >= ui.PASTE_WARMUP:
                out.add(got)
            await s.operator.call("ui.close", tabId=tab, force=True)
    finally:
        await context.close()
    return out


async def profile_enter(s: ui.Stage, rounds: int) -> tuple[Profile, Profile]:
    enters, letters = Profile(), Profile()
    name, _ = ui.enter_file()
    tab = await ui.agent_open(s, name)
    await s.operator.call("ui.set_mode", tabId=tab, mode="wysiwyg")
    await ui.click_file(s.page, name)
    items = s.page.locator(":is(.ProseMirror, .ProseMirror > .pm-section) > ul > li")
    last = items.filter(has_text=re.compile("^second item$"))
    await last.wait_for(timeout=ui.OPEN_TIMEOUT_SECONDS * 1000)
    await settled(s.page)
    await last.click()
    await s.page.keyboard.press("End")
    await s.page.evaluate(ui.ENTER_PROBE)
    await asyncio.sleep(ui.LATENCY_SETTLE_SECONDS)
    items = 2
    for n in range(ui.ENTER_WARMUP + rounds):
        for kind, key, into in (("items", "Enter", enters), ("text", "abcdefghijklmnopqrstuvwxyz"[n % 26], letters)):
            value: int | str = items + 1 if kind == "items" else key
            await s.page.evaluate("([kind, value]) => window.__enterProbe.arm(kind, value)", [kind, value])

            async def press(key: str = key) -> None:
                await s.page.keyboard.press(key)
                if await s.page.evaluate("(ms) => window.__enterProbe.wait(ms)", ui.KEY_TIMEOUT_MS) is None:
                    raise BenchError(f"{key} did not show")

            got = await profiled(s.page, press)
            if n >= ui.ENTER_WARMUP:
                into.add(got)
            await asyncio.sleep(0.3)
        items += 1
    await s.operator.call("ui.close", tabId=tab, force=True)
    return enters, letters


async def run(parts: frozenset[str], rounds: int, top: int) -> str:
    plan = ui.Plan(1, 1, 30.0, ui.BLOCK, parts=parts, paste_rounds=rounds)
    files = {
        **(dict([ui.review_file()]) if "review" in parts else {}),
        **(ui.paste_files(plan) if "paste" in parts else {}),
        **(dict([ui.enter_file()]) if "enter" in parts else {}),
        "home.md": ui.HOME_TEXT,
    }
    out = []
    with bench_dir("profile-ui") as tmp:
        async with ui.stage(tmp, files) as s:
            await ui.click_file(s.page, "home.md")
            await ui.heading(s.page, "source", "Home").wait_for()
            if "review" in parts:
                out.append((await profile_review(s, rounds)).render("agent write to highlight (WYSIWYG, 1 MB)", top))
            if "paste" in parts:
                out.append((await profile_paste(s, rounds)).render("paste of 100 KB of HTML (WYSIWYG, 1 MB)", top))
            if "enter" in parts:
                enters, letters = await profile_enter(s, rounds)
                out.append(enters.render("Enter in a list item (WYSIWYG, 1 MB)", top))
                out.append(letters.render("a letter into the new item", top))
    return "\n\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="review,paste,enter", help="review, paste, enter (comma-separated)")
    parser.add_argument("--rounds", type=int, default=5, help="profiled actions per part (after warm-ups)")
    parser.add_argument("--top", type=int, default=30, help="functions listed per table")
    parser.add_argument("--save", type=Path, help="save each profile (.cpuprofile) in this folder")
    parser.add_argument("--trace", action="store_true", help="the renderer's trace (style, layout, paint) instead")
    parser.add_argument("--dist", type=Path, default=DIST, help="the page's build to serve")
    parser.add_argument("--settled", action="store_true", help="record only once the document's fill is done")
    args = parser.parse_args()
    parts = frozenset(p.strip() for p in args.parts.split(",") if p.strip())
    if not parts or parts - {"review", "paste", "enter"}:
        parser.error(f"--parts: choose among review, paste, enter (got {args.parts!r})")
    ui.PAGE_DIST[0] = args.dist.resolve()
    if args.save:
        SAVE.append(args.save)
    SETTLED[0] = args.settled
    print(machine_line())
    if args.trace:
        for part in sorted(parts):
            TRACE[:] = [Counter()]
            run_async(run, frozenset({part}), args.rounds, args.top)
            per = max(1, TRACE[0].pop("actions") - 0)
            print(f"{part}: renderer main thread per action (all rounds, warm-ups included)")
            for name, value in sorted(TRACE[0].items()):
                print(f"  {value / per:10.1f}  {name}")
        return 0
    print(run_async(run, parts, args.rounds, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
