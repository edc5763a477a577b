"""The tree watcher, round by round (no timing): a root newly shown is told once; then only a change of what the
tree lists is told (a file's content changing, or a file the tree does not list, is not); only the windows
showing that root are told; a root no window shows any more is forgotten."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vmark.app.tree_watch import TreeWatcher


@dataclass
class _Wsi:
    root: str


@dataclass
class _Window:
    workspaces: list[_Wsi]


@dataclass
class _Session:
    windows: dict[str, _Window]
    pages: dict[str, list[object]]
    told: list[tuple[str, dict[str, Any], str | None]] = field(default_factory=list)

    async def notify(self, event: str, payload: dict[str, Any], window: str | None = None) -> None:
        self.told.append((event, payload, window))


async def test_rounds(tmp_path: Path) -> None:
    root, other = tmp_path / "ws", tmp_path / "other"
    (root / "notes").mkdir(parents=True)
    other.mkdir()
    (root / "a.md").write_text("a\n", "utf-8")
    session = _Session(
        windows={
            "main": _Window([_Wsi(str(root))]),
            "two": _Window([_Wsi(str(other))]),
            "idle": _Window([_Wsi(str(root))]),
        },
        pages={"main": [object()], "two": [object()]},  # no page shows "idle"
    )
    watcher = TreeWatcher(session, session)  # type: ignore[arg-type]  # it tells the pages and reads the windows

    await watcher.check()  # both roots newly shown: each told once, to its window
    assert sorted(session.told, key=str) == sorted(
        [("files_changed", {"root": str(root)}, "main"), ("files_changed", {"root": str(other)}, "two")], key=str
    )
    session.told.clear()

    await watcher.check()  # nothing changed
    (root / "a.md").write_text("a changed\n", "utf-8")  # content only
    (root / "notes" / "picture.bin").write_bytes(b"\0")  # a file the tree does not list
    (root / "node_modules").mkdir()  # a folder the tree does not walk
    await watcher.check()
    assert session.told == []

    (root / "notes" / "b.md").write_text("b\n", "utf-8")
    await watcher.check()
    assert session.told == [("files_changed", {"root": str(root)}, "main")]
    session.told.clear()

    (root / "notes" / "b.md").rename(root / "c.md")  # out of a subfolder, into the root
    await watcher.check()
    assert session.told == [("files_changed", {"root": str(root)}, "main")]
    session.told.clear()

    del session.pages["two"]  # no page shows "other" any more: forgotten, and shown again later it is told again
    await watcher.check()
    session.pages["two"] = [object()]
    await watcher.check()
    assert session.told == [("files_changed", {"root": str(other)}, "two")]
