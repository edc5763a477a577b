"""What a page start costs the browser: two builds of the page side by side, this checkout's and ``--compare``.

Each build is served by an app of its own (one workspace of a few notes, the same for both). A round opens a page on
each app in turn, the order alternating from round to round, each page in a fresh browser context (as a person's
new window, or a UI test, has it), waits for it to be ready and then one second more (the idle work a start leaves:
the WYSIWYG module's load, the tree), and reads Chromium's own counters for that page (CDP
``Performance.getMetrics``): the renderer's main-thread task time, and of it script, style and layout. Printed: each
build's median and p95, and new/old (the median of the round-by-round ratios).

    .venv/bin/python bench/bench_page_start.py --compare OLD_DIST [--dist NEW_DIST] [--rounds 20]

OLD_DIST: another commit's page, built with `npx vite build --outDir OLD_DIST` in its frontend/.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from pathlib import Path

from bench_ui import _App, chromium, p95
from benchlib import bench_dir, machine_line, paired_ratio, prepare_home, run_async, table
from playwright.async_api import Browser

from vmark.app.ui_server import DIST

#: Chromium's counters read per page (seconds of the renderer's main thread)
METRICS = ("TaskDuration", "ScriptDuration", "RecalcStyleDuration", "LayoutDuration")
NOTES = {f"note-{n}.md": f"# Note {n}\n\nSome *words* and a [link](note-{(n + 1) % 5}.md).\n" for n in range(5)}
WARMUP = 2


async def page_start(browser: Browser, app: _App) -> dict[str, float]:
    context = await browser.new_context(viewport={"width": 1600, "height": 900})
    try:
        page = await context.new_page()
        cdp = await context.new_cdp_session(page)
        await cdp.send("Performance.enable")
        await page.goto(app.ui_url + "&window=main")
        await page.wait_for_selector("body[data-ready=true]")
        await asyncio.sleep(1.0)
        got = {m["name"]: m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]}
        return {name: got[name] * 1000 for name in METRICS}
    finally:
        await context.close()


async def run(builds: dict[str, Path], rounds: int) -> dict[str, list[dict[str, float]]]:
    samples: dict[str, list[dict[str, float]]] = {label: [] for label in builds}
    apps: dict[str, _App] = {}
    with bench_dir("page-start") as tmp:
        try:
            for label, dist in builds.items():
                folder = tmp / label / "ws"
                folder.mkdir(parents=True)
                for name, text in NOTES.items():
                    (folder / name).write_text(text, "utf-8")
                apps[label] = _App(prepare_home(tmp / label / "home"), str(folder), dist)
                await apps[label].start()
            async with chromium() as browser:
                for n in range(WARMUP + rounds):
                    order = list(builds) if n % 2 == 0 else list(reversed(builds))
                    for label in order:
                        got = await page_start(browser, apps[label])
                        if n >= WARMUP:
                            samples[label].append(got)
        finally:
            for app in apps.values():
                await app.stop()
    return samples


def render(samples: dict[str, list[dict[str, float]]]) -> str:
    rows = []
    for name in METRICS:
        old = [s[name] for s in samples["old"]]
        new = [s[name] for s in samples["new"]]
        cells = [f"{statistics.median(v):.1f} / {p95(v):.1f}" for v in (old, new)]
        rows.append([name, *cells, f"{paired_ratio(new, old):.2f}"])
    head = ["renderer main thread, ms", "old median / p95", "new median / p95", "new/old"]
    return table(head, rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compare", type=Path, required=True, help="the other build of the page (OLD)")
    parser.add_argument("--dist", type=Path, default=DIST, help="this build (NEW; default: this checkout's)")
    parser.add_argument("--rounds", type=int, default=20, help="counted page starts per build")
    args = parser.parse_args()
    for dist in (args.compare, args.dist):
        if not (dist / "index.html").is_file():
            parser.error(f"{dist} holds no built page (index.html)")
    samples = run_async(run, {"old": args.compare.resolve(), "new": args.dist.resolve()}, args.rounds)
    print(machine_line())
    print(f"{args.rounds} page starts per build, a fresh context each, the order alternating")
    print(f"old: {args.compare}\nnew: {args.dist}")
    print(render(samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
