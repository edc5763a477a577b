"""History storage: listings without texts, one snapshot by id, and the AI revisions a revert undoes."""

from __future__ import annotations

from pathlib import Path

from vmark.storage.history import History


async def test_listing_without_texts_and_one_snapshot_by_id(tmp_path: Path) -> None:
    history = History(tmp_path / "history.db")
    await history.start()
    try:
        first = await history.snapshot("d", "/w/a.md", "manual", "rev-1", "one\n")
        second = await history.snapshot("d", "/w/a.md", "mcp", "rev-2", "two\n", "alice", ("c-1",))
        other = await history.snapshot("e", "/w/b.md", "manual", "rev-3", "other\n")
        full = await history.snapshots("d")
        listing = await history.snapshots("d", content=False)
        assert [s["content"] for s in full] == ["one\n", "two\n"]
        assert listing == [{k: v for k, v in s.items() if k != "content"} for s in full]
        assert [(s["id"], s["kind"], s["principal"], s["addresses"]) for s in listing] == [
            (first, "manual", None, []),
            (second, "mcp", "alice", ["c-1"]),
        ]
        assert await history.snapshot_of("d", second) == full[1]
        assert await history.snapshot_of("d", other) is None  # another document's snapshot
        assert await history.snapshot_of("d", 999) is None
    finally:
        history.close()


async def test_unreviewed_after_a_snapshot(tmp_path: Path) -> None:
    history = History(tmp_path / "history.db")
    await history.start()
    try:
        base = await history.snapshot("d", "/w/a.md", "manual", "rev-0", "zero\n")
        await history.add_ai_revision("d", "rev-1")
        one = await history.snapshot("d", "/w/a.md", "mcp", "rev-1", "one\n")
        await history.add_ai_revision("d", "rev-2")
        await history.add_ai_revision("d", "rev-3")
        await history.add_ai_revision("e", "rev-9")  # another document
        assert await history.unreviewed_after("d", base) == ["rev-1", "rev-2", "rev-3"]
        assert await history.unreviewed_after("d", one) == ["rev-2", "rev-3"]  # rev-1 is that snapshot itself
        await history.mark_reviewed("d", "rev-2")
        assert await history.unreviewed_after("d", one) == ["rev-3"]
        assert await history.unreviewed_after("d", 999) == []
    finally:
        history.close()
