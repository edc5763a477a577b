"""Storage units: journal faults, history, settings, principals, atomic JSON, saves."""

import asyncio
import os
import sqlite3
import stat
import subprocess
from pathlib import Path

import pytest

from vmark.mcp.discovery import read_bridge
from vmark.storage.atomic_json import read_json, write_json
from vmark.storage.datadir import BridgeInfo, InstanceLock, write_bridge
from vmark.storage.files import discard, prepare_replace, save_new, save_replace
from vmark.storage.history import History
from vmark.storage.journal import (
    BeforePatch,
    Journal,
    JournalEntry,
    JournalFault,
    JournalRejected,
    JournalTransient,
    JournalUnavailable,
)
from vmark.storage.pathscope import PathScope
from vmark.storage.principals import PrincipalError, Principals
from vmark.storage.settings import Settings, SettingsError


def _entry(doc: str = "/w/a.md") -> JournalEntry:
    return JournalEntry(tool="document.write", doc=doc, before_text="old", addresses=("c-1",))


async def test_journal_records_durably(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    await journal.start()
    try:
        first = await journal.record(_entry(), timeout=5)
        second = await journal.record(_entry(), timeout=5)
        assert second == first + 1
        rows = await journal.entries("/w/a.md")
        assert [r["addresses"] for r in rows] == ['["c-1"]', '["c-1"]']
        assert bytes(rows[0]["before_text"]) == b"old"
        await journal.mark(first, "aborted")
        assert [r["state"] for r in await journal.entries()] == ["aborted", "recorded"]
    finally:
        journal.close()
    conn = sqlite3.connect(tmp_path / "journal.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


async def test_a_journal_of_an_earlier_version_gains_before_patch(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    old = sqlite3.connect(path)
    old.execute(
        "CREATE TABLE entries (id INTEGER PRIMARY KEY, time REAL NOT NULL, tool TEXT NOT NULL, principal TEXT,"
        " tab TEXT, doc TEXT NOT NULL, file TEXT, rev_before TEXT, rev_after TEXT, hash_before TEXT,"
        " hash_after TEXT, before_text BLOB, addresses TEXT NOT NULL DEFAULT '[]',"
        " state TEXT NOT NULL DEFAULT 'recorded')"
    )
    old.execute("INSERT INTO entries (time, tool, doc, before_text) VALUES (1, 'document.write', '/w/a.md', x'6f6c64')")
    old.commit()
    old.close()
    journal = Journal(path)
    await journal.start()
    try:
        patch = BeforePatch(at=2, length=3, removed="é")
        await journal.record(JournalEntry(tool="selection.set", doc="/w/a.md", before_patch=patch), timeout=5)
        rows = await journal.entries("/w/a.md")
        assert [(r["tool"], r["before_text"], r["before_patch"]) for r in rows] == [
            ("document.write", b"old", None),
            ("selection.set", None, '{"at": 2, "length": 3, "removed": "é"}'),
        ]
    finally:
        journal.close()
    assert patch.restore("a new b") == "a é b"


async def test_journal_faults(tmp_path: Path) -> None:
    fault = JournalFault("transient:1")
    journal = Journal(tmp_path / "journal.db", fault)
    await journal.start()
    try:
        with pytest.raises(JournalTransient):
            await journal.record(_entry("/w/x.md"), timeout=5)
        assert journal.pending_docs == {"/w/x.md"}
        assert await journal.retry_pending() == {"/w/x.md"}
        assert journal.pending_docs == set()
        assert len(await journal.entries("/w/x.md")) == 1
        fault.set("reject:1")
        with pytest.raises(JournalRejected):
            await journal.record(_entry(), timeout=5)
        await journal.record(_entry(), timeout=5)
        fault.set("unavailable")
        with pytest.raises(JournalUnavailable):
            await journal.record(_entry(), timeout=5)
        fault.set("slow:0.3")
        with pytest.raises(JournalUnavailable, match="did not answer in time"):
            await journal.record(_entry(), timeout=0.05)
        with pytest.raises(ValueError):
            fault.set("explode")
    finally:
        journal.close()
    with pytest.raises(JournalUnavailable, match="not running"):
        await journal.record(_entry(), timeout=5)


async def test_a_write_refused_for_a_slow_journal_is_not_recorded(tmp_path: Path) -> None:
    """``JOURNAL_UNAVAILABLE`` changes nothing, the journal included: an entry still queued when its caller gives
    up is never written, and one whose commit was under way lands marked ``aborted``, never ``recorded``."""
    journal = Journal(tmp_path / "journal.db")
    await journal.start()
    disk = sqlite3.connect(tmp_path / "journal.db", isolation_level=None)
    try:
        await journal.record(_entry("/w/before.md"), timeout=5)
        disk.execute("BEGIN IMMEDIATE")  # another writer holds the database: the journal's commit waits
        in_commit = asyncio.create_task(journal.record(_entry("/w/in-commit.md"), timeout=0.2))
        await asyncio.sleep(0.05)  # the flusher has taken it and waits for the lock
        with pytest.raises(JournalUnavailable, match="did not answer in time"):
            await journal.record(_entry("/w/queued.md"), timeout=0.1)
        with pytest.raises(JournalUnavailable, match="did not answer in time"):
            await in_commit
        disk.execute("COMMIT")
        after = await journal.record(_entry("/w/after.md"), timeout=5)
        rows = await journal.entries()
        assert [(r["doc"], r["state"]) for r in rows] == [
            ("/w/before.md", "recorded"),
            ("/w/in-commit.md", "aborted"),
            ("/w/after.md", "recorded"),
        ]
        assert rows[-1]["id"] == after
    finally:
        disk.close()
        journal.close()


async def test_history_and_review_backlog(tmp_path: Path) -> None:
    history = History(tmp_path / "history.db")
    await history.start()
    try:
        await history.snapshot("d", "/w/a.md", "auto", "rev-1", "one")
        await history.snapshot("d", "/w/a.md", "auto", "rev-2", "two")  # merges with the previous auto
        await history.snapshot("d", "/w/a.md", "mcp", "rev-3", "three", "alice", ("c-1",))
        await history.snapshot("d", "/w/a.md", "mcp", "rev-4", "four")  # mcp never merges
        snaps = await history.snapshots("d")
        assert [(s["kind"], s["revision"]) for s in snaps] == [("auto", "rev-2"), ("mcp", "rev-3"), ("mcp", "rev-4")]
        assert snaps[1]["principal"] == "alice" and snaps[1]["addresses"] == ["c-1"]
        for rev in ("rev-3", "rev-4"):
            await history.add_ai_revision("d", rev)
        assert await history.unreviewed("d") == 2
        assert await history.mark_reviewed("d", "rev-3") == 1
        assert await history.unreviewed("d") == 1
        assert await history.mark_reviewed("d") == 1
        assert await history.unreviewed("d") == 0
    finally:
        history.close()


def test_settings_types_and_defaults(tmp_path: Path) -> None:
    settings = Settings(tmp_path / "settings.json")
    assert settings.get("auto_approve_save_as") is False
    assert settings.get("review_backlog_limit") == 50
    settings.set("review_backlog_limit", 3)
    settings.set("readable_roots", ["/a"])
    assert Settings(tmp_path / "settings.json").get("review_backlog_limit") == 3
    assert stat.S_IMODE(os.stat(tmp_path / "settings.json").st_mode) == 0o600
    for key, value in [("review_backlog_limit", True), ("auto_approve_save_as", 1), ("readable_roots", [1])]:
        with pytest.raises(SettingsError):
            settings.set(key, value)
    before = (tmp_path / "settings.json").read_bytes()
    for limit in (0, -5):
        with pytest.raises(SettingsError, match="'review_backlog_limit' must be at least 1"):
            settings.set("review_backlog_limit", limit)
    assert (tmp_path / "settings.json").read_bytes() == before
    with pytest.raises(SettingsError, match="unknown setting"):
        settings.get("nope")
    assert Settings.parse_value("true") is True
    assert Settings.parse_value('["/x"]') == ["/x"]
    assert Settings.parse_value("plain") == "plain"


def test_principals(tmp_path: Path) -> None:
    principals = Principals(tmp_path / "principals.json")
    token = principals.add("claude")
    assert principals.authenticate(token) == "claude"
    assert principals.authenticate("0" * 64) is None
    assert token not in (tmp_path / "principals.json").read_text()
    with pytest.raises(PrincipalError, match="already exists"):
        principals.add("claude")
    with pytest.raises(PrincipalError, match="invalid principal name"):
        principals.add("bad name")
    principals.remove("claude")
    assert principals.authenticate(token) is None
    with pytest.raises(PrincipalError):
        principals.remove("claude")


def test_atomic_json_and_bridge_file(tmp_path: Path) -> None:
    write_json(tmp_path / "x.json", {"a": 1})
    assert read_json(tmp_path / "x.json") == {"a": 1}
    assert read_json(tmp_path / "missing.json") is None
    info = BridgeInfo(port=1234, token="t" * 64, pid=os.getpid())
    write_bridge(tmp_path, info)
    assert stat.S_IMODE(os.stat(tmp_path / "bridge.json").st_mode) == 0o600
    assert read_bridge(tmp_path) is None  # nobody holds the lock: stale
    lock = InstanceLock(tmp_path)
    assert lock.acquire()
    try:
        assert read_bridge(tmp_path) == info
        assert not InstanceLock(tmp_path).acquire()
        # A new app holds the lock but has not written its file yet: the file left is a dead app's.
        dead = subprocess.Popen(["true"])
        dead.wait()
        write_bridge(tmp_path, BridgeInfo(port=1234, token="t" * 64, pid=dead.pid))
        assert read_bridge(tmp_path) is None
    finally:
        lock.release()


def test_saves_keep_mode_and_never_clobber(tmp_path: Path) -> None:
    scope = PathScope.of([str(tmp_path)])
    target = tmp_path / "a.md"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    save_replace(str(target), b"new", scope)
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    fresh = tmp_path / "b.md"
    save_new(str(fresh), b"fresh", scope)
    assert fresh.read_bytes() == b"fresh"
    with pytest.raises(FileExistsError):
        save_new(str(fresh), b"clobber", scope)
    assert fresh.read_bytes() == b"fresh"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "b.md"]  # no temp files left


def _temp_names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".vmark-tmp"))


