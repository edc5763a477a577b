"""Where the suite's time goes: each work unit's wall time and CPU time, when ``VMARK_TEST_CPU`` names a file.

A unit is what :mod:`tests.schedule` hands a worker (a module, or a module's shard). Its CPU time is the
worker's own (``RUSAGE_SELF``) plus that of the processes the worker reaped meanwhile (``RUSAGE_CHILDREN``:
Chromium through Playwright's driver, ``vmark`` processes, builds), measured from the unit's first test to the
next unit's first test, so module fixtures torn down at the unit's end count for it. Each worker appends one
JSON line per unit; ``python -m tests.cputime FILE`` sums them up. The figures say whether the suite is bound by
the CPU (units' CPU near their wall time when the workers share the cores) or by waiting, and refresh the
estimates of :data:`tests.schedule.SECONDS`.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.schedule import group_of

ENV = "VMARK_TEST_CPU"


@dataclass
class _Unit:
    name: str
    wall: float
    self_cpu: float
    children_cpu: float


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _now(name: str) -> _Unit:
    """``name`` and this process's clock and CPU counters at this moment."""
    return _Unit(name, time.monotonic(), _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN))


class Recorder:
    """A worker's recorder: one line per unit it ran, appended to ``path``."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._open: _Unit | None = None

    def _close(self) -> None:
        if self._open is None:
            return
        end = _now("")
        start, self._open = self._open, None
        line = {
            "unit": start.name,
            "wall": round(end.wall - start.wall, 3),
            "self_cpu": round(end.self_cpu - start.self_cpu, 3),
            "children_cpu": round(end.children_cpu - start.children_cpu, 3),
        }
        with self._path.open("a", encoding="utf-8") as out:  # one short line per write: appends do not interleave
            out.write(json.dumps(line) + "\n")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        unit = group_of(item.nodeid)
        if self._open is None or self._open.name != unit:
            self._close()
            self._open = _now(unit)
        yield

    def pytest_sessionfinish(self) -> None:
        self._close()


def register(config: pytest.Config) -> None:
    """Record this process's units when ``VMARK_TEST_CPU`` is set (in every worker; the controller runs none)."""
    target = os.environ.get(ENV)
    if target:
        config.pluginmanager.register(Recorder(Path(target)), "vmark-cputime")


def summary(path: Path) -> str:
    """The units by CPU time, and the folders' totals."""
    units = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    folders: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    rows = []
    for u in units:
        cpu = u["self_cpu"] + u["children_cpu"]
        folder = u["unit"].split("/")[1] if u["unit"].count("/") >= 2 else "."
        folders[folder][0] += u["wall"]
        folders[folder][1] += cpu
        rows.append((cpu, u["wall"], u["unit"]))
    total_wall = sum(f[0] for f in folders.values())
    total_cpu = sum(f[1] for f in folders.values())
    out = [f"units {len(units)}: worker wall {total_wall:.0f} s, CPU {total_cpu:.0f} s", "", "folder  wall_s  cpu_s"]
    out += [f"{k:<12} {w:7.0f} {c:7.0f}" for k, (w, c) in sorted(folders.items(), key=lambda kv: -kv[1][1])]
    out += ["", "slowest units (cpu_s wall_s unit)"]
    out += [f"{cpu:7.1f} {wall:7.1f}  {name}" for cpu, wall, name in sorted(rows, reverse=True)[:30]]
    return "\n".join(out)


if __name__ == "__main__":
    print(summary(Path(sys.argv[1])))
