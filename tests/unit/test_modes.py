"""The files' remembered editor modes (``storage.modes``) and the mode a new tab opens in (``app.modes``)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from vmark.app.modes import EditorModes
from vmark.core.model import Document
from vmark.storage.modes import ModeMemory
from vmark.storage.settings import Settings


def test_the_memory_keeps_the_latest_toggles_in_order_and_survives_a_new_reader(tmp_path: Path) -> None:
    path = tmp_path / "modes.json"
    memory = ModeMemory(path, limit=3)
    assert memory.get("/w/a.md") is None
    assert not path.exists()  # nothing is written before something is remembered
    for name, mode in [("a", "source"), ("b", "wysiwyg"), ("c", "source"), ("a", "wysiwyg"), ("d", "source")]:
        memory.remember(f"/w/{name}.md", mode)  # type: ignore[arg-type]
    # b went first (the least recently toggled); a moved to the end when toggled again.
    expected = {"files": [["/w/c.md", "source"], ["/w/a.md", "wysiwyg"], ["/w/d.md", "source"]]}
    assert json.loads(path.read_text("utf-8")) == expected
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    again = ModeMemory(path, limit=3)
    assert [again.get(f"/w/{n}.md") for n in "abcd"] == ["wysiwyg", None, "source", "source"]
    again.move("/w/c.md", "/w/sub/c2.md")
    again.move("/w/none.md", "/w/x.md")  # nothing remembered: nothing written
    assert json.loads(path.read_text("utf-8"))["files"] == [
        ["/w/a.md", "wysiwyg"],
        ["/w/d.md", "source"],
        ["/w/sub/c2.md", "source"],
    ]


@pytest.mark.parametrize(
    "content",
    ["not json", "[]", '{"files": 3}', '{"files": [["/w/a.md", "rich"], ["/w/b.md"], [1, "source"], "x"]}'],
)
def test_a_damaged_memory_file_is_read_as_nothing_remembered(tmp_path: Path, content: str) -> None:
    path = tmp_path / "modes.json"
    path.write_text(content, "utf-8")
    memory = ModeMemory(path)
    assert memory.get("/w/a.md") is None
    memory.remember("/w/c.md", "source")
    assert json.loads(path.read_text("utf-8")) == {"files": [["/w/c.md", "source"]]}


def test_a_new_tab_opens_in_the_remembered_mode_else_the_setting(tmp_path: Path) -> None:
    settings = Settings(tmp_path / "settings.json")
    modes = EditorModes(settings, ModeMemory(tmp_path / "modes.json"))

    def doc(path: str | None, kind: str = "markdown") -> Document:
        return Document.load(path or "untitled:1", kind, path, "", None)  # type: ignore[arg-type]

    assert modes.initial(doc("/w/a.md")) == "wysiwyg"  # the default, as in Typora
    assert modes.initial(doc(None)) == "wysiwyg"
    assert modes.initial(doc("/w/.github/workflows/ci.yml", "yaml-workflow")) == "source"
    settings.set("editor.default_mode", "source")
    assert modes.initial(doc("/w/a.md")) == "source"
    modes.memory.remember("/w/a.md", "wysiwyg")
    assert modes.initial(doc("/w/a.md")) == "wysiwyg"
    assert modes.initial(doc("/w/b.md")) == "source"
    with pytest.raises(ValueError) as refused:
        settings.set("editor.default_mode", "rich")
    assert str(refused.value) == "setting 'editor.default_mode' must be 'wysiwyg' or 'source', not 'rich'"
