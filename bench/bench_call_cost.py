"""The cost of an agent's call, two checkouts side by side: ``document.read`` / ``.write`` through MCP against the
reference filesystem MCP server, for this checkout's vmark and another's (``--old``), in one run.

Each vmark has its own ``vmark app --headless`` (its own data directory and workspace) and its own ``vmark mcp``
(the official client over stdio), both run from that checkout's ``src`` (``PYTHONPATH``); the peer
(``@modelcontextprotocol/server-filesystem``) works on a third copy of the files. The three take turns on the
same-sized documents, the order rotating every round (as ``bench_document.py`` does), after warm-up rounds.
Printed per operation: each contestant's median and p95, each vmark's ratio to the peer (the median of the
round-by-round ratios), new/old, and the CPU time each vmark's app and ``vmark mcp`` spent per call (``/proc``,
in clock ticks of 10 ms: count enough rounds).

    .venv/bin/python bench/bench_call_cost.py --old ../main [--rounds 40]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib import (
    ROOT,
    BenchError,
    app_started,
    bench_dir,
    human_size,
    machine_line,
    markdown_of_size,
    paired_ratio,
    peer_params,
    prepare_home,
    require_peer,
    run_and_report,
    stdio_client_for,
    table,
    tool_data,
)
from mcp import Client
from mcp.client.stdio import StdioServerParameters

KB, MB = 1_000, 1_000_000
#: (operation, size): the issue's four targets (vmark/peer)
CASES = (("read", 1 * KB, 1.2), ("read", 64 * KB, 1.2), ("write", 1 * KB, 1.3), ("write", 1 * MB, 1.2))
WARMUP = 3


@dataclass
class Vmark:
    """One checkout's vmark: its app, its ``vmark mcp`` client, and the tab of each document."""

    name: str
    app: subprocess.Popen[bytes]
    client: Client
    folder: Path
    tabs: dict[int, str] = field(default_factory=dict)
    #: the pids whose CPU time is counted: the app's and the ``vmark mcp``'s
    pids: dict[str, int] = field(default_factory=dict)


def _env(src: Path, home: Path) -> dict[str, str]:
    return {"PYTHONPATH": str(src), "VMARK_HOME": str(home)}


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _mcp_child(needle: str) -> int:
    """The pid of this process's ``vmark mcp`` child whose environment holds ``needle`` (its data dir)."""
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            if Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1] != me:
                continue
            mcp = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")[-2:-1] == [b"mcp"]
            if mcp and needle.encode() in Path(f"/proc/{entry}/environ").read_bytes():
                return int(entry)
    raise BenchError(f"no child process with {needle}")


@contextlib.asynccontextmanager
async def running_vmark(name: str, src: Path, tmp: Path, errlog: Any) -> AsyncIterator[Vmark]:
    folder, home = tmp / name / "ws", prepare_home(tmp / name / "home")
    folder.mkdir(parents=True)
    env = {**os.environ, **_env(src, home)}
    with open(home / "app.log", "ab") as log:
        app = subprocess.Popen(
            [sys.executable, "-m", "vmark", "app", "--headless", str(folder)],
            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
        )  # fmt: skip
    try:
        await app_started(home, app)
        params = StdioServerParameters(command=sys.executable, args=["-m", "vmark", "mcp"], env=_env(src, home))
        async with stdio_client_for(params, errlog) as client:
            vm = Vmark(name, app, client, folder)
            vm.pids = {"app": app.pid, "mcp": _mcp_child(f"VMARK_HOME={home}")}
            yield vm
    finally:
        app.terminate()
        try:
            app.wait(10)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()


Op = Callable[[int], Awaitable[None]]


def _ops(op: str, size: int, vms: list[Vmark], peer: Client, peer_dir: Path) -> dict[str, Op]:
    texts = (markdown_of_size(size, 1), markdown_of_size(size, 2))
    peer_path = str(peer_dir / f"doc-{size}.md")

    def vmark_op(vm: Vmark) -> Op:
        async def run(i: int) -> None:
            args: dict[str, Any] = {"action": op, "tabId": vm.tabs[size]}
            if op == "write":
                args["content"] = texts[i % 2]
            data = tool_data(await vm.client.call_tool("document", args), f"{vm.name} document.{op}")
            if op == "write" and not (data.get("saved") and data.get("journaled") == "yes"):
                raise BenchError(f"a {vm.name} write was not journaled and saved: {data}")

        return run

    async def peer_op(i: int) -> None:
        if op == "read":
            tool_data(await peer.call_tool("read_text_file", {"path": peer_path}), "peer read_text_file")
        else:
            tool_data(await peer.call_tool("write_file", {"path": peer_path, "content": texts[i % 2]}), "peer write")

    return {**{vm.name: vmark_op(vm) for vm in vms}, "peer": peer_op}


