"""What the pages are sent when an agent writes: pushes and bytes per page, three windows open.

The app runs in this process (``RunningApp``, as the tests start it). Three person pages (the tests' UI
client, the person's side of the protocol without a browser) attach to three windows, ``main``, ``doc-1`` and
``doc-2``, and each opens one document of the workspace (``a.md`` in ``main``). An agent (the official ``mcp``
client, in memory) then writes ``a.md`` with ``document.write`` (journaled, applied, saved, reviewed); once the
app is quiet again, the bench counts the events each page got because of that write, by name, and the bytes of
their frames (the compact JSON the bridge sends). Each round writes new text; the figures are per write, the
mean over the rounds.

    .venv/bin/python bench/bench_page_push.py [--rounds 5]

Nothing here asserts: the numbers are for comparing two versions of the app (run it on each, side by side).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from mcp import Client

from vmark.app.server import RunningApp
from vmark.mcp.bridge_client import BridgeClient
from vmark.mcp.server import build_server
from vmark.storage.settings import Settings
from vmark.testing.uiclient import UIClient

#: how long the app must send nothing before a round counts as over (a bench, not a test: a quiet period is fine)
QUIET_SECONDS = 0.4


def _frame_bytes(event: dict[str, Any]) -> int:
    return len(json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


async def _quiet(pages: list[UIClient]) -> None:
    seen = -1
    while seen != sum(len(p.events) for p in pages):
        seen = sum(len(p.events) for p in pages)
        await asyncio.sleep(QUIET_SECONDS)


async def run(rounds: int) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        for name in ("a.md", "b.md", "c.md"):
            (root / name).write_text(f"# {name}\n\ntext\n", "utf-8")
        data = Path(tmp) / "data"
        data.mkdir()
        settings = Settings(data / "settings.json")
        settings.set("readable_roots", [tmp])
        settings.set("editor.default_mode", "source")
        app = RunningApp(data, test_hooks=True)
        await app.start()
        try:
            async with UIClient(data) as one, UIClient(data) as two, UIClient(data) as three:
                pages = [one, two, three]
                await one.attach("main")
                await two.attach()
                await three.attach()
                await one.call("ui.open_folder", path=str(root))
                tab = (await one.call("ui.open", path=str(root / "a.md")))["tabId"]
                await two.call("ui.open", path=str(root / "b.md"))
                await three.call("ui.open", path=str(root / "c.md"))
                bridge = BridgeClient(data, None, autostart=False)
                async with Client(build_server(bridge)) as mcp:  # type: ignore[arg-type]
                    await mcp.call_tool("session", {"action": "get_state"})
                    await _quiet(pages)
                    totals: dict[str, Counter[str]] = {p.window or "?": Counter() for p in pages}
                    for n in range(rounds):
                        marks = [len(p.events) for p in pages]
                        result = await mcp.call_tool(
                            "document", {"action": "write", "tabId": tab, "content": f"# a.md\n\nround {n}\n"}
                        )
                        assert not result.is_error, result.content
                        await _quiet(pages)
                        for page, mark in zip(pages, marks, strict=True):
                            counts = totals[page.window or "?"]
                            for event in page.events[mark:]:
                                if event.get("requestId") is not None:
                                    continue  # a request to the page (flush, ...), not a push
                                counts[f"{event['event']} pushes"] += 1
                                counts["pushes"] += 1
                                counts["bytes"] += _frame_bytes(event)
        finally:
            await app.stop()
    return {window: {k: v / rounds for k, v in counts.items()} for window, counts in totals.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    per_window = asyncio.run(run(args.rounds))
    print(f"one agent write of a.md (open in main), three windows; per write, mean of {args.rounds}")
    total: Counter[str] = Counter()
    for window, counts in per_window.items():
        detail = ", ".join(f"{k} {v:g}" for k, v in sorted(counts.items()) if k not in ("pushes", "bytes"))
        print(f"  {window:8} pushes {counts.get('pushes', 0):4g}  bytes {counts.get('bytes', 0):7g}  ({detail})")
        total.update(counts)
    print(f"  {'all':8} pushes {total['pushes']:4g}  bytes {total['bytes']:7g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
