"""coherence.edges on a generated workspace of 10,000 Markdown files and 20,000 edges, side by side with
`git status` on the same tree in the same run.

The workspace: 100 folders of 100 files, each with its identity front matter; the ledger holds each
file's capture and one transformation per file with two inputs (20,000 live edges, all fresh at the
start). The tree is a git repository with everything committed, so `git status` has a warm index too.

Measured, interleaved round by round (the machine is shared: medians and paired ratios, no single runs):
- warm: nothing changed since the last call (kernel scan vs `git status --porcelain`);
- 1% touched: 100 upstream files appended to by another program before each pair of calls (each call
  sees its own fresh change: the kernel captures 100 external edits, git re-hashes 100 files);
- cold: index.db deleted, a new kernel answers edges (reads the whole ledger, hashes every file);
- ledger appends per second (one record per fsync'd append, and in batches of 100).

    .venv/bin/python bench/coherence/bench_edges.py [--files 10000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchlib import Stats, machine_line, paired_ratio, save_results, table

from vmark.coherence.identity import content_digest, revision_id, with_identity
from vmark.coherence.kernel import Kernel
from vmark.coherence.layout import init_layout
from vmark.coherence.ledger import Ledger
from vmark.coherence.records import Record, uuid7

WRITER = "0198c0de-0000-7000-8000-00000000be0c"
PARAGRAPH = "A paragraph of the generated workspace, long enough to look like a note. " * 3


def _git(root: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@example.invalid",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@example.invalid",
    }
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def generate(root: Path, files: int) -> list[str]:
    """Write the tree and its ledger; answer the files' relative paths."""
    init_layout(root)
    rels, objects, revs, lines = [], [], [], []
    for i in range(files):
        rel = f"d{i // 100:03d}/n{i:05d}.md"
        oid = uuid7()
        body = f"# Note {i}\n\n{PARAGRAPH}\n"
        (root / rel).parent.mkdir(exist_ok=True)
        (root / rel).write_text(with_identity(body, oid))
        rev = revision_id(content_digest(body), [])
        rels.append(rel)
        objects.append(oid)
        revs.append(rev)
        lines.append(Record("object", {"object": oid, "path": rel}, WRITER, idem=f"object:{oid}").to_line())
        revision = {
            "object": oid,
            "rev": rev,
            "content": content_digest(body),
            "parents": [],
            "path": rel,
            "cause": "capture",
        }
        lines.append(Record("revision", revision, WRITER, idem=f"revision:{rev}").to_line())
    for i in range(files):
        inputs = [
            {"object": objects[j], "rev": revs[j], "path": rels[j], "provenance": "inferred"}
            for j in ((i + 1) % files, (i + 7) % files)
        ]
        txf = {
            "outputs": [{"object": objects[i], "rev": revs[i]}],
            "inputs": inputs,
            "agent": {"kind": "agent", "principal": "bench"},
            "tool": "document.write",
        }
        lines.append(Record("txf", txf, WRITER).to_line())
    (root / ".vmark" / "ledger" / f"{WRITER}.jsonl").write_text("\n".join(lines) + "\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "generated")
    return rels


def _timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def _git_status(root: Path) -> Callable[[], Any]:
    return lambda: subprocess.run(["git", "status", "--porcelain"], cwd=root, check=True, capture_output=True)


def measure(root: Path, rels: list[str], rounds: int) -> dict[str, Any]:
    kernel = Kernel(root, WRITER, watch=True)  # as the app keeps it: inotify tells it what changed
    cold_first, rows = _timed(kernel.edges)
    assert rows == [], f"a fresh workspace has no open edges, got {len(rows)}"
    status = _git_status(root)
    status()  # git's own first refresh of its index
    warm_k, warm_g, touch_k, touch_g, cold_k, opened_k = [], [], [], [], [], []
    touched = 0
    for _ in range(rounds):
        for _ in range(3):
            warm_k.append(_timed(kernel.edges)[0])
            warm_g.append(_timed(status)[0])
        for turn in ("kernel", "git"):
            for rel in rels[touched : touched + len(rels) // 100]:
                with open(root / rel, "a") as handle:
                    handle.write(f"touched by another program ({turn})\n")
            touched += len(rels) // 100
            if turn == "kernel":
                seconds, rows = _timed(kernel.edges)
                touch_k.append(seconds)
                assert len(rows) >= 1
            else:
                touch_g.append(_timed(status)[0])
                kernel.edges()  # keep the kernel's view current for the next warm pair
        opened_k.append(_timed(lambda: Kernel(root, WRITER).edges())[0])
        for name in os.listdir(root / ".vmark"):
            if name.startswith("index.db"):
                os.unlink(root / ".vmark" / name)
        cold_k.append(_timed(lambda: Kernel(root, WRITER).edges())[0])
    open_rows = kernel.edges()
    return {
        "warm_kernel": warm_k,
        "warm_git": warm_g,
        "touch_kernel": touch_k,
        "touch_git": touch_g,
        "cold_kernel": cold_k,
        "opened_kernel": opened_k,
        "first_call": cold_first,
        "open_edges": len(open_rows),
    }


def appends_per_second(root: Path, count: int) -> tuple[float, float]:
    ledger = Ledger(root / ".vmark", "0198c0de-0000-7000-8000-00000000a99e")
    body = {"claim": "c", "statement": "s", "maturity": "draft"}
    single = _timed(lambda: [ledger.append([Record("claim", body, ledger.writer)]) for _ in range(count)])[0]
    batched = _timed(
        lambda: [ledger.append([Record("claim", body, ledger.writer) for _ in range(100)]) for _ in range(count // 10)]
    )[0]
    return count / single, (count // 10) * 100 / batched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--appends", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vmark-coherence-") as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        generated, rels = _timed(lambda: generate(root, args.files))
        ledger_bytes = sum(p.stat().st_size for p in (root / ".vmark" / "ledger").glob("*.jsonl"))
        print(machine_line())
        print(
            f"workspace: {args.files} files, {2 * args.files} edges, ledger {ledger_bytes / 1e6:.1f} MB"
            f" (generated in {generated:.1f} s)"
        )
        m = measure(root, rels, args.rounds)
        single, batched = appends_per_second(root, args.appends)
    rows = [
        [
            "edges, warm (nothing changed)",
            Stats.of(m["warm_kernel"]).ms(),
            Stats.of(m["warm_git"]).ms(),
            f"{paired_ratio(m['warm_kernel'], m['warm_git']):.2f}x",
        ],
        [
            "edges, 1% of files touched",
            Stats.of(m["touch_kernel"]).ms(),
            Stats.of(m["touch_git"]).ms(),
            f"{paired_ratio(m['touch_kernel'], m['touch_git']):.2f}x",
        ],
        ["new kernel, index.db present", Stats.of(m["opened_kernel"]).ms(), "", ""],
        ["cold: index.db deleted, rebuilt", Stats.of(m["cold_kernel"]).ms(), "", ""],
    ]
    print(table(["", "kernel ms median (min-max)", "git status ms", "ratio"], rows))
    print(
        f"first call on the generated ledger: {m['first_call'] * 1000:.0f} ms; open edges at the end: {m['open_edges']}"
    )
    print(f"ledger appends: {single:.0f}/s one record per fsync'd append, {batched:.0f}/s in batches of 100")
    save_results(
        "coherence",
        {
            "machine": machine_line(),
            "files": args.files,
            "edges": 2 * args.files,
            "rounds": args.rounds,
            "warm_ratio": paired_ratio(m["warm_kernel"], m["warm_git"]),
            "touch_ratio": paired_ratio(m["touch_kernel"], m["touch_git"]),
            **{k: Stats.of(v).as_dict() for k, v in m.items() if isinstance(v, list)},
            "appends_per_s_single": single,
            "appends_per_s_batched": batched,
            "warm_median_ms": statistics.median(m["warm_kernel"]) * 1000,
        },
    )


if __name__ == "__main__":
    main()
