"""selection.set (and get) on a 5 MB document against the same edit on a 50 KB document, same run.

The person's page is real Chromium showing the tab in source mode; the agent is the official MCP
client (in memory) -> the bridge -> the app, as in the contract tests. Each round times a block of
calls on the small document, then the same block on the big one (the tab is switched between
blocks, untimed); rounds alternate which goes first. The edit inserts one word at the cursor.

Target (issue 3): ratio 5 MB / 50 KB <= 1.2, i.e. the cost follows the edit, not the document.

    .venv/bin/python bench/bench_selection.py [--calls 20] [--rounds 4]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import Stats, human_size, machine_line, markdown_of_size, paired_ratio, save_results, table
from mcp import Client
from playwright.async_api import Page, async_playwright

from vmark.app.server import RunningApp
from vmark.mcp.bridge_client import BridgeClient
from vmark.mcp.server import build_server
from vmark.storage.settings import Settings
from vmark.testing.chromium import CHROMIUM, CHROMIUM_ARGS

SIZES = {"50 KB": 50_000, "5 MB": 5_000_000}


async def _call(agent: Client, action: str, **args: Any) -> float:
    start = time.perf_counter()
    result = await agent.call_tool("selection", {"action": action, **args})
    elapsed = time.perf_counter() - start
    if result.is_error:
        raise RuntimeError(f"selection.{action} failed: {result.content}")
    return elapsed


async def _show(page: Page, path: Path) -> None:
    await page.click("#open-file")  # the picker: the path typed, Enter
    await page.fill("[data-testid=picker-filter]", str(path))
    await page.press("[data-testid=picker-filter]", "Enter")
    await page.wait_for_selector(f".tab.active .title:text-is('{path.stem}')")
    await page.wait_for_selector(".cm-content")
    await page.click(".cm-content")
    await page.keyboard.press("Control+Home")


async def run(calls: int, rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="vmark-bench-selection-") as tmp:
        root = Path(tmp)
        folder = root / "ws"
        folder.mkdir()
        paths = {}
        for n, (label, size) in enumerate(SIZES.items()):
            paths[label] = folder / f"doc{n}.md"
            paths[label].write_text(markdown_of_size(size, n), encoding="utf-8")
        data = root / "data"
        data.mkdir()
        Settings(data / "settings.json").set("readable_roots", [str(root)])  # the picker lists the temp folder
        app = RunningApp(data)
        await app.start()
        try:
            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = await browser.new_page()
                await page.goto(app.ui_url)
                await page.wait_for_selector("body[data-ready=true]")
                async with Client(build_server(BridgeClient(data, autostart=False))) as agent:  # type: ignore[arg-type]
                    times: dict[str, dict[str, list[float]]] = {lb: {"get": [], "set": []} for lb in SIZES}
                    for r in range(rounds):
                        order = list(SIZES) if r % 2 == 0 else list(SIZES)[::-1]
                        for label in order:
                            await _show(page, paths[label])
                            for _ in range(2):  # warm-up
                                await _call(agent, "set", content="w ")
                            for _ in range(calls):
                                times[label]["get"].append(await _call(agent, "get"))
                                times[label]["set"].append(await _call(agent, "set", content="word "))
                await browser.close()
        finally:
            await app.stop()
    return _report(times, calls, rounds)


def _report(times: dict[str, dict[str, list[float]]], calls: int, rounds: int) -> dict[str, Any]:
    small, big = list(SIZES)
    rows = []
    results: dict[str, Any] = {"machine": machine_line(), "calls": calls, "rounds": rounds}
    for action in ("get", "set"):
        a, b = Stats.of(times[small][action]), Stats.of(times[big][action])
        ratio = paired_ratio(times[big][action], times[small][action])
        rows.append([f"selection.{action}", f"{a.median * 1000:.1f} ms", f"{b.median * 1000:.1f} ms", f"{ratio:.2f}"])
        results[action] = {"small_ms": a.median * 1000, "big_ms": b.median * 1000, "ratio": ratio}
    print(machine_line())
    print(f"{calls} calls x {rounds} rounds per size; {human_size(SIZES[small])} vs {human_size(SIZES[big])}")
    print(table(["call", small, big, "ratio (target <= 1.2 for set)"], rows))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    results = asyncio.run(run(args.calls, args.rounds))
    save_results("selection", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
