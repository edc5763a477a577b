"""Where an agent write's time goes inside the app: wall-clock timers around each step of the write path.

A real ``vmark app --headless`` is started through this file (``--serve``), which wraps the steps of the
write path with timers before it runs the app's command line; agents (bridge connections, no MCP layer)
then write their own documents back to back (``document.write`` of the whole text, alternating between two
texts that differ on every line: the review's worst case). On the way out the app writes each step's
median and mean, and the app process's CPU time per write is read from ``/proc``. Steps nest (the write's
turn holds the journal, the apply and the save), so they do not add up; the untimed rest of a write is its
frame's JSON, the argument checks and the loop's own work.

    .venv/bin/python bench/bench_stages.py [--size 1000] [--writes 60] [--clients 1]

For another process, or the flame graph of a whole run, use py-spy (``py-spy record -p PID``) on the app of
bench_throughput.py or bench_document.py.
"""

from __future__ import annotations

import argparse
import atexit
import collections
import functools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: (module, owner, attribute, label): the write path's steps, outermost first
STEPS = (
    ("vmark.app.bridge", "Bridge", "_answer", "the request, dispatch to the answer sent"),
    ("vmark.app.writes", "Writer", "_write_locked", "  the write in its document's turn"),
    ("vmark.app.journaling", "Recorder", "record", "    journal entry recorded (durable)"),
    ("vmark.storage.journal", None, "_insert_all", "      its SQLite transaction (group commit)"),
    ("vmark.app.writes", "Writer", "_apply", "    apply (Session.apply: observers, followers)"),
    ("vmark.app.review.service", "Review", "observe", "      the review's word diff and merge"),
    ("vmark.app.review.service", "Review", "settle", "      a long rewrite's word diff, after the answer"),
    ("vmark.app.review.service", "Review", "follow", "      history entries (queued)"),
    ("vmark.app.coherence", "CoherenceService", "follow", "      coherence recording"),
    ("vmark.app.tab_save", "Saver", "save_after_write", "    save (queue, identity, atomic write, snapshot)"),
    ("vmark.storage.files", None, "save_replace", "      atomic replace (temp if not prepared, rename, dir fsync)"),
    ("vmark.storage.files", None, "_write_temp", "        temp file written and fsync'd"),
    ("vmark.storage.files", None, "prepare_replace", "    temp file prepared while journaled (thread)"),
    ("vmark.storage.atomic", None, "sync_dir_fd", "        the folder's fsync (grouped)"),
)


