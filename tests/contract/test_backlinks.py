"""``ui.backlinks`` through the person protocol: the workspace's other Markdown files that link to a tab's file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vmark.protocol.limits import BACKLINKS_MAX_RESULTS
from vmark.testing.uiclient import UIClient, UIError


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = (tmp_path / "ws").resolve()
    (ws / "notes" / "deep").mkdir(parents=True)
    (ws / "other").mkdir()
    (ws / "b.md").write_text("# B\n[self](b.md)\n")
    (ws / "a.md").write_text("# A\n\nSee [b](b.md#intro).\n[[b|bee]]\n")
    (ws / "notes" / "c.md").write_text("intro\n  [up](../b.md)  \n")
    (ws / "notes" / "deep" / "d.md").write_text("[encoded](<../../b.md>) [x](../../b%2Emd)\n")
    (ws / "other" / "b.md").write_text("[[b]]\n")  # another b.md: its own name, nearest to itself
    (ws / "links.txt").write_text("[b](b.md)\n")  # text kind, opens as Markdown: counted
    (ws / "list.yml").write_text("- '[b](b.md)'\n")  # not Markdown: ignored
    (tmp_path / "outside.md").write_text("[b](ws/b.md)\n")  # outside the workspace: never read
    os.symlink(tmp_path / "outside.md", ws / "out.md")  # a symlink out of the scope: not read either
    return ws


async def test_backlinks_of_a_file_sorted_by_path_then_line(person: UIClient, root: Path) -> None:
    await person.call("ui.open_folder", path=str(root))
    tab = (await person.call("ui.open", path=str(root / "b.md")))["tabId"]
    answer = await person.call("ui.backlinks", tabId=tab)
    assert answer == {
        "filePath": str(root / "b.md"),
        "backlinks": [
            {"path": str(root / "a.md"), "line": 3, "text": "See [b](b.md#intro)."},
            {"path": str(root / "a.md"), "line": 4, "text": "[[b|bee]]", "wikilinks": ["b"]},
            {"path": str(root / "links.txt"), "line": 1, "text": "[b](b.md)"},
            {"path": str(root / "notes" / "c.md"), "line": 2, "text": "[up](../b.md)"},
            {
                "path": str(root / "notes" / "deep" / "d.md"),
                "line": 1,
                "text": "[encoded](<../../b.md>) [x](../../b%2Emd)",
            },
            {"path": str(root / "other" / "b.md"), "line": 1, "text": "[[b]]", "wikilinks": ["b"]},
        ],
        "truncated": False,
    }


async def test_unsaved_text_counts_and_the_limit_truncates(person: UIClient, root: Path) -> None:
    await person.call("ui.open_folder", path=str(root))
    c = (await person.call("ui.open", path=str(root / "notes" / "c.md")))["tabId"]
    b = (await person.call("ui.open", path=str(root / "b.md")))["tabId"]
    read = await person.call("ui.read", tabId=c)
    await person.call("ui.edit", tabId=c, baseRevision=read["revision"], changes=[[0, 0, "[b](../b.md)\n"]])
    lines = [(x["path"], x["line"]) for x in (await person.call("ui.backlinks", tabId=b))["backlinks"]]
    assert (str(root / "notes" / "c.md"), 1) in lines and (str(root / "notes" / "c.md"), 3) in lines
    (root / "many.md").write_text("[b](b.md)\n" * (BACKLINKS_MAX_RESULTS + 5))
    many = await person.call("ui.backlinks", tabId=b)
    assert many["truncated"] is True
    assert len(many["backlinks"]) == BACKLINKS_MAX_RESULTS


async def _refusal(person: UIClient, **args: object) -> object:
    with pytest.raises(UIError) as info:
        await person.call("ui.backlinks", **args)
    return info.value.error


async def test_an_untitled_tab_has_none_and_an_unknown_tab_is_refused(person: UIClient, root: Path) -> None:
    await person.call("ui.open_folder", path=str(root))
    untitled = (await person.call("ui.new"))["tabId"]
    assert await person.call("ui.backlinks", tabId=untitled) == {"filePath": None, "backlinks": [], "truncated": False}
    refused = await _refusal(person, tabId="nope")
    assert isinstance(refused, dict) and refused["error"] == "INVALID_TAB"
    assert await _refusal(person) == "argument 'tabId' must be a string"
