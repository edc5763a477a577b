"""MCP over Streamable HTTP next to stdio, and tool calls per second with concurrent HTTP clients.

Both transports are the official ``mcp`` client against the same real ``vmark app`` (one ``vmark mcp``
over stdio, one ``vmark mcp --http`` process), taking turns on the same document, the order rotating
every round, after warm-up rounds:

- ``document.read`` / ``document.write`` at 1 KB and 1 MB: median and p95 per transport, and
  http/stdio as the median of the round-by-round ratios. A 1 MB read answers the first page (75,000 B
  bound, DECISIONS.md) on both, which is what an MCP client gets.
- tool calls per second (``document.read`` of a 1 KB document) with 1, 4 and 16 concurrent HTTP
  clients, each its own session (its own bridge connection), back to back for a fixed time.

    .venv/bin/python bench/bench_http.py [--scale 0.5] [--seconds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from bench_document import Op, check_saved, measure
from benchlib import (
    CLIENT_MODE,
    BenchError,
    bench_dir,
    human_size,
    logs_on_error,
    machine_line,
    markdown_of_size,
    paired_ratio,
    prepare_home,
    run_async,
    running_app,
    running_http_mcp,
    save_results,
    stdio_client_for,
    table,
    tool_data,
    vmark_mcp_params,
)
from mcp import Client

from vmark.storage.principals import Principals

KB, MB = 1_000, 1_000_000
#: size -> (warm-up rounds, counted rounds)
PLAN = {1 * KB: (5, 40), 1 * MB: (2, 15)}
TRANSPORTS = ("stdio", "http")
CONCURRENCY = (1, 4, 16)


def summary(samples: Sequence[float]) -> dict[str, float | int]:
    ordered = sorted(samples)
    p95 = statistics.quantiles(ordered, n=20, method="inclusive")[18] if len(ordered) > 1 else ordered[0]
    return {"median_ms": statistics.median(ordered) * 1000, "p95_ms": p95 * 1000, "n": len(ordered)}


async def _open(client: Client, path: Path) -> str:
    opened = tool_data(await client.call_tool("workspace", {"action": "open", "filePath": str(path)}), "open")
    return str(opened["tabId"])


def _ops(clients: dict[str, Client], tab: str, texts: tuple[str, str], op: str) -> dict[str, Op]:
    def one(client: Client, name: str) -> Op:
        async def read(_: int) -> None:
            tool_data(await client.call_tool("document", {"action": "read", "tabId": tab}), f"{name} read")

        async def write(i: int) -> None:
            args = {"action": "write", "tabId": tab, "content": texts[i % 2]}
            check_saved(tool_data(await client.call_tool("document", args), f"{name} write"))

        return read if op == "read" else write

    return {name: one(client, name) for name, client in clients.items()}


async def bench_size(clients: dict[str, Client], folder: Path, size: int, scale: float) -> dict[str, Any]:
    warmup, rounds = PLAN[size]
    rounds = max(3, round(rounds * scale))
    path = folder / f"doc-{human_size(size).replace(' ', '')}.md"
    path.write_text(markdown_of_size(size), "utf-8")
    tab = await _open(clients["stdio"], path)
    texts = (markdown_of_size(size, 1), markdown_of_size(size, 2))
    entry: dict[str, Any] = {"size": size}
    for op in ("read", "write"):
        samples = await measure(_ops(clients, tab, texts, op), warmup, rounds)
        entry[op] = {name: summary(samples[name]) for name in TRANSPORTS}
        entry[op]["ratio_http_stdio"] = paired_ratio(samples["http"], samples["stdio"])
    if path.read_text("utf-8") != texts[(warmup + rounds - 1) % 2]:
        raise BenchError(f"{path.name} does not hold the last write")
    return entry


async def calls_per_second(url: str, token: str, tab: str, clients: int, seconds: float) -> dict[str, Any]:
    counts = [0] * clients
    latencies: list[float] = []
    async with anyio.create_task_group() as tasks:
        for n in range(clients):
            tasks.start_soon(_caller, url, token, tab, seconds, counts, n, latencies)
    total = sum(counts)
    return {"clients": clients, "calls": total, "calls_per_s": total / seconds, **summary(latencies)}


async def _caller(
    url: str, token: str, tab: str, seconds: float, counts: list[int], n: int, latencies: list[float]
) -> None:
    async with Client(f"{url}?token={token}", mode=CLIENT_MODE) as client:  # type: ignore[arg-type]
        call = {"action": "read", "tabId": tab}
        for _ in range(3):  # warm-up: the session's bridge connection opens on its first call
            tool_data(await client.call_tool("document", call), "warm-up read")
        deadline = time.perf_counter() + seconds
        while (start := time.perf_counter()) < deadline:
            tool_data(await client.call_tool("document", call), "read")
            latencies.append(time.perf_counter() - start)
            counts[n] += 1


async def run(scale: float = 1.0, seconds: float = 3.0) -> dict[str, Any]:
    with bench_dir("http") as tmp:
        folder, home = tmp / "ws", prepare_home(tmp / "home")
        folder.mkdir()
        token = Principals(home / "principals.json").add("bench")
        with open(tmp / "servers.log", "w") as errlog, logs_on_error(tmp / "servers.log", home / "app.log"):
            async with (
                running_app(home, folder),
                stdio_client_for(vmark_mcp_params(home), errlog) as stdio,
                running_http_mcp(home, errlog) as url,
                Client(f"{url}?token={token}", mode=CLIENT_MODE) as http,  # type: ignore[arg-type]
            ):
                clients = {"stdio": stdio, "http": http}
                sizes = [await bench_size(clients, folder, size, scale) for size in PLAN]
                small = folder / "calls.md"
                small.write_text(markdown_of_size(KB), "utf-8")
                tab = await _open(stdio, small)
                levels = [await calls_per_second(url, token, tab, n, seconds) for n in CONCURRENCY]
    return {"machine": machine_line(), "scale": scale, "seconds": seconds, "sizes": sizes, "levels": levels}


def render(results: dict[str, Any]) -> str:
    rows = []
    for entry in results["sizes"]:
        for op in ("read", "write"):
            r = entry[op]
            cells = [f"{r[t]['median_ms']:.1f} / {r[t]['p95_ms']:.1f}" for t in TRANSPORTS]
            note = "the first page (75,000 B)" if op == "read" and entry["size"] > 75_000 else ""
            ratio = f"{r['ratio_http_stdio']:.2f}"
            rows.append([op, human_size(entry["size"]), str(r["http"]["n"]), *cells, ratio, note])
    docs = table(["op", "size", "n", "stdio ms (median / p95)", "http ms (median / p95)", "http/stdio", "note"], rows)
    levels = table(
        ["HTTP clients", "calls", "calls/s", "latency ms (median / p95)"],
        [[str(lv["clients"]), str(lv["calls"]), f"{lv['calls_per_s']:.0f}", _latency(lv)] for lv in results["levels"]],
    )
    return (
        "document.read / document.write over stdio and Streamable HTTP (http/stdio: median of round-by-round ratios)\n"
        f"{docs}\n\ntool calls (document.read, 1 KB) per second over HTTP, {results['seconds']:.0f} s per level, "
        f"one session each\n{levels}"
    )


def _latency(level: dict[str, Any]) -> str:
    return f"{level['median_ms']:.1f} / {level['p95_ms']:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the counted rounds (min 3)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per concurrency level")
    args = parser.parse_args()
    results = run_async(run, args.scale, args.seconds)
    print(results["machine"])
    print(render(results))
    print(f"figures saved to {save_results('http', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
