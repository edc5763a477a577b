"""``recents.json``: recent folders and files, most recent first, bounded; the main window's last workspace."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from vmark.storage import recents as recents_module
from vmark.storage.recents import LastWorkspace, Recents


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "recents.json"


def test_most_recent_first_once_each_and_bounded(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(recents_module._KEYS, "file", ("files", 3))
    recents = Recents(path)
    for name in ("a", "b", "c", "a", "d"):
        (tmp_path / f"{name}.md").write_text(name)
        recents.opened("file", str(tmp_path / f"{name}.md"))
    assert [e["path"] for e in recents.listing("file")] == [str(tmp_path / f"{n}.md") for n in ("d", "a", "c")]
    assert recents.listing("folder") == []


def test_changes_are_written_on_save_and_read_back(path: Path, tmp_path: Path) -> None:
    told: list[int] = []
    recents = Recents(path)
    recents.on_change = lambda: told.append(1)
    recents.opened("folder", str(tmp_path))
    recents.main_workspaces([str(tmp_path), "/elsewhere"], str(tmp_path))
    assert told == [1, 1] and not path.exists()  # in memory until saved
    recents.save()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = json.loads(path.read_text())
    assert data["version"] == 1 and [e["path"] for e in data["folders"]] == [str(tmp_path)]
    again = Recents(path)
    assert [(e["path"], e["gone"]) for e in again.listing("folder")] == [(str(tmp_path), False)]
    assert again.last_workspace() == LastWorkspace((str(tmp_path), "/elsewhere"), str(tmp_path))


def test_a_save_writes_the_latest_lists_and_one_with_nothing_new_writes_nothing(path: Path, tmp_path: Path) -> None:
    recents = Recents(path)
    recents.opened("folder", "/one")
    recents.save()
    recents.opened("folder", "/two")
    recents.save()
    mtime = path.stat().st_mtime_ns
    recents.save()  # nothing new: not written again
    assert path.stat().st_mtime_ns == mtime
    assert [e["path"] for e in json.loads(path.read_text())["folders"]] == ["/two", "/one"]


def test_gone_entries_are_kept_and_said_gone_until_forgotten(path: Path, tmp_path: Path) -> None:
    recents = Recents(path)
    kept, gone = tmp_path / "kept", tmp_path / "gone"
    kept.mkdir()
    recents.opened("folder", str(gone))
    recents.opened("folder", str(kept))
    recents.opened("file", str(kept))  # a folder is not a file
    assert [(e["path"], e["gone"]) for e in recents.listing("folder")] == [(str(kept), False), (str(gone), True)]
    assert [e["gone"] for e in recents.listing("file")] == [True]
    assert recents.forget(str(gone)) is True
    assert recents.forget(str(gone)) is False
    assert recents.forget(str(kept)) is True  # off both lists
    assert recents.listing("folder") == recents.listing("file") == []


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[1, 2]",
        '{"folders": "x", "files": [{"path": "relative", "at": 1}, {"path": "/ok"}],'
        ' "lastWorkspace": {"roots": ["x"]}}',
    ],
)
def test_a_damaged_file_starts_empty(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True)
    path.write_text(text)
    recents = Recents(path)
    assert recents.listing("folder") == recents.listing("file") == []
    assert recents.last_workspace() is None


def test_well_formed_entries_of_a_partly_damaged_file_are_kept(path: Path) -> None:
    path.parent.mkdir(parents=True)
    entries = [{"path": "/a", "at": 5}, {"path": 3, "at": 1}, {"path": "/b", "at": "x"}, {"path": "/c", "at": 2.5}]
    path.write_text(json.dumps({"files": entries, "lastWorkspace": {"roots": ["/a"], "active": 4}}))
    recents = Recents(path)
    assert [(e["path"], e["openedAt"]) for e in recents.listing("file")] == [("/a", 5.0), ("/c", 2.5)]
    assert recents.last_workspace() == LastWorkspace(("/a",), None)
