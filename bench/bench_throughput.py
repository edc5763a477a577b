"""Journaled writes per second with 1, 4 and 16 concurrent agents on distinct documents.

Each agent is its own bridge connection (what a `vmark mcp` process holds) writing a 1 KB
document of its own, back to back, for a fixed time. Every write is journaled with
synchronous=FULL, applied, saved atomically (temp file fsync, rename, directory fsync) and
snapshotted: at least three fsyncs. The limit it is set against is this machine's fsync rate:
a tight write+fsync loop on a small file in the same temp file system, measured just before
and just after each level (their mean is that level's limit, since the disk may be shared).
For context it also reports a bare atomic-save loop (temp file, fsync, rename, directory
fsync) on the same file system.

    .venv/bin/python bench/bench_throughput.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
from benchlib import (
    BenchError,
    Stats,
    bench_dir,
    bridge_agent,
    bridge_data,
    logs_on_error,
    machine_line,
    markdown_of_size,
    prepare_home,
    run_async,
    running_app,
    save_results,
    table,
)

from vmark.mcp.bridge_client import BridgeClient

CLIENTS = (1, 4, 16)
DOC_BYTES = 1_000
TARGET_PERCENT = 25.0


def fsync_rate(folder: Path, seconds: float = 1.0) -> float:
    """Write+fsync of a small file, as fast as it goes: operations per second."""
    path = folder / "fsync-probe"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        count, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            os.pwrite(fd, b"x" * 64, (count % 64) * 64)
            os.fsync(fd)
            count += 1
    finally:
        os.close(fd)
        path.unlink()
    return count / elapsed


def atomic_save_rate(folder: Path, seconds: float = 2.0) -> float:
    """What any atomic saver pays, for context: temp file, write, fsync, rename, directory fsync."""
    target, temp = folder / "atomic-probe", folder / ".atomic-probe.tmp"
    dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        count, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, b"x" * DOC_BYTES)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(temp, target)
            os.fsync(dfd)
            count += 1
    finally:
        os.close(dfd)
        target.unlink(missing_ok=True)
    return count / elapsed


class Agent:
    """One agent connection writing its own document."""

    def __init__(self, client: BridgeClient, tab: str, index: int) -> None:
        self.client, self.tab = client, tab
        self.texts = (markdown_of_size(DOC_BYTES, 2 * index + 1), markdown_of_size(DOC_BYTES, 2 * index + 2))
        self.latencies: list[float] = []
        self.writes = 0

    async def write(self) -> float:
        payload = {"tabId": self.tab, "content": self.texts[self.writes % 2]}
        start = time.perf_counter()
        data = bridge_data(await self.client.request("vmark.document.write", payload), "document.write")
        elapsed = time.perf_counter() - start
        if not (data.get("durable") and data.get("saved") and data.get("journaled") == "yes"):
            raise BenchError(f"a write was not durable, journaled and saved: {data}")
        self.writes += 1
        return elapsed

    async def run_until(self, deadline: float) -> None:
        while time.perf_counter() < deadline:
            self.latencies.append(await self.write())


async def open_agent(client: BridgeClient, folder: Path, index: int) -> Agent:
    path = folder / f"agent-{index:02d}.md"
    if not path.exists():
        path.write_text(markdown_of_size(DOC_BYTES, 2 * index), "utf-8")
    opened = bridge_data(await client.request("vmark.workspace.open", {"filePath": str(path)}), "open")
    return Agent(client, opened["tabId"], index)


@contextlib.asynccontextmanager
async def agents_on(home: Path, folder: Path, n: int) -> AsyncIterator[list[Agent]]:
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(bridge_agent(home)) for _ in range(n)]
        yield [await open_agent(client, folder, i) for i, client in enumerate(clients)]


async def run_level(home: Path, folder: Path, n: int, seconds: float) -> dict[str, Any]:
    """``n`` agents write concurrently for ``seconds``, after two warm-up writes each."""
    async with agents_on(home, folder, n) as agents:
        async with anyio.create_task_group() as tg:
            for agent in agents:
                tg.start_soon(agent.run_until, time.perf_counter() + 0.3)
        for agent in agents:
            agent.latencies.clear()
            agent.writes = 0
        start = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for agent in agents:
                tg.start_soon(agent.run_until, start + seconds)
        elapsed = time.perf_counter() - start
    total = sum(a.writes for a in agents)
    return {
        "clients": n,
        "writes": total,
        "seconds": elapsed,
        "writes_per_s": total / elapsed,
        "latency": Stats.of([x for a in agents for x in a.latencies]).as_dict(),
    }


async def run(seconds: float = 3.0) -> dict[str, Any]:
    """Each level is framed by two fsync measurements; its limit is their mean (the disk is shared)."""
    with bench_dir("throughput") as tmp:
        folder, home = tmp / "ws", prepare_home(tmp / "home")
        folder.mkdir()
        levels = []
        with logs_on_error(home / "app.log"):
            async with running_app(home, folder):
                for n in CLIENTS:
                    before = fsync_rate(tmp)
                    level = await run_level(home, folder, n, seconds)
                    after = fsync_rate(tmp)
                    limit = (before + after) / 2
                    level["fsync_per_s"] = {"before": before, "after": after, "limit": limit}
                    level["percent_of_fsync"] = 100 * level["writes_per_s"] / limit
                    levels.append(level)
            atomic = atomic_save_rate(tmp)
    return {
        "machine": machine_line(),
        "atomic_save_per_s": atomic,
        "target_percent": TARGET_PERCENT,
        "levels": levels,
    }


def render(results: dict[str, Any]) -> str:
    rows = []
    for level in results["levels"]:
        f, lat = level["fsync_per_s"], level["latency"]
        rows.append(
            [
                str(level["clients"]),
                str(level["writes"]),
                f"{level['writes_per_s']:.0f}",
                f"{f['limit']:.0f} ({f['before']:.0f}, {f['after']:.0f})",
                f"{level['percent_of_fsync']:.1f}%",
                f"{lat['median_ms']:.1f} ({lat['min_ms']:.1f}–{lat['max_ms']:.1f})",
            ]
        )
    headers = [
        "clients",
        "writes",
        "writes/s",
        "fsync/s (before, after)",
        f"% of fsync (target ≥ {results['target_percent']:.0f}%)",
        "write ms median (min–max)",
    ]
    return (
        "journaled 1 KB writes on distinct documents; the fsync rate is measured just before and after each level;"
        f" an atomic-save loop ran {results['atomic_save_per_s']:.0f}/s\n" + table(headers, rows)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="counted seconds per level")
    args = parser.parse_args()
    results = run_async(run, args.seconds)
    print(results["machine"])
    print(render(results))
    print(f"figures saved to {save_results('throughput', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
