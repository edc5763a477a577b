"""The .vmark folder: made only by init, idempotently, with the git files the ledger relies on."""

from __future__ import annotations

from pathlib import Path

from vmark.coherence.layout import VMARK_DIR, init_layout, is_initialized
from vmark.storage.atomic import write_atomic


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) + ("/" if p.is_dir() else "") for p in root.rglob("*"))


def test_init_creates_the_layout(tmp_path: Path) -> None:
    assert not is_initialized(tmp_path)
    assert init_layout(tmp_path) == tmp_path / ".vmark"
    assert VMARK_DIR == ".vmark"
    assert is_initialized(tmp_path)
    assert _tree(tmp_path) == [
        ".vmark/",
        ".vmark/.gitattributes",
        ".vmark/.gitignore",
        ".vmark/contexts/",
        ".vmark/ledger/",
        ".vmark/ledger/quarantine/",
        ".vmark/snapshots/",
        ".vmark/snapshots/sha256/",
    ]
    assert (tmp_path / ".vmark/.gitignore").read_text() == (
        "index.db\nindex.db-wal\nindex.db-shm\nindex.db-journal\n.*.tmp\n.*.vmark-tmp\n"
    )
    assert (tmp_path / ".vmark/.gitattributes").read_text() == (
        "ledger/*.jsonl merge=union\nledger/quarantine/* merge=union\n"
    )


def test_init_is_idempotent_and_keeps_what_is_there(tmp_path: Path) -> None:
    root = init_layout(tmp_path)
    (root / ".gitignore").write_text("index.db*\nmine\n")
    (root / "ledger" / "w.jsonl").write_text("kept\n")
    before = _tree(tmp_path)
    assert init_layout(tmp_path) == root
    assert _tree(tmp_path) == before
    assert (root / ".gitignore").read_text() == "index.db*\nmine\n"
    assert (root / "ledger" / "w.jsonl").read_text() == "kept\n"


def test_nothing_is_created_without_init(tmp_path: Path) -> None:
    assert not is_initialized(tmp_path)
    assert list(tmp_path.iterdir()) == []
    (tmp_path / ".vmark").mkdir()  # a folder without a ledger is not tracking
    assert not is_initialized(tmp_path)


def test_write_atomic_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "f"
    write_atomic(target, b"one")
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["f"]
