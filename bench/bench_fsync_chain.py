"""The disk's part of an agent write, without the app: three orders of the same fsyncs, round by round.

What a ``document.write`` asks of the disk before it answers, rebuilt with the app's own storage calls on the
benchmark's temp file system (a SQLite journal in WAL mode with ``synchronous=FULL``, the atomic save of
``vmark.storage.files``), in three orders:

- ``serial``: the journal's commit, then the temp file written and fsync'd, the rename, the folder's fsync
  (the write path before the overlap);
- ``overlap``: the journal's commit and the temp file's write and fsync at the same time, then the rename and
  the folder's fsync (the write path now: ``vmark.app.prepared_save``);
- ``journal-only``: the journal as the write's durability (as a database's WAL): the entry also holds the new
  text, the answer waits for its commit only; the file is renamed into place without an fsync, and fsync'd
  (file, then folder) by a background thread after the answer.

Each round runs the three in a rotating order and writes the same text, so the disk's drift over a run hits
them alike; the figures are medians (min, max) and each order's median ratio to ``serial``. With ``--clients
N`` that many threads write their own files in one folder at once, each its own journal entry (one SQLite
connection each, as the journal's group commit would not join them here: an upper bound on its cost), and the
figure is writes per second.

    .venv/bin/python bench/bench_fsync_chain.py [--size 1000] [--rounds 40] [--clients 1]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vmark.storage.atomic import sync_dir_fd
from vmark.storage.files import prepare_replace, save_replace
from vmark.storage.pathscope import PathScope

ORDERS = ("serial", "overlap", "journal-only")


class Disk:
    """One writer's files: its document, and a journal shared by every writer (a connection each)."""

    def __init__(self, folder: Path, journal: Path, k: int, size: int) -> None:
        self.folder = folder
        self.scope = PathScope.of([str(folder)])
        self.path = str(folder / f"doc-{k}.md")
        Path(self.path).write_bytes(b"x" * size)
        self.db = sqlite3.connect(journal, isolation_level=None, check_same_thread=False, timeout=60)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("CREATE TABLE IF NOT EXISTS entries (id INTEGER PRIMARY KEY, before BLOB, after BLOB)")
        self.background: list[threading.Thread] = []

    def commit(self, before: bytes, after: bytes | None) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("INSERT INTO entries (before, after) VALUES (?, ?)", (before, after))
        self.db.execute("COMMIT")

    def write(self, order: str, data: bytes, pool: concurrent.futures.ThreadPoolExecutor) -> float:
        before = Path(self.path).read_bytes()
        start = time.perf_counter()
        if order == "serial":
            self.commit(before, None)
            save_replace(self.path, data, self.scope)
        elif order == "overlap":
            temp = pool.submit(prepare_replace, self.path, data, self.scope)
            self.commit(before, None)
            save_replace(self.path, data, self.scope, temp.result())
        else:
            self.commit(before, data)
            self._rename_unsynced(data)
        elapsed = time.perf_counter() - start
        return elapsed

    def _rename_unsynced(self, data: bytes) -> None:
        tmp = self.path + ".tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.rename(tmp, self.path)
        thread = threading.Thread(target=self._sync_later)
        thread.start()
        self.background.append(thread)

    def _sync_later(self) -> None:
        fd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        folder = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            sync_dir_fd(folder)
        finally:
            os.close(folder)

    def settle(self) -> None:
        for thread in self.background:
            thread.join()
        self.background.clear()


def _stats(values: list[float]) -> str:
    values = sorted(values)
    return f"{1000 * values[len(values) // 2]:7.2f} ms ({1000 * values[0]:.2f}–{1000 * values[-1]:.2f})"


def run(size: int, rounds: int, clients: int, tmp: Path) -> dict[str, Any]:
    folder = tmp / "ws"
    folder.mkdir()
    disks = [Disk(folder, tmp / "journal.db", k, size) for k in range(clients)]
    texts = (b"a" * size, b"b" * size)
    latencies: dict[str, list[float]] = {o: [] for o in ORDERS}
    rates: dict[str, list[float]] = {o: [] for o in ORDERS}
    with concurrent.futures.ThreadPoolExecutor(4 * clients + 4) as pool:
        for n in range(rounds + 3):
            for order in ORDERS[n % 3 :] + ORDERS[: n % 3]:
                data = texts[n % 2]

                def one(disk: Disk, data: bytes = data, order: str = order) -> float:
                    return disk.write(order, data, pool)

                start = time.perf_counter()
                took = _all(pool, one, disks)
                elapsed = time.perf_counter() - start
                for disk in disks:
                    disk.settle()  # the background fsyncs land before the next order's round
                if n >= 3:  # warm-up
                    latencies[order].extend(took)
                    rates[order].append(clients / elapsed)
    for disk in disks:
        disk.db.close()
    return {"latencies": latencies, "rates": rates}


def _all(pool: concurrent.futures.ThreadPoolExecutor, fn: Callable[[Any], float], disks: list[Disk]) -> list[float]:
    if len(disks) == 1:
        return [fn(disks[0])]
    return list(pool.map(fn, disks))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000, help="document bytes")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--dir", default=None, help="where to write (default: a temp folder)")
    args = parser.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory(prefix="vmark-fsync-chain-", dir=args.dir) as tmp:
        results = run(args.size, args.rounds, args.clients, Path(tmp))
    base = sorted(results["latencies"]["serial"])[len(results["latencies"]["serial"]) // 2]
    print(f"{args.size} B, {args.clients} writer(s), {args.rounds} rounds; load {os.getloadavg()[0]:.1f}")
    for order in ORDERS:
        lat = results["latencies"][order]
        median = sorted(lat)[len(lat) // 2]
        rate = sorted(results["rates"][order])[len(results["rates"][order]) // 2]
        print(f"  {order:<13} {_stats(lat)}  /serial {median / base:4.2f}  {rate:7.1f} writes/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
