"""Run the protocol benchmarks and print a compact summary (``make bench``).

    .venv/bin/python bench/run_all.py [--quick] [--ui] [--no-foreign]

Each benchmark prints its own table first; the summary follows, then the write path's figures side by side
with their targets (``targets``). ``--ui`` adds the agent-change-to-highlight part of bench_ui.py (a real
Chromium; a few minutes); the foreign client (the TypeScript SDK, Node) runs unless ``--no-foreign``.
Figures are also kept as JSON in bench/results/ (ignored by git). Nothing here judges a figure: the
targets are printed beside them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import bench_coldstart
import bench_document
import bench_foreign
import bench_throughput
from benchlib import ROOT, BenchError, human_size, install_peer, machine_line, run_async, save_results, table

KB, MB = 1_000, 1_000_000
UI_SECONDS = 1800


def timed(name: str, fn: Callable[..., Awaitable[dict[str, Any]]], *args: Any) -> dict[str, Any]:
    print(f"== {name} ...", flush=True)
    start = time.perf_counter()
    results = run_async(fn, *args)
    results["wall_seconds"] = time.perf_counter() - start
    return results


def document_lines(doc: dict[str, Any]) -> list[str]:
    lines = []
    for entry in doc["sizes"]:
        size = human_size(entry["size"])
        for op in ("read", "write"):
            r = entry[op]
            target = f"  target ≤ {r['target_ratio']}" if r["target_ratio"] else ""
            cut = "  (vmark's answer: the first page, 75,000 B)" if op == "read" and entry["vmark_paged"] else ""
            vmark, peer = r["vmark"]["median_ms"], r["peer"]["median_ms"]
            lines.append(
                f"document.{op:<5} {size:>5}: vmark {vmark:8.1f} ms  peer {peer:8.1f} ms"
                f"  vmark/peer {r['ratio_vmark_peer']:5.2f}{target}"
                f"  | bridge {r['bridge']['median_ms']:7.1f} ms, bridge/peer {r['ratio_bridge_peer']:.2f}{cut}"
            )
    return lines


def throughput_lines(tp: dict[str, Any]) -> list[str]:
    parts = []
    for lv in tp["levels"]:
        limit = lv["fsync_per_s"]["limit"]
        parts.append(f"{lv['clients']} → {lv['writes_per_s']:.0f}/s = {lv['percent_of_fsync']:.1f}% of {limit:.0f}")
    return [
        f"journaled writes/s (clients → writes/s = % of the fsync rate; target ≥ {tp['target_percent']:.0f}%): "
        + ", ".join(parts),
        f"  atomic-save loop on the same file system (temp, fsync, rename, dir fsync): {tp['atomic_save_per_s']:.0f}/s",
    ]


def coldstart_lines(cs: dict[str, Any]) -> list[str]:
    def fmt(d: dict[str, Any]) -> str:
        return f"{d['median_ms']:.0f} ms (min {d['min_ms']:.0f}, max {d['max_ms']:.0f})"

    return [
        f"cold start to first answer: {fmt(cs['cold']['first_answer'])}; target < {cs['target_seconds'] * 1000:.0f} ms",
        f"warm start (app running):   {fmt(cs['warm']['first_answer'])}",
        f"  of which the SDK import + handshake (warm): {fmt(cs['warm']['handshake'])}",
    ]


def _ratio(doc: dict[str, Any], op: str, size: int) -> float | None:
    for entry in doc["sizes"]:
        if entry["size"] == size:
            return float(entry[op]["ratio_vmark_peer"])
    return None


def _foreign_ratio(foreign: dict[str, Any] | None, op: str, size: int) -> str:
    for entry in (foreign or {}).get("sizes", []):
        if entry["size"] == size and op in entry:
            return f"{entry[op]['ratio_vmark_peer']:.2f}"
    return "-"


def target_lines(doc: dict[str, Any], tp: dict[str, Any], foreign: dict[str, Any] | None, ui: Any) -> list[str]:
    """The write path's figures side by side with their targets (the Python client; the TypeScript one beside)."""
    rows = []
    for op, size, target in (
        ("write", KB, "<= 1.3"),
        ("write", MB, "<= 1.2"),
        ("read", KB, "<= 1.2"),
        ("read", 64 * KB, "<= 1.2"),
    ):
        ratio = _ratio(doc, op, size)
        rows.append(
            [
                f"document.{op} {human_size(size)} / the filesystem server",
                target,
                "-" if ratio is None else f"{ratio:.2f}",
                _foreign_ratio(foreign, op, size),
            ]
        )
    level = next(lv for lv in tp["levels"] if lv["clients"] == max(lv2["clients"] for lv2 in tp["levels"]))
    limit = level["fsync_per_s"]["limit"]
    foreign_tp = (foreign or {}).get("throughput")
    rows.append(
        [
            f"journaled writes/s, {level['clients']} clients / a plain fsync loop",
            ">= 25%",
            f"{level['percent_of_fsync']:.1f}% ({level['writes_per_s']:.0f}/s of {limit:.0f}/s)",
            f"{foreign_tp['writes_per_s']:.0f}/s with {foreign_tp['clients']} clients" if foreign_tp else "-",
        ]
    )
    rows.append(["1-word agent edit of 1 MB, answer to highlight, WYSIWYG p95", "< 60 ms", _ui_figure(ui), ""])
    return table(["figure", "target", "measured (Python client)", "TypeScript client"], rows).splitlines()