async def _measure(ops: dict[str, Op], vms: list[Vmark], rounds: int) -> dict[str, Any]:
    names = list(ops)
    samples: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, dict[str, float]] = {}
    for i in range(WARMUP + rounds):
        if i == WARMUP:
            cpu = {vm.name: {k: _cpu_seconds(pid) for k, pid in vm.pids.items()} for vm in vms}
        shift = i % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            await ops[name](i)
            if i >= WARMUP:
                samples[name].append(time.perf_counter() - start)
    out: dict[str, Any] = {name: _stats(s) for name, s in samples.items()}
    for vm in vms:
        out[vm.name]["ratio_peer"] = paired_ratio(samples[vm.name], samples["peer"])
        for k, pid in vm.pids.items():
            out[vm.name][f"{k}_cpu_ms"] = 1000 * (_cpu_seconds(pid) - cpu[vm.name][k]) / rounds
    out["new_old"] = paired_ratio(samples["new"], samples["old"])
    return out


def _stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median_ms": 1000 * statistics.median(ordered), "p95_ms": 1000 * p95, "n": len(ordered)}


async def run(old: Path, rounds: int) -> dict[str, Any]:
    require_peer()
    results: dict[str, Any] = {"machine": machine_line(), "load_before": os.getloadavg(), "cases": []}
    with bench_dir("call_cost") as tmp, open(tmp / "servers.log", "w") as errlog:
        peer_dir = tmp / "peer"
        peer_dir.mkdir()
        async with (
            running_vmark("old", old / "src", tmp, errlog) as vm_old,
            running_vmark("new", ROOT / "src", tmp, errlog) as vm_new,
            stdio_client_for(peer_params(peer_dir), errlog) as peer,
        ):
            vms = [vm_old, vm_new]
            for size in sorted({size for _op, size, _t in CASES}):
                (peer_dir / f"doc-{size}.md").write_text(markdown_of_size(size), "utf-8")
                for vm in vms:
                    path = vm.folder / f"doc-{size}.md"
                    path.write_text(markdown_of_size(size), "utf-8")
                    opened = await vm.client.call_tool("workspace", {"action": "open", "filePath": str(path)})
                    vm.tabs[size] = tool_data(opened, "open")["tabId"]
            for op, size, target in CASES:
                figures = await _measure(_ops(op, size, vms, peer, peer_dir), vms, rounds)
                results["cases"].append({"op": op, "size": size, "target": target, **figures})
    results["load_after"] = os.getloadavg()
    return results


def render(results: dict[str, Any]) -> str:
    rows = []
    for case in results["cases"]:
        old, new, peer = case["old"], case["new"], case["peer"]
        rows.append(
            [
                f"{case['op']} {human_size(case['size'])}",
                str(peer["n"]),
                f"{peer['median_ms']:.1f} / {peer['p95_ms']:.1f}",
                f"{old['median_ms']:.1f} / {old['p95_ms']:.1f}",
                f"{new['median_ms']:.1f} / {new['p95_ms']:.1f}",
                f"{old['ratio_peer']:.2f} -> {new['ratio_peer']:.2f} (<= {case['target']})",
                f"{case['new_old']:.2f}",
                f"{old['app_cpu_ms']:.2f} -> {new['app_cpu_ms']:.2f}",
                f"{old['mcp_cpu_ms']:.2f} -> {new['mcp_cpu_ms']:.2f}",
            ]
        )
    headers = ["call", "n", "peer ms", "old ms", "new ms", "vmark/peer old -> new", "new/old",
               "app CPU ms/call", "vmark mcp CPU ms/call"]  # fmt: skip
    load = "load average {:.2f} {:.2f} {:.2f}".format(*results["load_before"])
    load += " before, {:.2f} {:.2f} {:.2f} after".format(*results["load_after"])
    head = f"median / p95 ms; ratios are medians of round-by-round ratios; {load}\n"
    return head + table(headers, rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the other checkout (its src is run)")
    parser.add_argument("--rounds", type=int, default=40, help="counted rounds per call (after 3 warm-up ones)")
    args = parser.parse_args()
    if not (args.old / "src/vmark").is_dir():
        print(f"bench_call_cost: {args.old} is not a vmark checkout", file=sys.stderr)
        return 1
    return run_and_report("call_cost", render, run, args.old.resolve(), args.rounds)


if __name__ == "__main__":
    sys.exit(main())