# --- the app's side (``--serve``) -------------------------------------------------------------------------
def _serve(argv: list[str]) -> int:
    import importlib
    import inspect
    import threading

    samples: dict[str, list[float]] = collections.defaultdict(list)
    lock = threading.Lock()

    def timed(fn: Callable[..., Any], label: str) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                start = time.perf_counter()
                try:
                    return await fn(*args, **kwargs)
                finally:
                    with lock:
                        samples[label].append(time.perf_counter() - start)

            return timed_async

        @functools.wraps(fn)
        def timed_sync(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                with lock:
                    samples[label].append(time.perf_counter() - start)

        return timed_sync

    importlib.import_module("vmark.app.server")  # every module of the app, so names imported elsewhere are found
    for module_name, owner_name, attribute, label in STEPS:
        module = importlib.import_module(module_name)
        owner = getattr(module, owner_name) if owner_name else module
        if not hasattr(owner, attribute):  # a step an older app does not have is left out
            continue
        original = getattr(owner, attribute)
        wrapped = timed(original, label)
        setattr(owner, attribute, wrapped)
        if owner_name is None:  # a function imported by name into other modules (``from .files import ...``)
            for other in [m for name, m in sys.modules.items() if name.startswith("vmark.")]:
                if getattr(other, attribute, None) is original:
                    setattr(other, attribute, wrapped)

    def dump() -> None:
        out = {
            label: {"n": len(v), "median_ms": 1000 * sorted(v)[len(v) // 2], "mean_ms": 1000 * sum(v) / len(v)}
            for label, v in samples.items()
        }
        Path(os.environ["VMARK_BENCH_STAGES"]).write_text(json.dumps(out), "utf-8")

    atexit.register(dump)
    from vmark.cli.main import main as vmark_main

    sys.argv = ["vmark", *argv]
    return int(vmark_main() or 0)


# --- the benchmark's side -----------------------------------------------------------------------------------
def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(size: int, writes: int, clients: int) -> dict[str, Any]:
    import anyio
    from benchlib import (
        app_started,
        bench_dir,
        bridge_agent,
        bridge_data,
        machine_line,
        markdown_of_size,
        prepare_home,
        vmark_env,
    )

    latencies: list[float] = []
    with bench_dir("stages") as tmp:
        folder, home, out = tmp / "ws", prepare_home(tmp / "home"), tmp / "stages.json"
        folder.mkdir()
        env = {**os.environ, **vmark_env(home), "VMARK_BENCH_STAGES": str(out)}
        with open(home / "app.log", "ab") as log:
            proc = subprocess.Popen(
                [sys.executable, __file__, "--serve", "app", "--headless", str(folder)], env=env, stdout=log, stderr=log
            )
        try:
            await app_started(home, proc)

            async def agent(k: int) -> None:
                async with bridge_agent(home) as client:
                    path = folder / f"doc-{k}.md"
                    path.write_text(markdown_of_size(size, 100 * k), "utf-8")
                    opened = await client.request("vmark.workspace.open", {"filePath": str(path)})
                    tab = bridge_data(opened, "open")["tabId"]
                    texts = (markdown_of_size(size, 100 * k + 1), markdown_of_size(size, 100 * k + 2))
                    for n in range(writes):
                        start = time.perf_counter()
                        payload = {"tabId": tab, "content": texts[n % 2]}
                        bridge_data(await client.request("vmark.document.write", payload), "document.write")
                        if n >= 3:  # warm-up
                            latencies.append(time.perf_counter() - start)

            cpu, start = _cpu_seconds(proc.pid), time.perf_counter()
            async with anyio.create_task_group() as tg:
                for k in range(clients):
                    tg.start_soon(agent, k)
            elapsed, cpu = time.perf_counter() - start, _cpu_seconds(proc.pid) - cpu
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
        steps = json.loads(out.read_text("utf-8"))
    latencies.sort()
    return {
        "machine": machine_line(),
        "size": size,
        "clients": clients,
        "writes": clients * writes,
        "writes_per_s": clients * writes / elapsed,
        "latency_median_ms": 1000 * latencies[len(latencies) // 2],
        "app_cpu_ms_per_write": 1000 * cpu / (clients * writes),
        "steps": {label: steps[label] for _, _, _, label in STEPS if label in steps},
    }


def render(results: dict[str, Any]) -> str:
    from benchlib import human_size, table

    steps = results["steps"].items()
    rows = [[label, str(s["n"]), f"{s['median_ms']:.2f}", f"{s['mean_ms']:.2f}"] for label, s in steps]
    head = (
        f"document.write of {human_size(results['size'])} over the bridge, {results['clients']} client(s):"
        f" {results['latency_median_ms']:.2f} ms median as the client sees it, {results['writes_per_s']:.0f} writes/s,"
        f" app CPU {results['app_cpu_ms_per_write']:.2f} ms per write (all threads)\n"
    )
    return head + table(["step (nested)", "n", "median ms", "mean ms"], rows)


def main() -> int:
    if sys.argv[1:2] == ["--serve"]:
        return _serve(sys.argv[2:])
    sys.path.insert(0, str(Path(__file__).parent))
    from benchlib import run_and_report

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000, help="document bytes")
    parser.add_argument("--writes", type=int, default=60, help="writes per client")
    parser.add_argument("--clients", type=int, default=1)
    args = parser.parse_args()
    return run_and_report("stages", render, run, args.size, args.writes, args.clients)


if __name__ == "__main__":
    sys.exit(main())
