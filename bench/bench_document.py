"""document.read / document.write against the reference filesystem MCP server, same file, same run.

Three contestants work on one file per size, in turn (the order rotates every iteration):

- ``vmark``: the official MCP client over stdio -> ``vmark mcp`` -> the bridge -> a real ``vmark app``.
  Its read answer is bounded at 75,000 bytes (DECISIONS.md), so a 1 MB or 10 MB read returns the
  document's first page (with ``nextOffset``); that is what an MCP client gets and what is timed.
- ``peer``: the same client over stdio -> ``@modelcontextprotocol/server-filesystem``
  (``read_text_file``, ``write_file``: a plain temp-file write and rename, no fsync).
- ``bridge``: an agent connection straight to the app (``vmark.document.read`` / ``.write``): the full
  content (every page of it, one request each), no MCP layer.

vmark's write is journaled (SQLite, synchronous=FULL) before it applies, then saved atomically
(temp file, fsync, rename, directory fsync) and snapshotted into the history.

    .venv/bin/python bench/bench_document.py [--scale 0.5]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchlib import (
    BenchError,
    Stats,
    bench_dir,
    bridge_agent,
    bridge_data,
    human_size,
    logs_on_error,
    machine_line,
    markdown_of_size,
    paired_ratio,
    peer_params,
    prepare_home,
    require_peer,
    run_async,
    running_app,
    save_results,
    stdio_client_for,
    table,
    tool_data,
    vmark_mcp_params,
)
from mcp import Client

from vmark.mcp.bridge_client import BridgeClient

#: Decimal sizes. The peer's stdio transport (TypeScript SDK) refuses any message over 10 MiB, so a
#: 10 MiB document could not be written through it at all; 10 MB = 10,000,000 bytes fits.
KB, MB = 1_000, 1_000_000
#: size -> (warm-up rounds, counted rounds)
PLAN = {1 * KB: (3, 30), 64 * KB: (3, 20), 1 * MB: (2, 12), 10 * MB: (1, 5)}
#: vmark/peer targets: the write path's issue (1 KB and 64 KB reads, 1 KB and 1 MB writes) and the 1 MB read's
TARGETS = {
    ("read", 1 * KB): 1.2,
    ("read", 64 * KB): 1.2,
    ("read", 1 * MB): 1.0,
    ("write", 1 * KB): 1.3,
    ("write", 1 * MB): 1.2,
}
CONTESTANTS = ("vmark", "peer", "bridge")

Op = Callable[[int], Awaitable[None]]


@dataclass
class Clients:
    vmark: Client
    peer: Client
    bridge: BridgeClient


@dataclass
class Subject:
    """One file, opened in vmark, and the two contents the writes alternate between."""

    path: Path
    tab: str
    texts: tuple[str, str]


async def measure(ops: dict[str, Op], warmup: int, rounds: int) -> dict[str, list[float]]:
    """Run every op once per round, rotating who goes first; keep the counted rounds' seconds."""
    names = list(ops)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for i in range(warmup + rounds):
        shift = i % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            await ops[name](i)
            elapsed = time.perf_counter() - start
            if i >= warmup:
                samples[name].append(elapsed)
    return samples


def read_ops(c: Clients, s: Subject) -> dict[str, Op]:
    async def vmark(_: int) -> None:
        tool_data(await c.vmark.call_tool("document", {"action": "read", "tabId": s.tab}), "vmark document.read")

    async def peer(_: int) -> None:
        tool_data(await c.peer.call_tool("read_text_file", {"path": str(s.path)}), "peer read_text_file")

    async def bridge(_: int) -> None:
        await read_all_pages(c.bridge, s.tab)

    return {"vmark": vmark, "peer": peer, "bridge": bridge}


async def read_all_pages(bridge: BridgeClient, tab: str) -> str:
    """The whole content over the bridge: the first page, then every page after it, all of one revision."""
    page = bridge_data(await bridge.request("vmark.document.read", {"tabId": tab}), "bridge document.read")
    pages = [page["content"]]
    while "nextOffset" in page:
        args = {"tabId": tab, "offset": page["nextOffset"], "expected_revision": page["revision"]}
        page = bridge_data(await bridge.request("vmark.document.read", args), "bridge document.read")
        pages.append(page["content"])
    return "".join(pages)


def write_ops(c: Clients, s: Subject) -> dict[str, Op]:
    """All three write the same text in a round, so the file's content agrees whoever wrote last."""

    async def vmark(i: int) -> None:
        args = {"action": "write", "tabId": s.tab, "content": s.texts[i % 2]}
        check_saved(tool_data(await c.vmark.call_tool("document", args), "vmark document.write"))

    async def peer(i: int) -> None:
        args = {"path": str(s.path), "content": s.texts[i % 2]}
        tool_data(await c.peer.call_tool("write_file", args), "peer write_file")

    async def bridge(i: int) -> None:
        payload = {"tabId": s.tab, "content": s.texts[i % 2]}
        check_saved(bridge_data(await c.bridge.request("vmark.document.write", payload), "bridge document.write"))

    return {"vmark": vmark, "peer": peer, "bridge": bridge}


