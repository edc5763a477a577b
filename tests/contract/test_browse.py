"""The picker's requests: ``ui.browse`` lists only inside the browsable area, bounded; ``ui.places``; recents."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from vmark.app.handlers import ui_browse
from vmark.app.server import RunningApp
from vmark.mcp.bridge_client import BridgeClient
from vmark.storage.settings import Settings
from vmark.testing.uiclient import UIClient, UIError

OUTSIDE = ui_browse.OUTSIDE


@dataclass(frozen=True)
class Tree:
    home: Path
    extra: Path
    outside: Path


@pytest.fixture
def tree(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Tree:
    """``$HOME`` and one readable root with known entries, and a folder outside both."""
    home, extra, outside = tmp_path / "home", tmp_path / "extra", tmp_path / "outside"
    for folder in (home / "notes" / "deep", home / ".config", extra / "shelf", outside / "secret"):
        folder.mkdir(parents=True)
    (home / "notes" / "a.md").write_bytes(b"# a\n")
    (home / "notes" / "B.md").write_bytes(b"# bee\n")
    (home / "notes" / "data.csv").write_bytes(b"x,y\n1,2\n")
    (home / "notes" / ".draft.md").write_bytes(b"hidden\n")
    (home / "todo.txt").write_bytes(b"todo\n")
    (outside / "secret" / "plans.md").write_bytes(b"# plans\n")
    (home / "notes" / "out").symlink_to(outside / "secret")
    (home / "notes" / "out.md").symlink_to(outside / "secret" / "plans.md")
    (home / "notes" / "shelf").symlink_to(extra / "shelf")
    (home / "notes" / "broken").symlink_to(home / "nowhere")
    monkeypatch.setenv("HOME", str(home))
    Settings(data_dir / "settings.json").set("readable_roots", [str(extra), "relative/ignored"])
    return Tree(home, extra, outside)


async def _refusal(person: UIClient, **payload: Any) -> Any:
    with pytest.raises(UIError) as info:
        await person.call("ui.browse", **payload)
    return info.value.error


def _outside(path: Path | str) -> dict[str, Any]:
    return {"error": "INVALID_PATH", "message": OUTSIDE.format(path=path), "filePath": str(path)}


def _entry(path: Path, kind: str, opens: str | None = None, link: bool = False) -> dict[str, Any]:
    st = path.stat()
    size = st.st_size if kind == "file" else None
    return {"name": path.name, "kind": kind, "link": link, "size": size, "modified": st.st_mtime, "opens": opens}


async def test_a_folder_is_listed_folders_first_hidden_names_left_out(person: UIClient, tree: Tree) -> None:
    notes = tree.home / "notes"
    listed = await person.call("ui.browse", path=str(notes))
    outside_link = {"name": "out", "kind": "outside", "link": True, "size": None, "modified": None, "opens": None}
    broken = {"name": "broken", "kind": "other", "link": True, "size": None, "modified": None, "opens": None}
    assert listed == {
        "path": str(notes),
        "parent": str(tree.home),
        "selected": None,
        "entries": [
            _entry(notes / "deep", "folder"),
            _entry(notes / "shelf", "folder", link=True),
            _entry(notes / "a.md", "file", "markdown"),
            _entry(notes / "B.md", "file", "markdown"),
            broken,
            _entry(notes / "data.csv", "file"),
            outside_link,
            # a link to a file outside: listed as outside, never followed (not even its size)
            {**outside_link, "name": "out.md"},
        ],
        "more": 0,
        "writable": True,
    }
    with_hidden = await person.call("ui.browse", path=str(notes), hidden=True)
    assert [e["name"] for e in with_hidden["entries"]][:3] == ["deep", "shelf", ".draft.md"]


async def test_home_is_the_default_and_tilde_is_home(person: UIClient, tree: Tree) -> None:
    home = await person.call("ui.browse")
    assert (home["path"], home["parent"]) == (str(tree.home), None)  # the folder above is not the picker's
    assert [e["name"] for e in home["entries"]] == ["notes", "todo.txt"]
    assert home["entries"][1]["opens"] == "markdown"  # .txt opens as Markdown
    assert await person.call("ui.browse", path="~") == home
    assert (await person.call("ui.browse", path="~/notes/deep"))["path"] == str(tree.home / "notes" / "deep")


async def test_a_file_lists_its_folder_with_the_file_selected(person: UIClient, tree: Tree) -> None:
    listed = await person.call("ui.browse", path="~/notes/../notes/a.md")
    assert (listed["path"], listed["selected"]) == (str(tree.home / "notes"), "a.md")


async def test_the_filter_matches_names_in_any_case_before_the_bound(
    person: UIClient, tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = str(tree.home / "notes")
    found = await person.call("ui.browse", path=notes, filter="b")
    assert [e["name"] for e in found["entries"]] == ["B.md", "broken"]
    monkeypatch.setattr(ui_browse, "BROWSE_MAX_ENTRIES", 3)
    bounded = await person.call("ui.browse", path=notes)
    assert [e["name"] for e in bounded["entries"]] == ["deep", "shelf", "a.md"]
    assert bounded["more"] == 5
    filtered = await person.call("ui.browse", path=notes, filter="OUT")
    assert ([e["name"] for e in filtered["entries"]], filtered["more"]) == (["out", "out.md"], 0)


async def test_readable_roots_and_the_windows_workspaces_are_listed(
    person: UIClient, tree: Tree, vmark: RunningApp
) -> None:
    shelf = await person.call("ui.browse", path=str(tree.extra / "shelf"))
    assert (shelf["path"], shelf["parent"], shelf["entries"]) == (str(tree.extra / "shelf"), str(tree.extra), [])
    # Through the link inside home: the listing is of the canonical folder.
    through = await person.call("ui.browse", path=str(tree.home / "notes" / "shelf"))
    assert through["path"] == str(tree.extra / "shelf")
    # A folder the window holds as a workspace is listed (the person opened it: today's rule, no approval) ...
    await person.call("ui.open_folder", path=str(tree.outside))
    inside = await person.call("ui.browse", path=str(tree.outside / "secret"))
    assert [e["name"] for e in inside["entries"]] == ["plans.md"] and inside["parent"] == str(tree.outside)
    # ... by that window only.
    async with UIClient(vmark.data_dir) as other:
        await other.attach()
        refused = await _refusal(other, path=str(tree.outside))
    assert refused == _outside(tree.outside)


async def test_refusals(person: UIClient, tree: Tree) -> None:
    notes = tree.home / "notes"
    escape = f"{notes}/../../outside"
    gone = f"{notes}/gone"
    cases: list[tuple[dict[str, Any], dict[str, Any] | str]] = [
        ({"path": str(tree.outside)}, _outside(tree.outside)),
        ({"path": escape}, _outside(escape)),
        ({"path": str(notes / "out")}, _outside(notes / "out")),
        ({"path": str(notes / "out.md")}, _outside(notes / "out.md")),
        ({"path": "/"}, _outside("/")),
        ({"path": gone}, {"message": f"There is no folder or file {gone}", "filePath": gone}),
        ({"path": "notes"}, {"message": "path must be absolute: 'notes'", "filePath": "notes"}),
        ({"path": "~bob/notes"}, {"message": "path must be absolute: '~bob/notes'", "filePath": "~bob/notes"}),
        ({"path": ""}, {"message": "path must be a non-empty string", "filePath": ""}),
        ({"path": "/a\x00b"}, {"message": "path contains a NUL byte", "filePath": "/a\x00b"}),
        ({"path": 7}, "argument 'path' must be a string"),
        ({"hidden": "yes"}, "argument 'hidden' must be a boolean"),
        ({"filter": ["a"]}, "argument 'filter' must be a string"),
    ]
    for payload, expected in cases:
        refused = await _refusal(person, **payload)
        if isinstance(expected, dict):
            expected = {"error": "INVALID_PATH", **expected}  # every refusal of a path is INVALID_PATH
        assert refused == expected, payload


async def test_an_agent_cannot_list(vmark: RunningApp, tree: Tree) -> None:
    agent = BridgeClient(vmark.data_dir, autostart=False)
    await agent.connect()
    try:
        answer = await agent.request("ui.browse", {"path": str(tree.home)})
    finally:
        await agent.close()
    assert (answer["success"], answer["error"]) == (False, "'ui.browse' is a person's action; agents cannot send it")


# --- places and recents ------------------------------------------------------------------------------------
async def test_places_and_recents(person: UIClient, tree: Tree, workspace: Path, vmark: RunningApp) -> None:
    empty = await person.call("ui.places")
    assert empty == {
        "home": str(tree.home),
        "places": [{"path": str(tree.home), "kind": "home"}, {"path": str(tree.extra), "kind": "readable"}],
        "recentFolders": [],
        "recentFiles": [],
    }
    await person.call("ui.open_folder", path=str(workspace))
    await person.call("ui.open", path=str(tree.home / "notes" / "a.md"))
    await person.call("ui.open", path=str(workspace / "b.md"))
    await person.call("ui.open", path=str(tree.home / "notes" / "a.md"))  # again: first again, not twice
    places = await person.call("ui.places")
    assert places["places"][-1] == {"path": str(workspace), "kind": "workspace"}
    assert [(f["path"], f["gone"]) for f in places["recentFolders"]] == [(str(workspace), False)]
    files = [(f["path"], f["gone"]) for f in places["recentFiles"]]
    assert files == [(str(tree.home / "notes" / "a.md"), False), (str(workspace / "b.md"), False)]
    assert places["recentFiles"][0]["openedAt"] >= places["recentFiles"][1]["openedAt"]
    (workspace / "b.md").unlink()
    after = await person.call("ui.places")
    assert [(f["path"], f["gone"]) for f in after["recentFiles"]][1] == (str(workspace / "b.md"), True)
    assert await person.call("ui.recent_forget", path=str(workspace / "b.md")) == {"forgotten": True}
    assert await person.call("ui.recent_forget", path=str(workspace / "b.md")) == {"forgotten": False}
    assert [f["path"] for f in (await person.call("ui.places"))["recentFiles"]] == [str(tree.home / "notes" / "a.md")]


async def test_a_file_the_person_opens_in_another_workspace_instance_shows(
    person: UIClient, tree: Tree, vmark: RunningApp
) -> None:
    notes, extra = tree.home / "notes", tree.extra
    (extra / "e.md").write_bytes(b"# e\n")
    await person.call("ui.open_folder", path=str(notes))
    await person.call("ui.open_folder", path=str(extra))  # the window shows this one
    tab = (await person.call("ui.open", path=str(notes / "a.md")))["tabId"]
    main = vmark.app.session.windows["main"]
    shown = next(w for w in main.workspaces if w.id == main.active_workspace)
    assert (main.active_tab, shown.root) == (tab, str(notes))
    state = await person.call("ui.state")
    (info,) = [t for t in state["windows"][0]["tabs"] if t["id"] == tab]
    assert (info["active"], info["visible"]) == (True, True)
