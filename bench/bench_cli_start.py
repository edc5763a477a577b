"""What a ``vmark`` process costs to start, two checkouts side by side: this one's and another's (``--old``).

Each case is one command line, run as a fresh process of this virtualenv's Python with that checkout's ``src``
first on ``PYTHONPATH`` (``vmark.cli.main:main``, what the ``vmark`` script runs), its own empty ``VMARK_HOME``;
old and new take turns every round, after one uncounted round each (the bytecode caches, as after an install).
Measured: the process's CPU time (user + system, from ``wait4``) and its wall time; for ``vmark mcp`` (stdio)
the wall time to its answer to ``initialize`` and the CPU of the whole process (it exits when stdin closes), with
an app already running for its ``VMARK_HOME`` (so it starts none). Printed: each side's median and p95, and
new/old (the median of the round-by-round ratios).

    .venv/bin/python bench/bench_cli_start.py --old /tmp/old-checkout [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib import (
    ROOT,
    BenchError,
    bench_dir,
    paired_ratio,
    prepare_home,
    run_and_report,
    running_app,
    table,
)

#: stands for an empty workspace folder in a case's command line
WORKSPACE = "WORKSPACE"
#: the cheap commands: no app needed, nothing written that a next round would read differently (``coherence
#: status`` writes the data directory's writer id in the uncounted round)
CASES: tuple[tuple[str, ...], ...] = (
    ("--help",),
    ("settings", "get", "cjk.spacing"),
    ("principals", "list"),
    ("delegations", "list"),
    ("url",),
    ("coherence", "status", WORKSPACE),
)
MCP_CASE = "mcp initialize"
SIDES = ("new", "old")
RUN_MAIN = "import sys; from vmark.cli.main import main; sys.exit(main(sys.argv[1:]))"
_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}


@dataclass
class Samples:
    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)


def checkout_env(src: Path, home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(src), "VMARK_HOME": str(home)}


def reap_cpu(proc: subprocess.Popen[bytes]) -> float:
    """Wait for ``proc``; its CPU seconds (user + system)."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def run_command(src: Path, home: Path, argv: tuple[str, ...]) -> tuple[float, float]:
    """CPU and wall seconds of one ``vmark ARGV`` from checkout ``src``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", RUN_MAIN, *argv],
        env=checkout_env(src, home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    cpu = reap_cpu(proc)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # 1: `vmark url` with no app says so; 2 would be a usage error
        raise BenchError(f"vmark {' '.join(argv)} exited {proc.returncode}: {err.decode(errors='replace')}")
    return cpu, wall


def run_mcp(src: Path, home: Path) -> tuple[float, float]:
    """CPU seconds of one ``vmark mcp`` (stdio) from checkout ``src``, and the wall seconds to its answer to
    ``initialize``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", RUN_MAIN, "mcp"],
        env=checkout_env(src, home),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(_INITIALIZE).encode() + b"\n")
    proc.stdin.flush()
    answer = proc.stdout.readline()
    wall = time.perf_counter() - start
    proc.stdin.close()
    proc.stdout.read()
    cpu = reap_cpu(proc)
    if b'"result"' not in answer:
        raise BenchError(f"vmark mcp answered initialize with {answer[:300]!r}")
    return cpu, wall


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def take_turns(rounds: int, measure: Callable[[str], tuple[float, float]]) -> dict[str, Samples]:
    """``measure(side)`` (CPU and wall seconds) for ``new`` and ``old`` in turns, the order swapped every round,
    after one uncounted round each (it writes the bytecode caches)."""
    samples = {side: Samples() for side in SIDES}
    for round_ in range(rounds + 1):
        for side in SIDES if round_ % 2 else reversed(SIDES):
            cpu, wall = measure(side)
            if round_:
                samples[side].cpu.append(cpu)
                samples[side].wall.append(wall)
    return samples


def prepare_sides(old: Path, tmp: Path) -> tuple[dict[str, Path], dict[str, Path], Path]:
    """Each side's ``src`` and its own ``VMARK_HOME`` (under ``tmp``), and an empty workspace folder."""
    sides = {"new": ROOT / "src", "old": old / "src"}
    homes = {name: prepare_home(tmp / name) for name in sides}
    workspace = tmp / "workspace"
    workspace.mkdir()
    return sides, homes, workspace


async def bench(old: Path, rounds: int) -> dict[str, Any]:
    results: dict[str, dict[str, Samples]] = {}
    with bench_dir("cli-start") as tmp:
        sides, homes, workspace = prepare_sides(old, tmp)
        for case in CASES:
            name = " ".join(case)
            argv = tuple(str(workspace) if arg == WORKSPACE else arg for arg in case)
            results[name] = take_turns(rounds, lambda side, argv=argv: run_command(sides[side], homes[side], argv))
        mcp_home = prepare_home(tmp / "mcp")
        async with running_app(mcp_home):
            results[MCP_CASE] = take_turns(rounds, lambda side: run_mcp(sides[side], mcp_home))
    return as_results(rounds, results)


def as_results(rounds: int, cases: dict[str, dict[str, Samples]]) -> dict[str, Any]:
    """What is saved and rendered: the load now, the rounds, each case's samples by side."""
    return {
        "load": os.getloadavg(),
        "rounds": rounds,
        "cases": {
            name: {side: {"cpu": s.cpu, "wall": s.wall} for side, s in by_side.items()}
            for name, by_side in cases.items()
        },
    }


def side_by_side(cases: dict[str, Any], label: Callable[[str, str], str] = lambda name, what: what) -> list[list[str]]:
    """A table's rows: per case and measure (``cpu``, ``wall``), old's and new's median / p95 in ms, new/old."""
    rows = []
    for name, by_side in cases.items():
        new, old = by_side["new"], by_side["old"]
        for what in ("cpu", "wall"):
            rows.append(
                [
                    name,
                    label(name, what),
                    f"{statistics.median(old[what]) * 1000:.0f} / {p95(old[what]) * 1000:.0f}",
                    f"{statistics.median(new[what]) * 1000:.0f} / {p95(new[what]) * 1000:.0f}",
                    f"{paired_ratio(new[what], old[what]):.2f}",
                ]
            )
    return rows


def render_side_by_side(
    results: dict[str, Any], first: str, label: Callable[[str, str], str] = lambda name, what: what
) -> str:
    """The load, the rounds, and the table of :func:`side_by_side` (``first``: its first column's header)."""
    load = ", ".join(f"{x:.2f}" for x in results["load"])
    head = f"{results['rounds']} rounds each, load average at the end {load}; ms, median / p95"
    return head + "\n" + table([first, "measure", "old", "new", "new/old"], side_by_side(results["cases"], label))


def render(results: dict[str, Any]) -> str:
    return render_side_by_side(
        results, "command", lambda name, what: "wall to answer" if what == "wall" and name == MCP_CASE else what
    )


def main_against_old(
    name: str,
    doc: str,
    render: Callable[[dict[str, Any]], str],
    bench: Callable[[Path, int], Coroutine[Any, Any, dict[str, Any]]],
) -> int:
    """The command line of a benchmark of this checkout against ``--old``'s; its figures saved as ``name``."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--old", type=Path, required=True, help="the other checkout (its src/ is imported)")
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    if not (args.old / "src" / "vmark" / "__init__.py").is_file():
        print(f"bench_{name}: {args.old} is not a vmark checkout", file=sys.stderr)
        return 2
    return run_and_report(name, render, bench, args.old.resolve(), args.rounds)


def main() -> int:
    return main_against_old("cli_start", __doc__, render, bench)


if __name__ == "__main__":
    sys.exit(main())
