"""Where the time of opening a large document in WYSIWYG goes: Chromium's CPU profiler over CDP.

The agent opens the document as a background tab and sets it to WYSIWYG (as ``bench_ui.py --parts open``
does); the profiler runs from the person's click in the tree until the editor has shown the first heading
and then until the page is quiet (no long task for a second), so the idle-time work after the first frame is
in it too. Printed: the wall-clock times of the page's own ``performance`` marks (``vmark:`` prefix, when the
build has them), and the total and self time of the functions that make up an opening (a build without
minification keeps their names: ``npx vite build --minify false --outDir DIR``, then ``--dist DIR``).

    .venv/bin/python bench/profile_open.py --dist /tmp/prof-dist [--size 1000000] [--top 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import bench_ui
from bench_ui import Opening, agent_open, click_file, heading, realistic_markdown, stage
from benchlib import bench_dir, machine_line, run_async

#: functions whose total time is an opening's phase (name as the unminified build keeps it)
PHASES = (
    ("markdown-it parse", "parse", "markdown-it"),
    ("block builder (parseBlocks)", "parseBlocks", None),
    ("SourceDoc", "SourceDoc", None),
    ("EditorState.create", "create", "prosemirror-state"),
    ("EditorView (DOM build)", "EditorView", None),
    ("view update (updateStateInner)", "updateStateInner", None),
    ("DecorationSet.create", "create", "prosemirror-view"),
    ("garbage collector", "(garbage collector)", None),
    ("program (layout, style, paint)", "(program)", None),
)

QUIET_SECONDS = 1.0

#: the page notes when its long tasks end and when the click came
WATCH = """() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push(e.startTime + e.duration);
    }).observe({ type: "longtask", buffered: false });
    window.__clickAt = 0;
    const clicked = () => { window.__clickAt = performance.now(); };
    document.addEventListener("click", clicked, { capture: true, once: true });
}"""


def profile_totals(profile: dict[str, Any]) -> tuple[dict[str, float], dict[str, float], float]:
    """(total ms per function, self ms per function, profile ms): a function counts once per sample."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent: dict[int, int] = {}
    for n in profile["nodes"]:
        for c in n.get("children", []):
            parent[c] = n["id"]

    def key(node: dict[str, Any]) -> str:
        frame = node["callFrame"]
        name = frame["functionName"] or "(anonymous)"
        url = frame["url"].rsplit("/", 1)[-1]
        return f"{name} {url}:{frame['lineNumber'] + 1}" if url else name

    total: dict[str, float] = defaultdict(float)
    own: dict[str, float] = defaultdict(float)
    for sample, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        ms = delta / 1000
        own[key(nodes[sample])] += ms
        seen = set()
        at: int | None = sample
        while at is not None:
            k = key(nodes[at])
            if k not in seen:
                total[k] += ms
                seen.add(k)
            at = parent.get(at)
    return total, own, (profile["endTime"] - profile["startTime"]) / 1000


async def profile_open(size: int, top: int, typing: bool) -> None:
    way = Opening("wysiwyg", "profile", "wysiwyg", True, size)
    name, title = bench_ui.big_name(way, 0)
    files = {name: f"# {title}\n\n{realistic_markdown(size)}", "home.md": bench_ui.HOME_TEXT}
    with bench_dir("profile") as tmp:
        async with stage(tmp, files) as s:
            await click_file(s.page, "home.md")
            await heading(s.page, "source", "Home").wait_for()
            tab = await agent_open(s, name)
            await s.operator.call("ui.set_mode", tabId=tab, mode="wysiwyg")
            cdp = await s.page.context.new_cdp_session(s.page)
            await cdp.send("Profiler.enable")
            await cdp.send("Profiler.setSamplingInterval", {"interval": 200})
            await s.page.evaluate(WATCH)
            await cdp.send("Profiler.start")
            start = time.perf_counter()
            await click_file(s.page, name)
            await heading(s.page, "wysiwyg", title).wait_for(timeout=120_000)
            shown = time.perf_counter() - start
            interactive = None
            if typing:
                # As bench_ui.py's "interactive": a key typed into the heading, on screen.
                await heading(s.page, "wysiwyg", title).click()
                await s.page.keyboard.press("End")
                await s.page.keyboard.type("Z")
                await heading(s.page, "wysiwyg", title + "Z").wait_for(timeout=120_000)
                interactive = time.perf_counter() - start
            # Quiet: no long task ended in the last second.
            while True:
                await asyncio.sleep(0.25)
                last = await s.page.evaluate("Math.max(0, ...window.__longTasks)")
                now = await s.page.evaluate("performance.now()")
                if now - last > QUIET_SECONDS * 1000:
                    break
            quiet = time.perf_counter() - start
            profile = (await cdp.send("Profiler.stop"))["profile"]
            marks = await s.page.evaluate("""() => performance.getEntriesByType("mark")
                .filter((m) => m.name.startsWith("vmark:")).map((m) => [m.name, m.startTime - window.__clickAt])""")
            await s.operator.call("ui.close", tabId=tab, force=True)
    total, own, length = profile_totals(profile)
    print(machine_line())
    typed = f", interactive {interactive * 1000:.0f} ms" if interactive is not None else ""
    print(f"{size:,} bytes: shown {shown * 1000:.0f} ms{typed}, quiet {quiet * 1000:.0f} ms, profile {length:.0f} ms")
    if marks:
        print("marks (ms after the click):")
        for mark, at in marks:
            print(f"  {at:8.0f}  {mark}")
    print("phases (total ms: the function and what it calls):")
    for label, fn, url_part in PHASES:
        ms = sum(v for k, v in total.items() if k.split(" ", 1)[0] == fn and (url_part is None or url_part in k))
        print(f"  {ms:8.0f}  {label}")
    print(f"top {top} by self time:")
    for k, v in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {v:8.0f}  {k}")
    print(f"top {top} by total time:")
    for k, v in sorted(total.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {v:8.0f}  {k}")
    Path("bench/results").mkdir(parents=True, exist_ok=True)
    Path(f"bench/results/profile-open-{size}.json").write_text(json.dumps({"total": total, "self": own}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes of generated Markdown")
    parser.add_argument("--top", type=int, default=30, help="functions listed by self and by total time")
    parser.add_argument("--type", action="store_true", help="type a key into the first heading once it shows")
    parser.add_argument(
        "--dist", type=Path, help="the page's build to serve (one without minification names functions)"
    )
    args = parser.parse_args()
    if args.dist:
        bench_ui.PAGE_DIST[0] = args.dist.resolve()
    run_async(profile_open, args.size, args.top, args.type)


if __name__ == "__main__":
    main()