def check_saved(result: dict[str, Any]) -> None:
    if not (result.get("applied") and result.get("saved") and result.get("journaled") == "yes"):
        raise BenchError(f"a vmark write was not applied, journaled and saved: {result}")


async def open_subject(c: Clients, folder: Path, size: int) -> Subject:
    path = folder / f"doc-{human_size(size).replace(' ', '')}.md"
    path.write_text(markdown_of_size(size), "utf-8")
    opened = tool_data(await c.vmark.call_tool("workspace", {"action": "open", "filePath": str(path)}), "open")
    return Subject(path, opened["tabId"], (markdown_of_size(size, 1), markdown_of_size(size, 2)))


async def check_reads(c: Clients, s: Subject) -> dict[str, Any]:
    """What each contestant's read returns (outside the timing): full content, or vmark's bounded answer."""
    expected = s.path.read_text("utf-8")
    vm = tool_data(await c.vmark.call_tool("document", {"action": "read", "tabId": s.tab}), "vmark read")
    peer = tool_data(await c.peer.call_tool("read_text_file", {"path": str(s.path)}), "peer read")
    full = await read_all_pages(c.bridge, s.tab)
    peer_text = peer.get("content", peer.get("text"))
    if full != expected or peer_text != expected:
        raise BenchError(f"a read of {s.path.name} did not return the file's content")
    paged = "nextOffset" in vm
    if not expected.startswith(vm.get("content", "\0")) or paged != (vm["content"] != expected):
        raise BenchError(f"vmark's read of {s.path.name} is neither the content nor its first page")
    return {"vmark_paged": paged, "vmark_page_chars": len(vm["content"])}


async def bench_size(c: Clients, folder: Path, size: int, scale: float) -> dict[str, Any]:
    warmup, rounds = PLAN[size]
    rounds = max(3, round(rounds * scale))
    s = await open_subject(c, folder, size)
    shape = await check_reads(c, s)
    reads = await measure(read_ops(c, s), warmup, rounds)
    writes = await measure(write_ops(c, s), warmup, rounds)
    if s.path.read_text("utf-8") != s.texts[(warmup + rounds - 1) % 2]:
        raise BenchError(f"{s.path.name} does not hold the last write")
    return {"size": size, **shape, "read": summarize(reads, "read", size), "write": summarize(writes, "write", size)}


def summarize(samples: dict[str, list[float]], op: str, size: int) -> dict[str, Any]:
    out: dict[str, Any] = {name: Stats.of(samples[name]).as_dict() for name in CONTESTANTS}
    out["ratio_vmark_peer"] = paired_ratio(samples["vmark"], samples["peer"])
    out["ratio_bridge_peer"] = paired_ratio(samples["bridge"], samples["peer"])
    out["target_ratio"] = TARGETS.get((op, size))
    return out


async def run(scale: float = 1.0) -> dict[str, Any]:
    require_peer()
    with bench_dir("document") as tmp:
        folder, home = tmp / "ws", prepare_home(tmp / "home")
        folder.mkdir()
        with open(tmp / "servers.log", "w") as errlog, logs_on_error(tmp / "servers.log", home / "app.log"):
            async with (
                running_app(home, folder),
                stdio_client_for(vmark_mcp_params(home), errlog) as vm,
                stdio_client_for(peer_params(folder), errlog) as peer,
                bridge_agent(home) as bridge,
            ):
                clients = Clients(vm, peer, bridge)
                sizes = [await bench_size(clients, folder, size, scale) for size in PLAN]
    return {"machine": machine_line(), "scale": scale, "sizes": sizes}


def fmt_ms(d: dict[str, Any]) -> str:
    return f"{d['median_ms']:.1f} ({d['min_ms']:.1f}–{d['max_ms']:.1f})"


def render(results: dict[str, Any]) -> str:
    rows = []
    for entry in results["sizes"]:
        for op in ("read", "write"):
            r = entry[op]
            target = r["target_ratio"]
            note = "vmark: the first page (75,000 B)" if op == "read" and entry["vmark_paged"] else ""
            rows.append(
                [
                    op,
                    human_size(entry["size"]),
                    str(r["vmark"]["n"]),
                    fmt_ms(r["vmark"]),
                    fmt_ms(r["peer"]),
                    f"{r['ratio_vmark_peer']:.2f}" + (f" (target ≤ {target})" if target else ""),
                    fmt_ms(r["bridge"]),
                    f"{r['ratio_bridge_peer']:.2f}",
                    note,
                ]
            )
    headers = ["op", "size", "n", "vmark ms", "peer ms", "vmark/peer", "bridge ms", "bridge/peer", "note"]
    return "document.read / document.write, ms median (min–max); ratios are medians of pair-by-pair ratios\n" + table(
        headers, rows
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the counted rounds (min 3)")
    args = parser.parse_args()
    results = run_async(run, args.scale)
    print(results["machine"])
    print(render(results))
    print(f"figures saved to {save_results('document', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
