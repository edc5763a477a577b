"""The review's word diff of an agent's rewrite (``core.review.word_hunks``, a pure function, on the app's event
loop after the write's answer), two checkouts side by side: this one's and another's (``--old``), in one run.

Each checkout's function runs in its own process (``PYTHONPATH`` = that checkout's ``src``; this file with
``--worker``, which imports nothing but the standard library and ``vmark.core``), the two taking turns round by
round, the order alternating. The texts are the benchmarks' Markdown (``markdown_of_size``: headings, list
lines) of each size, rewritten as an agent does:

- ``one word``: one word of one line (the common edit: the baseline, it must not get slower);
- ``a word on every line``: one word changed on every list line (the review's worst case before: difflib's
  matcher is quadratic in a block of similar lines);
- ``... and added lines``: the same, and a line added after every seventh line (the blocks of changed lines
  then have more new lines than old ones).

Printed per case: each checkout's median and p95 in ms, new/old (the median of the round-by-round ratios), the
pending changes each one's hunks make, and whether both give the same hunks.

    .venv/bin/python bench/bench_word_diff.py --old ../main [--rounds 5] [--sizes 64000,1000000]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: (case, what the agent did to each line of the text)
CASES = ("one word", "a word on every line", "... and added lines")


def _rewritten(text: str, case: str) -> str:
    lines = text.split("\n")
    if case == "one word":
        at = len(lines) // 2
        lines[at] = lines[at].replace("quick", "swift", 1)
        return "\n".join(lines)
    added = case == "... and added lines"
    out: list[str] = []
    for n, line in enumerate(lines):
        out.append(line.replace("quick", "swift", 1))
        if added and n % 7 == 3:
            out.append(f"- a line the agent added after line {n}, with words of its own")
    return "\n".join(out)


def _worker() -> None:
    """One checkout's side: ``{"old": path, "new": path}`` per line on stdin, ``{"seconds", "hunks", "digest"}``
    per line on stdout."""
    from vmark.core.changes import diff
    from vmark.core.review import word_hunks

    texts: dict[str, str] = {}
    for request in map(json.loads, sys.stdin):
        old, new = (texts.setdefault(p, Path(p).read_text("utf-8")) for p in (request["old"], request["new"]))
        span = diff(old, new)
        spans = () if span is None else (span,)
        start = time.perf_counter()
        hunks = word_hunks(old, new, spans)
        seconds = time.perf_counter() - start
        digest = hashlib.sha256(json.dumps([list(h) for h in hunks]).encode()).hexdigest()
        print(json.dumps({"seconds": seconds, "hunks": len(hunks), "digest": digest}), flush=True)


class _Side:
    """A checkout's worker process."""

    def __init__(self, name: str, src: Path) -> None:
        self.name = name
        env = {**os.environ, "PYTHONPATH": str(src)}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )

    def run(self, old: Path, new: Path) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"old": str(old), "new": str(new)}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.name} worker ended (exit status {self.proc.wait()})")
        return dict(json.loads(line))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def run(old_src: Path, new_src: Path, sizes: list[int], rounds: int) -> list[dict[str, Any]]:
    from benchlib import markdown_of_size

    results: list[dict[str, Any]] = []
    sides = [_Side("old", old_src), _Side("new", new_src)]
    try:
        with tempfile.TemporaryDirectory(prefix="vmark-bench-word-diff-") as tmp:
            for size in sizes:
                text = markdown_of_size(size)
                old_path = Path(tmp, f"{size}.md")
                old_path.write_text(text, "utf-8")
                for case in CASES:
                    new_path = Path(tmp, f"{size}-{CASES.index(case)}.md")
                    new_path.write_text(_rewritten(text, case), "utf-8")
                    samples: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
                    for r in range(rounds):
                        for side in sides if r % 2 == 0 else sides[::-1]:
                            samples[side.name].append(side.run(old_path, new_path))
                    results.append(_case(size, case, samples))
                    print(_row(results[-1]), flush=True)
    finally:
        for side in sides:
            side.close()
    return results


def _case(size: int, case: str, samples: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    seconds = {name: [s["seconds"] for s in runs] for name, runs in samples.items()}
    return {
        "size": size,
        "case": case,
        **{f"{name}_median_ms": statistics.median(values) * 1000 for name, values in seconds.items()},
        **{f"{name}_p95_ms": _p95(values) * 1000 for name, values in seconds.items()},
        "new_old": statistics.median(n / o for n, o in zip(seconds["new"], seconds["old"], strict=True)),
        "hunks": {name: runs[0]["hunks"] for name, runs in samples.items()},
        "same_hunks": samples["old"][0]["digest"] == samples["new"][0]["digest"],
        "rounds": len(seconds["new"]),
    }


HEADERS = ["size", "edit", "old ms (median / p95)", "new ms (median / p95)", "new/old", "changes old / new", "same"]


def _row(result: dict[str, Any]) -> str:
    from benchlib import human_size

    cells = [
        human_size(result["size"]),
        result["case"],
        f"{result['old_median_ms']:.1f} / {result['old_p95_ms']:.1f}",
        f"{result['new_median_ms']:.1f} / {result['new_p95_ms']:.1f}",
        f"{result['new_old']:.3f}",
        f"{result['hunks']['old']} / {result['hunks']['new']}",
        "yes" if result["same_hunks"] else "no",
    ]
    return " | ".join(cells)


def main() -> int:
    if sys.argv[1:] == ["--worker"]:
        _worker()
        return 0
    from benchlib import ROOT, machine_line, save_results, table

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="the other checkout (its src is run)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", default="64000,1000000", help="text sizes in bytes, comma-separated")
    args = parser.parse_args()
    if not (args.old / "src/vmark/core/review.py").is_file():
        print(f"bench_word_diff: {args.old} is not a vmark checkout", file=sys.stderr)
        return 1
    sizes = [int(s) for s in args.sizes.split(",")]
    load = os.getloadavg()
    print(f"the review's word diff, {args.rounds} rounds each; {machine_line()}; load average {load[0]:.2f}")
    results = run(args.old.resolve() / "src", ROOT / "src", sizes, args.rounds)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    print(table(HEADERS, [_row(r).split(" | ") for r in results]))
    print(f"figures saved to {save_results('word_diff', {'load_average': load, 'cases': results})}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
