"""The review store after a run of unreviewed agent rewrites, two checkouts side by side: this one's and another's
(``--old``), in one run.

An agent rewrites a document again and again and the person reviews nothing: each rewrite makes a new pending
change for each of the document's changed regions, merging (and carrying every revision of) the one before it.
Each checkout's ``ReviewStore`` (``storage/reviews.py``, a real SQLite file in a temp folder) saves that run in
its own process (``PYTHONPATH`` = the checkout's ``src``; this file with ``--worker``), then loads it back and
checks the last changes carry every revision. Printed: the store's size on disk, its CPU and wall time per save.

    .venv/bin/python bench/bench_review_store.py --old ../main [--rewrites 1000] [--changes 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


async def _run(rewrites: int, regions: int) -> dict[str, float]:
    from vmark.core.review import Change
    from vmark.storage.reviews import ReviewStore

    with tempfile.TemporaryDirectory() as tmp:
        store = ReviewStore(Path(tmp) / "reviews.db")
        await store.start()
        changes = [
            Change(f"c0-{k}", ("r0",), "alice", "document.write", k * 50, k * 50 + 40, "x" * 40, 1.0)
            for k in range(regions)
        ]
        await store.save("doc", "h0", changes, [])
        cpu, wall = time.process_time(), time.perf_counter()
        for i in range(1, rewrites):
            merged, changes = (
                changes,
                [
                    Change(f"c{i}-{k}", (*c.revisions, f"r{i}"), c.principal, c.tool, c.start, c.end, c.old, c.at)
                    for k, c in enumerate(changes)
                ],
            )
            await store.save("doc", f"h{i}", changes, [(c.id, "merged") for c in merged])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        loaded = (await store.load())["doc"].changes
        store.close()
        if [c.revisions for c in loaded] != [tuple(f"r{i}" for i in range(rewrites))] * regions:
            raise SystemExit("the store did not load the revisions it saved")
        size = sum(f.stat().st_size for f in Path(tmp).iterdir())
    return {"mb": size / 1e6, "cpu_ms": cpu / rewrites * 1000, "wall_ms": wall / rewrites * 1000}


def _worker(src: Path, rewrites: int, regions: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    args = [sys.executable, __file__, "--worker", str(rewrites), str(regions)]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout))


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        print(json.dumps(asyncio.run(_run(int(sys.argv[2]), int(sys.argv[3])))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the other checkout (its src is run)")
    parser.add_argument("--rewrites", type=int, default=1000)
    parser.add_argument("--changes", type=int, default=20, help="changed regions per rewrite")
    args = parser.parse_args()
    old = _worker(args.old.resolve() / "src", args.rewrites, args.changes)
    new = _worker(ROOT / "src", args.rewrites, args.changes)
    print(f"{args.rewrites} unreviewed rewrites, {args.changes} changed regions each")
    print(f"{'':4}  {'store MB':>9}  {'CPU ms/save':>11}  {'wall ms/save':>12}")
    for name, figures in (("old", old), ("new", new)):
        print(f"{name:4}  {figures['mb']:9.1f}  {figures['cpu_ms']:11.2f}  {figures['wall_ms']:12.2f}")
    print(f"new/old: store {new['mb'] / old['mb']:.3f}, CPU {new['cpu_ms'] / old['cpu_ms']:.2f}")


if __name__ == "__main__":
    main()