def _ui_figure(ui: Any) -> str:
    if not isinstance(ui, list):
        return "not run (--ui)" if ui is None else str(ui)
    for row in ui:
        if row["mode"] == "wysiwyg" and row["review"] and "answer_highlight" in row:
            r = row["answer_highlight"]
            return f"{r['p95_ms']:.0f} ms (median {r['median_ms']:.0f}, n={r['n']})"
    return "-"


def run_ui(rounds: int) -> Any:
    """bench_ui.py's agent-change-to-highlight part, in its own process (it drives a Chromium)."""
    print("== agent change to highlight (bench_ui.py --parts review) ...", flush=True)
    args = [sys.executable, str(ROOT / "bench/bench_ui.py"), "--parts", "review", "--review-rounds", str(rounds)]
    done = subprocess.run(args, timeout=UI_SECONDS, check=False)
    if done.returncode != 0:
        return f"bench_ui.py failed ({done.returncode})"
    return json.loads((ROOT / "bench/results/ui.json").read_text("utf-8")).get("review")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run, about a minute)")
    parser.add_argument("--ui", action="store_true", help="also the agent-change-to-highlight part of bench_ui.py")
    parser.add_argument("--no-foreign", action="store_true", help="leave out the TypeScript SDK client")
    args = parser.parse_args()
    if not install_peer():
        print("the peer could not be installed: run `npm ci --prefix bench` (needs node and npm)", file=sys.stderr)
        return 2
    scale, seconds, rounds = (0.3, 1.5, 3) if args.quick else (1.0, 3.0, 5)
    start = time.perf_counter()
    doc = timed("document.read / document.write vs the reference filesystem server", bench_document.run, scale)
    print(bench_document.render(doc), end="\n\n")
    tp = timed("journaled write throughput", bench_throughput.run, seconds)
    print(bench_throughput.render(tp), end="\n\n")
    cs = timed("cold start", bench_coldstart.run, rounds)
    print(bench_coldstart.render(cs), end="\n\n")
    foreign: dict[str, Any] | None = None
    if not args.no_foreign:
        try:
            foreign = timed("the TypeScript SDK's client", bench_foreign.run, 8 if args.quick else 15, 8, seconds)
            print(bench_foreign.render(foreign), end="\n\n")
        except BenchError as exc:
            print(f"the foreign client did not run: {exc}", file=sys.stderr)
    ui = run_ui(8 if args.quick else 20) if args.ui else None
    summary = [*document_lines(doc), *throughput_lines(tp), *coldstart_lines(cs)]
    targets = target_lines(doc, tp, foreign, ui)
    print(f"== summary ({machine_line()}; {time.perf_counter() - start:.0f} s in all)")
    print("\n".join(summary))
    print("\n== the write path's targets (ratios: medians of round-by-round vmark/peer)")
    print("\n".join(targets))
    results = {"document": doc, "throughput": tp, "coldstart": cs, "foreign": foreign, "ui_review": ui}
    path = save_results("all", {**results, "summary": summary, "targets": targets})
    print(f"figures saved to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
