"""browser_read.read on the reader-mode corpus, side by side with Playwright's own
``page.aria_snapshot(mode="ai")`` on the same tab in the same run; and browser.open to loaded, cold and warm.

The agent is the official MCP client (in memory) -> the bridge -> the app, as in the contract tests, so
the read figures include everything an agent waits for (argument checks, the bridge, JSON rendering);
the peer runs directly on the same Playwright page, without any of that. Pages are served from
``../shared/corpora/readability`` on 127.0.0.1 (the app's private-network setting is on for this).
Sizes: our JSON text as the agent receives it, against the peer's YAML text.

    .venv/bin/python bench/browser/bench_read.py [--pages 40] [--opens 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchlib import Stats, machine_line, save_results, table

from vmark.app.server import RunningApp
from vmark.mcp.bridge_client import BridgeClient
from vmark.mcp.server import build_server
from vmark.testing.chromium import TEST_ARGS
from vmark.testing.sites import serving_directory

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "readability"


async def _call(client: Client, tool: str, action: str, **args: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = await client.call_tool(tool, {"action": action, **args})
    elapsed = time.perf_counter() - start
    if result.is_error:
        raise RuntimeError(f"{tool}.{action}: {result.content[0].text}")  # type: ignore[union-attr]
    return elapsed, result


async def measure(pages: int, opens: int) -> dict[str, Any]:
    names = sorted(p.name for p in CORPUS.iterdir() if (p / "source.html").exists())[:pages]
    with serving_directory(CORPUS) as base, tempfile.TemporaryDirectory(prefix="vmark-bench-browser-") as tmp:
        app = RunningApp(Path(tmp), test_hooks=False, chromium_args=TEST_ARGS)
        await app.start()
        app.app.settings.set("browser.allow_private_network", True)
        try:
            async with Client(build_server(BridgeClient(Path(tmp), None, autostart=False))) as client:  # type: ignore[arg-type]
                cold, _ = await _call(client, "browser", "open", url=f"{base}/{names[0]}/source.html")
                ours_t, peer_t, ours_b, peer_b, skipped = [], [], [], [], []
                for name in names:
                    try:
                        await _call(client, "browser", "navigate", url=f"{base}/{name}/source.html")
                    except RuntimeError as exc:
                        skipped.append(f"{name}: {exc}")
                        continue
                    page = app.app.browser.tabs.get(str(app.app.browser.focused)).page
                    await _call(client, "browser_read", "read")  # both warm once
                    await page.aria_snapshot(mode="ai")
                    seconds, result = await _call(client, "browser_read", "read")
                    ours_t.append(seconds)
                    ours_b.append(len(result.content[0].text.encode("utf-8")))
                    start = time.perf_counter()
                    text = await page.aria_snapshot(mode="ai")
                    peer_t.append(time.perf_counter() - start)
                    peer_b.append(len(text.encode("utf-8")))
                warm = []
                for _ in range(opens):
                    seconds, result = await _call(client, "browser", "open", url=f"{base}/{names[0]}/source.html")
                    warm.append(seconds)
                    await _call(client, "browser", "close", tabId=result.structured_content["tabId"])
        finally:
            await app.stop()
    return {
        "ours_t": ours_t,
        "peer_t": peer_t,
        "ours_b": ours_b,
        "peer_b": peer_b,
        "cold": cold,
        "warm": warm,
        "skipped": skipped,
    }


def main() -> None:
    os.environ["VMARK_BROWSER_LOOPBACK_ONLY"] = "1"  # corpus pages name other hosts: never look them up
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--opens", type=int, default=10)
    args = parser.parse_args()
    m = asyncio.run(measure(args.pages, args.opens))
    latency = statistics.median(m["ours_t"]) / statistics.median(m["peer_t"])
    size = statistics.median(m["ours_b"]) / statistics.median(m["peer_b"])
    print(machine_line())
    print(f"{len(m['ours_t'])} pages read ({len(m['skipped'])} skipped)")
    rows = [
        ["read latency ms median (min-max)", Stats.of(m["ours_t"]).ms(), Stats.of(m["peer_t"]).ms(), f"{latency:.2f}x"],
        [
            "read size bytes median",
            f"{statistics.median(m['ours_b']):.0f}",
            f"{statistics.median(m['peer_b']):.0f}",
            f"{size:.2f}x",
        ],
    ]
    print(table(["", "vmark browser_read.read (MCP)", "aria_snapshot(mode=ai)", "ratio"], rows))
    print(f"open to loaded: cold {m['cold'] * 1000:.0f} ms (driver start included), warm {Stats.of(m['warm']).ms()} ms")
    for line in m["skipped"]:
        print("skipped", line)
    save_results(
        "browser_read",
        {
            "machine": machine_line(),
            "pages": len(m["ours_t"]),
            "latency_ratio": latency,
            "size_ratio": size,
            "ours_ms": Stats.of(m["ours_t"]).as_dict(),
            "peer_ms": Stats.of(m["peer_t"]).as_dict(),
            "ours_bytes_median": statistics.median(m["ours_b"]),
            "peer_bytes_median": statistics.median(m["peer_b"]),
            "open_cold_ms": m["cold"] * 1000,
            "open_warm_ms": Stats.of(m["warm"]).as_dict(),
        },
    )
    print(json.dumps({"latency_ratio": round(latency, 2), "size_ratio": round(size, 2)}))


if __name__ == "__main__":
    main()
