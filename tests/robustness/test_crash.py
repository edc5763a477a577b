"""SIGKILL the real app process at random points while agents hammer ``document.write``.

A ``vmark app --headless FOLDER`` subprocess (no test hooks) is killed several times
in the middle of hundreds of journaled, saved writes (1 KB and 200 KB contents, one
writer per file, several files at once) and restarted each time. After every kill:

- every file holds exactly the last content whose write was answered, or the one
  whose answer the kill swallowed: never torn, never mixed, never anything else;
- every write answered ``applied`` + ``durable`` is in the journal (``hash_after``,
  ``rev_after``), and so is a content on disk whose answer was lost (the journal is
  written before the file);
- ``journal.db`` passes ``PRAGMA integrity_check``;
- the workspace folder holds the documents and nothing else but hidden
  ``.NAME.<hex>.vmark-tmp`` temp files of killed saves, which the restarted app removes
  when it opens the document;
- the stale ``bridge.json`` of the dead app is recognised as stale and replaced by the
  restarted app (new pid, new token).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from vmark.app.server import RunningApp
from vmark.core.document import content_hash
from vmark.mcp.bridge_client import BridgeClient, BridgeUnavailable
from vmark.mcp.discovery import read_bridge
from vmark.storage.atomic_json import read_json
from vmark.storage.datadir import BridgeInfo, bridge_path

from .helpers import (
    agent_call,
    agent_ok,
    agents,
    integrity_check,
    prepare_data_dir,
    read_journal,
    read_whole,
    seeded_rng,
)

FILES = ("one.md", "two.md", "notes/three.md")
CYCLES = 8
# The kill comes after a random number of answered writes in this range ... (what a kill can hit is the
# write in flight: eight kills at random points; the writes before it only build the journal and the files'
# history, so a short run of them serves as well as a long one, and each costs fsyncs of 200 KB)
ACKS_PER_CYCLE = (15, 45)
EXTRA_DELAY = (0.0, 0.04)  # ... plus a random delay, so it lands anywhere in a write
SIZES = (1_000, 200_000)
START_TIMEOUT = 30.0
PROGRESS_TIMEOUT = 30.0
TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.[0-9a-f]{12}\.vmark-tmp$")
LOST = (ConnectionError, BridgeUnavailable, OSError)


@dataclass
class FileLog:
    """What was sent to one file and what was answered, across all cycles."""

    name: str
    real: str
    confirmed: str  # the last content whose write was answered (or what the app read at start)
    sent: set[str] = field(default_factory=set)
    inflight: str | None = None
    durable: list[tuple[str, str]] = field(default_factory=list)  # (revision, content) answered durable

    def send(self, content: str) -> None:
        self.sent.add(content_hash(content))
        self.inflight = content

    def answered(self, revision: str, content: str) -> None:
        self.confirmed, self.inflight = content, None
        self.durable.append((revision, content))


@dataclass
class Progress:
    acked: int = 0
    total: int = 0


# --- the app process ------------------------------------------------------------------------------


def app_env(data_dir: Path, hooks: bool = False) -> dict[str, str]:
    """The app's environment: no test hooks (a person's app) unless ``hooks`` (``test.fault`` routed)."""
    env = {k: v for k, v in os.environ.items() if k not in ("VMARK_TEST_HOOKS", "VMARK_JOURNAL_FAULT")}
    env["VMARK_HOME"] = str(data_dir)
    if hooks:
        env["VMARK_TEST_HOOKS"] = "1"
    return env


def start_app(data_dir: Path, folder: Path, hooks: bool = False) -> tuple[subprocess.Popen[bytes], BridgeInfo]:
    with open(data_dir / "app.log", "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "vmark", "app", "--headless", str(folder)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            env=app_env(data_dir, hooks),
        )
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        info = read_bridge(data_dir)
        if info is not None and info.pid == proc.pid:
            return proc, info
        assert proc.poll() is None, (data_dir / "app.log").read_text("utf-8", "replace")
        time.sleep(0.02)
    proc.kill()
    raise AssertionError(f"the app did not write bridge.json within {START_TIMEOUT} s")


@contextmanager
def reaped(procs: list[subprocess.Popen[bytes]]) -> Iterator[None]:
    """Never leave an app process behind, whatever the test does."""
    try:
        yield
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


# --- the writers ---------------------------------------------------------------------------------------


def make_content(name: str, cycle: int, seq: int, rng: random.Random) -> str:
    """A content no other write produces, where every line names its write (a torn mix shows)."""
    tag = f"{name}/c{cycle}/w{seq}/{rng.randrange(16**8):08x}"
    size = rng.choice(SIZES)
    line = f"{tag} é—✓ "
    count = max(1, size // (len(line.encode()) + 8))
    return f"# {tag}\n\n" + "".join(f"{line}{i:06d}\n" for i in range(count))


async def hammer(
    client: BridgeClient, tab: str, log: FileLog, cycle: int, rng: random.Random, progress: Progress
) -> None:
    """Write to ``tab`` until the app dies; every answered write must be applied, durable and saved, or refused
    (``JOURNAL_UNAVAILABLE``) with nothing changed."""
    try:
        revision = (await agent_ok(client, "document", "read", tabId=tab))["revision"]
        for seq in range(1_000_000):
            content = make_content(log.name, cycle, seq, rng)
            log.send(content)
            progress.total += 1
            answer = await agent_call(
                client, "document", "write", tabId=tab, content=content, expected_revision=revision
            )
            if answer.code == "JOURNAL_UNAVAILABLE":
                # A disk held by other jobs kept the journal past its answer time: the write is refused and
                # changed nothing (the file's check after the kill holds it to that).
                log.inflight = None
                continue
            assert answer.ok, answer.error
            assert answer.data == {
                "revision": answer.data["revision"],
                "applied": True,
                "durable": True,
                "saved": True,
                "journaled": "yes",
            }
            revision = answer.data["revision"]
            log.answered(revision, content)
            progress.acked += 1
    except LOST:
        return


async def run_cycle(
    data_dir: Path, folder: Path, logs: dict[str, FileLog], cycle: int, rng: random.Random
) -> tuple[subprocess.Popen[bytes], BridgeInfo, int]:
    """Start the app, hammer every file, SIGKILL it at a random point. Returns the dead app."""
    proc, info = start_app(data_dir, folder)
    progress = Progress()
    async with agents(data_dir, len(logs)) as clients:
        tabs = [await open_and_check(c, folder, log) for c, log in zip(clients, logs.values(), strict=True)]
        assert check_folder(folder, logs) == [], "opening the documents removes the temp files of killed saves"
        writers = [
            asyncio.create_task(hammer(c, tab, log, cycle, random.Random(rng.random()), progress))
            for c, tab, log in zip(clients, tabs, logs.values(), strict=True)
        ]
        await wait_for_acks(progress, rng.randint(*ACKS_PER_CYCLE), writers)
        await asyncio.sleep(rng.uniform(*EXTRA_DELAY))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        await asyncio.gather(*writers)
    return proc, info, progress.total


async def open_and_check(client: BridgeClient, folder: Path, log: FileLog) -> str:
    """Open the file; the restarted app must show exactly what is on disk."""
    tab = (await agent_ok(client, "workspace", "open", filePath=str(folder / log.name)))["tabId"]
    doc = await read_whole(client, tab)  # a long log comes in pages
    assert doc["content"] == log.confirmed and doc["dirty"] is False
    return str(tab)


async def wait_for_acks(progress: Progress, target: int, writers: list[asyncio.Task[None]]) -> None:
    deadline = time.monotonic() + PROGRESS_TIMEOUT
    while progress.acked < target:
        assert time.monotonic() < deadline, f"only {progress.acked} writes answered in {PROGRESS_TIMEOUT} s"
        for task in writers:
            if task.done():
                task.result()  # a failed assertion in a writer surfaces here
        await asyncio.sleep(0.005)


# --- the checks after a kill ----------------------------------------------------------------------------


def check_files(folder: Path, logs: dict[str, FileLog], journal_hashes: set[tuple[str | None, str | None]]) -> int:
    """Old or new content, nothing else; a content on disk was journaled. Returns the lost answers."""
    lost = 0
    for log in logs.values():
        data = (folder / log.name).read_bytes()
        candidates = {log.confirmed.encode("utf-8")}
        if log.inflight is not None:
            candidates.add(log.inflight.encode("utf-8"))
        assert data in candidates, f"{log.name}: {len(data)} bytes on disk are neither old nor new content"
        text = data.decode("utf-8")
        if text != log.confirmed:
            assert log.inflight == text and content_hash(text) in log.sent
            assert (log.real, content_hash(text)) in journal_hashes, f"{log.name}: on disk but not journaled"
            log.confirmed, lost = text, lost + 1
        log.inflight = None
    return lost


def check_journal(db: Path, logs: dict[str, FileLog]) -> set[tuple[str | None, str | None]]:
    assert integrity_check(db) == ["ok"]
    entries = read_journal(db)
    recorded = {(e["file"], e["rev_after"], e["hash_after"]) for e in entries if e["state"] == "recorded"}
    for log in logs.values():
        for revision, content in log.durable:
            assert (log.real, revision, content_hash(content)) in recorded, f"{log.name}: durable write not journaled"
    return {(e["file"], e["hash_after"]) for e in entries}


def check_folder(folder: Path, logs: dict[str, FileLog]) -> list[str]:
    """Only the documents, plus hidden temp files of killed saves of those documents. Returns the temps."""
    documents = {os.path.join(folder, log.name) for log in logs.values()}
    temps = []
    for directory, subdirs, names in os.walk(folder):
        subdirs[:] = [d for d in subdirs if d != ".vmark"]
        for name in names:
            path = os.path.join(directory, name)
            if path in documents:
                continue
            match = TEMP_NAME.match(name)
            assert match and os.path.join(directory, match["name"]) in documents, f"unexpected file {path}"
            temps.append(path)
    return temps


def check_bridge_is_stale(data_dir: Path, dead: BridgeInfo) -> None:
    """The dead app's bridge.json is still there, but nobody holds the lock: it is stale."""
    left = read_json(bridge_path(data_dir))
    assert left == {"port": dead.port, "token": dead.token, "pid": dead.pid, "uiToken": dead.ui_token}
    assert read_bridge(data_dir) is None


