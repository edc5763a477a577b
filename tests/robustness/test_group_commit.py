"""SIGKILL the app between a group commit of the journal and its answers.

Concurrent agents' journal entries share one SQLite transaction and one fsync; each writer is answered only
once that commit returned, and only then does its change apply and save. Here eight agents write their own
files back to back in a real ``vmark app`` process (test hooks on) until the journal commits a batch of at
least two entries and, by the test fault ``hold:2``, never answers it; the app is killed right then and
started again. Then:

- no acknowledged write is lost: every file holds its last answered content (or, where the kill swallowed an
  answer of an earlier batch, that write's content, which is journaled), and every answered write is in the
  journal;
- no unacknowledged write of the held batch is applied, even in part: its entries are in the journal
  (durable, committed), and every file they name still holds exactly the content before them;
- the restarted app shows every file as it is on disk, and the journal passes ``integrity_check``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path

from vmark.core.document import content_hash
from vmark.mcp.bridge_client import BridgeClient

from .helpers import agent_call, agents, integrity_check, prepare_data_dir, read_journal, seeded_rng
from .test_crash import (
    LOST,
    START_TIMEOUT,
    FileLog,
    check_files,
    check_journal,
    make_content,
    open_and_check,
    reaped,
    start_app,
)

FILES = tuple(f"doc-{k}.md" for k in range(8))
#: the fault: the first committed batch of at least this many entries is held unanswered
BATCH = 2
ACKS_BEFORE = 40
HOLD_TIMEOUT = 60.0
MARKER = "is held unanswered (test fault)"


async def write_until_killed(client: BridgeClient, tab: str, log: FileLog, acked: list[int]) -> None:
    """Back-to-back writes; an answered one must be applied, durable and saved. A refusal (the held journal
    does not answer in time: ``JOURNAL_UNAVAILABLE``) changed nothing; a lost connection ends the writer."""
    rng = seeded_rng(f"group-{log.name}")
    try:
        for seq in range(1_000_000):
            content = make_content(log.name, 0, seq, rng)
            log.send(content)
            answer = await agent_call(client, "document", "write", tabId=tab, content=content)
            if not answer.ok:
                assert answer.code == "JOURNAL_UNAVAILABLE", answer.error
                log.inflight = None  # refused: nothing changed
                continue
            assert (answer.data["applied"], answer.data["durable"], answer.data["saved"]) == (True, True, True)
            log.answered(answer.data["revision"], content)
            acked[0] += 1
    except LOST:
        return


async def test_a_kill_between_a_group_commit_and_its_answers_loses_nothing(tmp_path: Path) -> None:
    folder, data_dir = tmp_path / "ws", tmp_path / "data"
    folder.mkdir()
    prepare_data_dir(data_dir, tmp_path)
    for name in FILES:
        (folder / name).write_text(f"# {name}\n\noriginal\n", "utf-8")
    logs = {name: FileLog(name, os.path.realpath(folder / name), (folder / name).read_text("utf-8")) for name in FILES}
    procs: list[subprocess.Popen[bytes]] = []
    with reaped(procs):
        proc, _ = start_app(data_dir, folder, hooks=True)
        procs.append(proc)
        acked = [0]
        async with agents(data_dir, len(FILES)) as clients:
            tabs = [await open_and_check(c, folder, log) for c, log in zip(clients, logs.values(), strict=True)]
            writers = [
                asyncio.create_task(write_until_killed(c, tab, log, acked))
                for c, tab, log in zip(clients, tabs, logs.values(), strict=True)
            ]
            deadline = time.monotonic() + HOLD_TIMEOUT
            while acked[0] < ACKS_BEFORE:
                assert time.monotonic() < deadline, f"only {acked[0]} writes answered"
                await asyncio.sleep(0.005)
            assert (await clients[0].request("test.fault", {"journal": f"hold:{BATCH}"}))["success"]
            app_log = data_dir / "app.log"
            while MARKER not in app_log.read_text("utf-8", "replace"):
                assert time.monotonic() < deadline, "the journal never held a batch"
                await asyncio.sleep(0.002)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            await asyncio.gather(*writers)
        held = int(app_log.read_text("utf-8").split(MARKER)[0].rsplit("batch of ", 1)[1].split()[0])
        assert held >= BATCH
        journal_hashes = check_journal(data_dir / "journal.db", logs)  # every answered write is journaled
        check_files(folder, logs, journal_hashes)  # old or new content, never a mix; what is on disk is journaled
        # The held batch: the last entries committed (the journal never committed after it). Durable, unanswered,
        # and not applied: each file they name holds the text before them, exactly.
        entries = read_journal(data_dir / "journal.db")
        batch = entries[-held:]
        assert len({e["file"] for e in batch}) == held  # one entry per writer in a batch
        for entry in batch:
            on_disk = Path(entry["file"]).read_text("utf-8")
            assert content_hash(on_disk) == entry["hash_before"] != entry["hash_after"], entry["file"]
            assert on_disk == logs[os.path.relpath(entry["file"], os.path.realpath(folder))].confirmed
        assert integrity_check(data_dir / "journal.db") == ["ok"]
        # Started again, the app shows every file as it is on disk.
        again, _ = start_app(data_dir, folder)
        procs.append(again)
        async with agents(data_dir, len(FILES)) as clients:
            for client, log in zip(clients, logs.values(), strict=True):
                await open_and_check(client, folder, log)
        again.send_signal(signal.SIGTERM)
        assert again.wait(timeout=START_TIMEOUT) == 0
