"""Cold start: ``vmark mcp`` launched with no app running, to the first answered tool call.

Each cold round uses a fresh, empty VMARK_HOME: the official MCP client spawns ``vmark mcp``
over stdio, does the handshake and calls ``session.get_state``; ``vmark mcp`` finds no app,
starts ``vmark app --headless`` detached and waits for its bridge.json. The clock runs from
just before the spawn to the answer. The app is stopped with ``vmark stop`` after each round.
One uncounted round first, so Python's bytecode caches exist (as after any install).

Warm rounds: the same, with an app already running for that VMARK_HOME.

    .venv/bin/python bench/bench_coldstart.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from benchlib import (
    BenchError,
    Stats,
    bench_dir,
    logs_on_error,
    machine_line,
    run_async,
    running_app,
    save_results,
    stdio_client_for,
    stop_app_of,
    table,
    tool_data,
    vmark_mcp_params,
)

from vmark.mcp.discovery import read_bridge

TARGET_SECONDS = 1.5


async def first_answer(home: Path, errlog: Any) -> tuple[float, float]:
    """Seconds from spawning ``vmark mcp`` to the end of the handshake, and to the first answer."""
    start = time.perf_counter()
    async with stdio_client_for(vmark_mcp_params(home), errlog) as client:
        handshake = time.perf_counter() - start
        state = tool_data(await client.call_tool("session", {"action": "get_state"}), "session.get_state")
        answered = time.perf_counter() - start
    if "windows" not in state:
        raise BenchError(f"session.get_state answered without windows: {state}")
    return handshake, answered


async def cold_round(home: Path, errlog: Any) -> tuple[float, float]:
    try:
        timing = await first_answer(home, errlog)
        if read_bridge(home) is None:
            raise BenchError("no app is running after the cold start")
        return timing
    finally:
        stop_app_of(home)


async def run(rounds: int = 5) -> dict[str, Any]:
    with bench_dir("coldstart") as tmp, open(tmp / "servers.log", "w") as errlog:
        cold: list[tuple[float, float]] = []
        for i in range(rounds + 1):
            home = tmp / f"cold-{i}"  # does not exist yet: the first run of a fresh install
            with logs_on_error(tmp / "servers.log", home / "app.log"):
                timing = await cold_round(home, errlog)
            if i > 0:
                cold.append(timing)
        home = tmp / "warm"
        home.mkdir()
        with logs_on_error(tmp / "servers.log", home / "app.log"):
            async with running_app(home):
                warm = [await first_answer(home, errlog) for _ in range(rounds + 1)][1:]
    return {
        "machine": machine_line(),
        "target_seconds": TARGET_SECONDS,
        "cold": summarize(cold),
        "warm": summarize(warm),
    }


def summarize(timings: list[tuple[float, float]]) -> dict[str, Any]:
    return {
        "handshake": Stats.of([h for h, _ in timings]).as_dict(),
        "first_answer": Stats.of([a for _, a in timings]).as_dict(),
    }


def fmt(d: dict[str, Any]) -> str:
    return f"{d['median_ms']:.0f} ({d['min_ms']:.0f}–{d['max_ms']:.0f})"


def render(results: dict[str, Any]) -> str:
    rows = []
    for name in ("cold", "warm"):
        r = results[name]
        rows.append([name, str(r["first_answer"]["n"]), fmt(r["handshake"]), fmt(r["first_answer"])])
    headers = ["start", "n", "to handshake ms", f"to first answer ms (target < {results['target_seconds'] * 1000:.0f})"]
    return "vmark mcp to the first answered session.get_state, ms median (min–max)\n" + table(headers, rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="counted rounds of each kind")
    args = parser.parse_args()
    results = run_async(run, args.rounds)
    print(results["machine"])
    print(render(results))
    print(f"figures saved to {save_results('coldstart', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