# --- the test ----------------------------------------------------------------------------------------------


def make_workspace(root: Path) -> Path:
    folder = root / "ws"
    for name in FILES:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n\noriginal\n", "utf-8")
    return folder


@pytest.mark.timeout(600)  # hundreds of writes by a process killed and started again, half a minute unloaded
async def test_sigkill_during_hundreds_of_writes(tmp_path: Path) -> None:
    rng = seeded_rng("crash")
    folder, data_dir = make_workspace(tmp_path), tmp_path / "data"
    prepare_data_dir(data_dir, tmp_path)
    logs = {name: FileLog(name, os.path.realpath(folder / name), (folder / name).read_text("utf-8")) for name in FILES}
    procs: list[subprocess.Popen[bytes]] = []
    previous: BridgeInfo | None = None
    totals = {"sent": 0, "lost": 0}
    temps: set[str] = set()
    with reaped(procs):
        for cycle in range(CYCLES):
            proc, info, sent = await run_cycle(data_dir, folder, logs, cycle, rng)
            procs.append(proc)
            if previous is not None:
                assert (info.pid, info.token) != (previous.pid, previous.token)
            previous = info
            check_bridge_is_stale(data_dir, info)
            journal_hashes = check_journal(data_dir / "journal.db", logs)
            totals["lost"] += check_files(folder, logs, journal_hashes)
            temps.update(check_folder(folder, logs))
            totals["sent"] += sent
        await restart_cleans_up(data_dir, folder, logs, procs)
    durable = sum(len(log.durable) for log in logs.values())
    print(
        f"{CYCLES} kills: {totals['sent']} writes sent, {durable} answered durable, {totals['lost']} answers lost"
        f" (the file had the new content), {len(temps)} temp files left by killed saves (removed on the next open)"
    )
    assert durable >= CYCLES * ACKS_PER_CYCLE[0]