def test_a_prepared_temp_changes_nothing_until_the_save_renames_it(tmp_path: Path) -> None:
    scope = PathScope.of([str(tmp_path)])
    target = tmp_path / "a.md"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    temp = prepare_replace(str(target), b"new", scope)
    (name,) = _temp_names(tmp_path)
    assert target.read_bytes() == b"old"
    assert (tmp_path / name).read_bytes() == b"new" and stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o640
    inode = os.stat(tmp_path / name).st_ino
    stamp = save_replace(str(target), b"new", scope, temp)
    assert target.read_bytes() == b"new" and stamp.inode == inode == target.stat().st_ino  # that temp, renamed
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


@pytest.mark.parametrize("change", ["other bytes", "other path", "mode changed", "folder moved"])
def test_a_prepared_temp_that_no_longer_fits_is_removed_and_the_save_writes_its_own(
    tmp_path: Path, change: str
) -> None:
    folder = tmp_path / "w"
    folder.mkdir()
    scope = PathScope.of([str(tmp_path)])
    target, other = folder / "a.md", folder / "b.md"
    target.write_bytes(b"old")
    other.write_bytes(b"other")
    temp = prepare_replace(str(other if change == "other path" else target), b"new", scope)
    data = b"newer" if change == "other bytes" else b"new"
    if change == "mode changed":
        os.chmod(target, 0o600)
    if change == "folder moved":  # the temp's folder is elsewhere now; a new folder took its path
        folder.rename(tmp_path / "moved")
        folder.mkdir()
        target.write_bytes(b"old")
    save_replace(str(target), data, scope, temp)
    assert target.read_bytes() == data
    if change == "mode changed":
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert _temp_names(folder) == []
    if change == "folder moved":
        assert sorted(p.name for p in (tmp_path / "moved").iterdir()) == ["a.md", "b.md"]
        assert (tmp_path / "moved" / "a.md").read_bytes() == b"old"


def test_a_discarded_temp_leaves_nothing(tmp_path: Path) -> None:
    scope = PathScope.of([str(tmp_path)])
    target = tmp_path / "a.md"
    target.write_bytes(b"old")
    discard(prepare_replace(str(target), b"new", scope))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"] and target.read_bytes() == b"old"


def test_concurrent_principal_adds_all_land(tmp_path: Path) -> None:
    import concurrent.futures

    path = tmp_path / "principals.json"
    with concurrent.futures.ProcessPoolExecutor(4) as pool:
        tokens = list(pool.map(_add_principal, [(path, f"p{i}") for i in range(16)]))
    principals = Principals(path)
    assert [p["name"] for p in principals.list()] == sorted(f"p{i}" for i in range(16))
    assert all(principals.authenticate(t) == f"p{i}" for i, t in enumerate(tokens))


def _add_principal(args: tuple[Path, str]) -> str:
    return Principals(args[0]).add(args[1])
