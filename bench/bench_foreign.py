"""vmark through a foreign MCP client: the TypeScript SDK's ``Client`` over stdio (``foreign_client.mjs``, Node),
against ``vmark mcp`` and the reference filesystem server, same files, same run.

The Python benchmarks use the official Python client; many agents are Node programs with the TypeScript SDK,
whose stdio transport and JSON handling differ. Per size, vmark and the peer take turns (the order alternating
every round): ``document.read`` / ``read_text_file`` of 1 KB and 64 KB, ``document.write`` / ``write_file`` of
1 KB and 1 MB (every vmark write checked applied, journaled and saved). Then journaled writes per second with
``--clients`` TypeScript clients, each its own ``vmark mcp`` process writing its own 1 KB document.

    .venv/bin/python bench/bench_foreign.py [--rounds 15] [--clients 8] [--seconds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchlib import (
    PEER_ENTRY,
    ROOT,
    BenchError,
    Stats,
    bench_dir,
    human_size,
    logs_on_error,
    machine_line,
    markdown_of_size,
    paired_ratio,
    prepare_home,
    require_peer,
    run_and_report,
    running_app,
    table,
    vmark_env,
    vmark_exe,
)

KB, MB = 1_000, 1_000_000
#: size -> the operations timed on a document of that size
PLAN = {1 * KB: ("read", "write"), 64 * KB: ("read",), 1 * MB: ("write",)}
SCRIPT = ROOT / "bench/foreign_client.mjs"
NODE_SECONDS = 600


def _doc(folder: Path, name: str, size: int, variant: int, ops: tuple[str, ...] = ("write",)) -> dict[str, Any]:
    path = folder / name
    path.write_text(markdown_of_size(size, variant), "utf-8")
    texts = [markdown_of_size(size, variant + 1), markdown_of_size(size, variant + 2)]
    return {"path": str(path), "size": size, "texts": texts, "ops": list(ops)}


async def run(rounds: int = 15, clients: int = 8, seconds: float = 3.0, warmup: int = 3) -> dict[str, Any]:
    require_peer()
    with bench_dir("foreign") as tmp:
        folder, home = tmp / "ws", prepare_home(tmp / "home")
        folder.mkdir()
        docs = [_doc(folder, f"doc-{human_size(s).replace(' ', '')}.md", s, 0, ops) for s, ops in PLAN.items()]
        writers = [_doc(folder, f"agent-{k:02d}.md", KB, 10 * (k + 1)) for k in range(clients)]
        plan = {
            "vmark": {"command": vmark_exe(), "args": ["mcp"], "env": {**os.environ, **vmark_env(home)}},
            "peer": {"command": "node", "args": [str(PEER_ENTRY), str(folder)]},
            "docs": docs,
            "rounds": rounds,
            "warmup": warmup,
            "throughput": {"docs": writers, "seconds": seconds} if clients else None,
        }
        (tmp / "plan.json").write_text(json.dumps(plan), "utf-8")
        with logs_on_error(home / "app.log"):
            async with running_app(home, folder):
                done = subprocess.run(
                    ["node", str(SCRIPT), str(tmp / "plan.json")], capture_output=True, text=True,
                    timeout=NODE_SECONDS, check=False, cwd=ROOT / "bench",
                )  # fmt: skip
        if done.returncode != 0:
            raise BenchError(f"the foreign client failed: {done.stderr[-2000:]}")
        raw = json.loads(done.stdout)
    sizes = []
    for entry in raw["sizes"]:
        row: dict[str, Any] = {"size": entry["size"]}
        for op in ("read", "write"):
            if op in entry:
                s = entry[op]
                row[op] = {
                    "vmark": Stats.of(s["vmark"]).as_dict(),
                    "peer": Stats.of(s["peer"]).as_dict(),
                    "ratio_vmark_peer": paired_ratio(s["vmark"], s["peer"]),
                }
        sizes.append(row)
    result: dict[str, Any] = {"machine": machine_line(), "client": "TypeScript SDK (Node)", "sizes": sizes}
    if raw.get("throughput"):
        tp = raw["throughput"]
        result["throughput"] = {
            "clients": tp["clients"],
            "writes": tp["writes"],
            "writes_per_s": tp["writes_per_s"],
            "latency": Stats.of(tp["latencies"]).as_dict(),
        }
    return result


def render(results: dict[str, Any]) -> str:
    rows = []
    for entry in results["sizes"]:
        for op in ("read", "write"):
            if op in entry:
                r = entry[op]
                rows.append(
                    [
                        f"document.{op}",
                        human_size(entry["size"]),
                        str(r["vmark"]["n"]),
                        f"{r['vmark']['median_ms']:.1f}",
                        f"{r['peer']['median_ms']:.1f}",
                        f"{r['ratio_vmark_peer']:.2f}",
                    ]
                )
    text = f"{results['client']} client, ms median; vmark/peer is the median of round-by-round ratios\n" + table(
        ["op", "size", "n", "vmark ms", "peer ms", "vmark/peer"], rows
    )
    if "throughput" in results:
        tp = results["throughput"]
        text += (
            f"\njournaled 1 KB writes/s with {tp['clients']} TypeScript clients (each its own vmark mcp):"
            f" {tp['writes_per_s']:.0f}/s, write ms median {tp['latency']['median_ms']:.1f}"
        )
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--clients", type=int, default=8, help="0: no throughput part")
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    return run_and_report("foreign", render, run, args.rounds, args.clients, args.seconds)


if __name__ == "__main__":
    sys.exit(main())
