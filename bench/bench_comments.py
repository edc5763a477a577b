"""comments.list over a 1 MB document with 2,000 threads: full pagination time and bytes per page.

The agent is the official MCP client (in memory) -> the bridge -> the app, as in the contract tests;
the person's client adds the threads through the UI protocol. Threads quote 30 characters spread over
the document; bodies are mostly short, every 50th is 4 KB, every 10th thread has 3 replies. Each round
lists every page (following nextCursor). The bound is 32 KiB of JSON per page (DECISIONS.md).
Also timed: the person typing at the top of the document (a ui.edit of one span, as a page sends it),
before the threads exist and with all 2,000 anchors moving.

    .venv/bin/python bench/bench_comments.py [--threads 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import Stats, human_size, machine_line, markdown_of_size, save_results, table
from mcp import Client

from vmark.app.server import RunningApp
from vmark.mcp.bridge_client import BridgeClient
from vmark.mcp.server import build_server
from vmark.protocol.limits import COMMENT_PAGE_BYTES
from vmark.testing.uiclient import UIClient

DOC_BYTES = 1_000_000


async def _seed(person: UIClient, tab: str, text: str, threads: int) -> None:
    step = (len(text) - 40) // threads
    for i in range(threads):
        at = i * step
        body = ("Please reword this; " * 200)[:4000] if i % 50 == 0 else f"Comment {i}: is this right?"
        added = await person.call("comments.add", tabId=tab, quote=text[at : at + 30], body=body, at=at)
        if i % 10 == 0:
            for j in range(3):
                await person.call("comments.person_reply", commentId=added["comment"], body=f"reply {j} " * 20)


async def _paginate(agent: Client, tab: str) -> tuple[float, list[int], int]:
    """One full listing: seconds, bytes of each page's JSON text, threads seen."""
    sizes, seen, cursor = [], 0, None
    start = time.perf_counter()
    while True:
        args: dict[str, Any] = {"action": "list", "tabId": tab, **({"cursor": cursor} if cursor else {})}
        result = await agent.call_tool("comments", args)
        if result.is_error:
            raise RuntimeError(f"comments.list failed: {result.content}")
        sizes.append(len(result.content[0].text.encode("utf-8")))  # type: ignore[union-attr]
        page = result.structured_content or {}
        seen += sum(1 for t in page["threads"] if not t.get("continued"))
        cursor = page.get("nextCursor")
        if cursor is None:
            return time.perf_counter() - start, sizes, seen


async def run(threads: int, rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="vmark-bench-comments-") as tmp:
        root = Path(tmp)
        (root / "ws").mkdir()
        path = root / "ws" / "doc.md"
        text = markdown_of_size(DOC_BYTES)
        path.write_text(text, encoding="utf-8")
        data = root / "data"
        data.mkdir()
        app = RunningApp(data)
        await app.start()
        try:
            async with UIClient(data) as person:
                await person.attach("main")
                tab = (await person.call("ui.open", path=str(path)))["tabId"]
                bare = [await _type_at_top(person, tab, i) for i in range(rounds)]
                seeding = time.perf_counter()
                await _seed(person, tab, text, threads)
                seeded = time.perf_counter() - seeding
                async with Client(build_server(BridgeClient(data, autostart=False))) as agent:  # type: ignore[arg-type]
                    await _paginate(agent, tab)  # warm-up
                    runs = [await _paginate(agent, tab) for _ in range(rounds)]
                reanchor = [await _type_at_top(person, tab, i) for i in range(rounds)]
        finally:
            await app.stop()
    return _report(threads, rounds, seeded, runs, bare, reanchor)


async def _type_at_top(person: UIClient, tab: str, i: int) -> float:
    """A page's keystrokes at the top: one span on the current revision (the page sends changes, not text)."""
    base = (await person.call("ui.read", tabId=tab))["revision"]
    start = time.perf_counter()
    await person.call("ui.edit", tabId=tab, baseRevision=base, changes=[[0, 0, f"typed {i} "]])
    return time.perf_counter() - start


def _report(
    threads: int,
    rounds: int,
    seeded: float,
    runs: list[tuple[float, list[int], int]],
    bare: list[float],
    edits: list[float],
) -> dict[str, Any]:
    times = [r[0] for r in runs]
    sizes = runs[0][1]
    assert all(r[2] == threads for r in runs), "a listing lost threads"
    over = [s for s in sizes if s > COMMENT_PAGE_BYTES]
    total = Stats.of(times)
    per_page = Stats.of([t / len(r[1]) for t, r in zip(times, runs, strict=True)])
    edit, no_threads = Stats.of(edits), Stats.of(bare)
    print(machine_line())
    print(f"{threads} threads on a {human_size(DOC_BYTES)} document (seeded in {seeded:.1f} s); {rounds} rounds")
    rows = [
        ["full pagination", total.ms() + " ms", f"{len(sizes)} pages"],
        ["per page", per_page.ms() + " ms", ""],
        [
            "bytes per page",
            f"median {statistics.median(sizes):,.0f}, min {min(sizes):,}, max {max(sizes):,}",
            f"bound {COMMENT_PAGE_BYTES:,}; {len(over)} over",
        ],
        ["fill (median / bound)", f"{statistics.median(sizes) / COMMENT_PAGE_BYTES:.0%}", ""],
        ["ui.edit at the top, no threads", no_threads.ms() + " ms", "one span sent, as a page does"],
        ["ui.edit at the top, 2,000 threads", edit.ms() + " ms", "every anchor moves"],
    ]
    print(table(["measure", "value", "note"], rows))
    return {
        "machine": machine_line(),
        "threads": threads,
        "document_bytes": DOC_BYTES,
        "pages": len(sizes),
        "pagination": total.as_dict(),
        "per_page": per_page.as_dict(),
        "page_bytes": {"median": statistics.median(sizes), "min": min(sizes), "max": max(sizes), "all": sizes},
        "bound": COMMENT_PAGE_BYTES,
        "pages_over_bound": len(over),
        "edit_without_threads": no_threads.as_dict(),
        "edit_with_reanchor": edit.as_dict(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    results = asyncio.run(run(args.threads, args.rounds))
    save_results("comments", results)
    return 0 if results["pages_over_bound"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