async def restart_cleans_up(
    data_dir: Path, folder: Path, logs: dict[str, FileLog], procs: list[subprocess.Popen[bytes]]
) -> None:
    """A last start after the last kill: it shows the files as they are, removes the temps, stops cleanly."""
    proc, _ = start_app(data_dir, folder)
    procs.append(proc)
    async with agents(data_dir, len(logs)) as clients:
        for client, log in zip(clients, logs.values(), strict=True):
            await open_and_check(client, folder, log)
    assert check_folder(folder, logs) == []
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=START_TIMEOUT) == 0
    assert not bridge_path(data_dir).exists()
    assert integrity_check(data_dir / "journal.db") == ["ok"]


async def test_opening_a_document_removes_only_its_stale_temp_files(vmark: RunningApp, opened: Path) -> None:
    """Temps of killed saves (older than the app) go; anything else, or anything newer, stays."""
    old = os.stat(opened / "a.md").st_mtime_ns - 10**9 * 3600
    stale = [opened / ".a.md.0123456789ab.vmark-tmp", opened / ".a.md.ba9876543210.vmark-tmp"]
    kept = [
        opened / ".a.md.fresh0000000.vmark-tmp",  # not a temp name of ours
        opened / ".a.md.0123456789ab.vmark-tmp.bak",
        opened / ".b.md.0123456789ab.vmark-tmp",  # another document's
        opened / "notes" / ".a.md.0123456789ab.vmark-tmp",  # another folder's
    ]
    for path in [*stale, *kept]:
        path.write_bytes(b"partial")
        os.utime(path, ns=(old, old))
    young = opened / ".a.md.cafecafecafe.vmark-tmp"  # a save of a live app, maybe
    young.write_bytes(b"in flight")
    async with agents(vmark.data_dir, 1) as (client,):
        await agent_ok(client, "workspace", "open", filePath=str(opened / "a.md"))
    assert [p for p in stale if p.exists()] == []
    assert [p.read_bytes() for p in kept] == [b"partial"] * len(kept)
    assert young.read_bytes() == b"in flight"
