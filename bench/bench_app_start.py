"""What the app costs to start, two checkouts side by side: this one's and another's (``--old``).

Three cases, each a fresh process of this virtualenv's Python with that checkout's ``src`` first on ``PYTHONPATH``
and its own ``VMARK_HOME``; old and new take turns every round, after one uncounted round each (the bytecode caches,
as after an install), as in ``bench_cli_start.py``:

- ``import vmark.app.server``: the process's CPU (user + system, from ``wait4``) and wall time;
- ``vmark app --headless WORKSPACE`` until it published its bridge file (it answers from then on): the CPU it spent
  by then (``/proc/PID/stat``, in clock ticks: 10 ms) and the wall time; it is then stopped (SIGTERM) and waited
  for, so the next round starts with its lock free;
- ``vmark mcp`` (stdio) to its answer to ``initialize``, with an app already running for its ``VMARK_HOME`` (so it
  starts none): the CPU of the whole process (it exits when stdin closes), the wall time to the answer.

Printed: each side's median and p95, and new/old (the median of the round-by-round ratios).

    .venv/bin/python bench/bench_app_start.py --old /tmp/old-checkout [--rounds 20]
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench_cli_start import (
    MCP_CASE,
    RUN_MAIN,
    Samples,
    as_results,
    checkout_env,
    main_against_old,
    prepare_sides,
    reap_cpu,
    render_side_by_side,
    run_mcp,
    take_turns,
)
from benchlib import APP_START_SECONDS, BenchError, bench_dir, prepare_home, running_app

from vmark.mcp.discovery import read_bridge

IMPORT_CASE = "import vmark.app.server"
APP_CASE = "vmark app (to its bridge file)"
_TICK = os.sysconf("SC_CLK_TCK")


def run_import(src: Path, home: Path) -> tuple[float, float]:
    """CPU and wall seconds of a process that imports the app's server module from checkout ``src``."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", IMPORT_CASE], env=checkout_env(src, home), stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    cpu = reap_cpu(proc)
    if proc.returncode:
        raise BenchError(f"{IMPORT_CASE} exited {proc.returncode}: {err.decode(errors='replace')}")
    return cpu, time.perf_counter() - start


def _cpu_so_far(pid: int) -> float:
    """The CPU seconds (user + system) process ``pid`` has spent so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime: the 14th and 15th of the whole line


def run_app(src: Path, home: Path, workspace: Path) -> tuple[float, float]:
    """The CPU seconds ``vmark app --headless WORKSPACE`` from checkout ``src`` spent until its bridge file was
    there, and the wall seconds it took; it is stopped and reaped before this returns."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", RUN_MAIN, "app", "--headless", str(workspace)],
        env=checkout_env(src, home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + APP_START_SECONDS
        while read_bridge(home) is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise BenchError(f"vmark app did not start (exit {proc.returncode})")
            time.sleep(0.002)
        wall = time.perf_counter() - start
        cpu = _cpu_so_far(proc.pid)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        assert proc.stderr is not None
        err = proc.stderr.read()
        reap_cpu(proc)
    if proc.returncode:
        raise BenchError(f"vmark app exited {proc.returncode}: {err.decode(errors='replace')[-2000:]}")
    return cpu, wall


async def bench(old: Path, rounds: int) -> dict[str, Any]:
    results: dict[str, dict[str, Samples]] = {}
    with bench_dir("app-start") as tmp:
        sides, homes, workspace = prepare_sides(old, tmp)
        (workspace / "notes.md").write_text("# Notes\n\nA line.\n", encoding="utf-8")
        results[IMPORT_CASE] = take_turns(rounds, lambda side: run_import(sides[side], homes[side]))
        results[APP_CASE] = take_turns(rounds, lambda side: run_app(sides[side], homes[side], workspace))
        mcp_home = prepare_home(tmp / "mcp")
        async with running_app(mcp_home):
            results[MCP_CASE] = take_turns(rounds, lambda side: run_mcp(sides[side], mcp_home))
    return as_results(rounds, results)


def _label(name: str, what: str) -> str:
    if what == "cpu":
        return "cpu to the bridge file" if name == APP_CASE else "cpu"
    return {APP_CASE: "wall to the bridge file", MCP_CASE: "wall to answer"}.get(name, "wall")


def render(results: dict[str, Any]) -> str:
    return render_side_by_side(results, "case", _label)


def main() -> int:
    return main_against_old("app_start", __doc__, render, bench)


if __name__ == "__main__":
    sys.exit(main())
