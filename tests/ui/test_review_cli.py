"""``vmark review``: the person's review of agent changes from the command line, against a running app."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import make_client, ok
from tests.contract.helpers import person_open
from tests.ui.test_protocol import vmark_cli
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient

PLAN = "# Plan\n\nThe first part is short.\n\nThe second part is long.\n\nThe third part is done.\n"
THREE = PLAN.replace("short", "brief").replace("long", "lengthy").replace("done", "finished")


async def _three_changes(vmark: RunningApp, tab: str) -> None:
    token = vmark.app.principals.add("alice")
    async with make_client(vmark.data_dir, client_token=token) as agent:
        for old, new in (("short", "brief"), ("long", "lengthy"), ("done", "finished")):
            await ok(agent, "document", "edit", tabId=tab, edits=[{"old": old, "new": new}])


async def _changes(person: UIClient, tab: str) -> list[dict[str, Any]]:
    return list((await person.call("review.list", tabId=tab))["changes"])


async def test_list_accept_and_reject_agree_with_the_page(vmark: RunningApp, person: UIClient, workspace: Path) -> None:
    path = workspace / "plan.md"
    path.write_text(PLAN, "utf-8")
    tab = await person_open(person, path)
    await _three_changes(vmark, tab)
    first, second, third = await _changes(person, tab)

    code, out, err = await vmark_cli(vmark.data_dir, "review", "list", str(path))
    assert (code, err) == (0, "")
    assert out == "".join(
        f'{c["id"]}\t{c["from"]}-{c["to"]}\talice (document.edit)\t"{old}" -> "{new}"\n'
        for c, old, new in ((first, "short", "brief"), (second, "long", "lengthy"), (third, "done", "finished"))
    )
    code, out, err = await vmark_cli(vmark.data_dir, "review", "list", str(path), "--json")
    assert (code, err) == (0, "")
    listed = json.loads(out)
    assert (listed["tabId"], listed["filePath"], listed["dirty"], listed["revision"]) == (
        tab,
        str(path),
        False,
        (await person.call("review.list", tabId=tab))["revision"],
    )
    assert [{k: v for k, v in c.items() if k != "new"} for c in listed["changes"]] == [first, second, third]
    assert [c["new"] for c in listed["changes"]] == ["brief", "lengthy", "finished"]

    code, out, err = await vmark_cli(vmark.data_dir, "review", "reject", str(path), second["id"])
    assert (code, err) == (0, "")
    assert out == f"rejected 1; saved {path}; 2 AI revisions unreviewed\n"
    assert path.read_bytes() == THREE.replace("lengthy", "long").encode()  # saved: the text had no unsaved edits
    assert [c["id"] for c in await _changes(person, tab)] == [first["id"], third["id"]]

    code, out, err = await vmark_cli(vmark.data_dir, "review", "accept", str(path), first["id"], "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "accepted": 1,
        "revision": (await person.call("review.list", tabId=tab))["revision"],
        "unreviewed": 1,
    }
    code, out, err = await vmark_cli(vmark.data_dir, "review", "accept", str(path), "--all")
    assert (code, out, err) == (0, "accepted 1; 0 AI revisions unreviewed\n", "")
    assert await _changes(person, tab) == []


async def test_a_reject_leaves_the_persons_unsaved_text_unsaved(
    vmark: RunningApp, person: UIClient, workspace: Path
) -> None:
    path = workspace / "plan.md"
    path.write_text(PLAN, "utf-8")
    tab = await person_open(person, path)
    await _three_changes(vmark, tab)
    text = THREE + "\nMy own line.\n"
    await person.edit(tab, text)
    code, out, err = await vmark_cli(vmark.data_dir, "review", "reject", str(path), "--all")
    assert (code, out, err) == (0, f"rejected 3; {path} is not saved; 0 AI revisions unreviewed\n", "")
    assert path.read_bytes() == THREE.encode()
    assert vmark.app.session.find_tab(tab)[1].doc.state.text == PLAN + "\nMy own line.\n"


async def test_a_file_no_tab_shows_is_opened_with_its_review(
    vmark: RunningApp, person: UIClient, workspace: Path
) -> None:
    path = workspace / "plan.md"
    path.write_text(PLAN, "utf-8")
    tab = await person_open(person, path)
    await _three_changes(vmark, tab)
    await person.call("ui.close", tabId=tab)
    code, out, err = await vmark_cli(vmark.data_dir, "review", "reject", str(path), "--all", "--no-save")
    assert (code, err) == (0, "")
    assert out == f"rejected 3; {path} is not saved; 0 AI revisions unreviewed\n"
    assert path.read_bytes() == THREE.encode()
    [(_, shown)] = [(w, t) for w, t in vmark.app.session.tabs() if t.doc.path == str(path)]
    assert (shown.doc.state.text, shown.doc.dirty) == (PLAN, True)


async def test_refusals_exit_non_zero_and_change_nothing(vmark: RunningApp, person: UIClient, workspace: Path) -> None:
    path = workspace / "plan.md"
    path.write_text(PLAN, "utf-8")
    tab = await person_open(person, path)
    await _three_changes(vmark, tab)
    before = await _changes(person, tab)
    assert await vmark_cli(vmark.data_dir, "review", "reject", str(path), "rc-nope") == (
        1,
        "",
        "vmark: no pending change 'rc-nope' in this document\n",
    )
    assert await vmark_cli(vmark.data_dir, "review", "accept", str(path)) == (
        2,
        "",
        "vmark: give CHANGE_ID... or --all (not both)\n",
    )
    assert await vmark_cli(vmark.data_dir, "review", "accept", str(path), before[0]["id"], "--all") == (
        2,
        "",
        "vmark: give CHANGE_ID... or --all (not both)\n",
    )
    code, out, err = await vmark_cli(vmark.data_dir, "review", "list", str(workspace / "missing.md"))
    assert (code, out) == (1, "") and err.startswith("vmark: INVALID_PATH: "), err
    assert await _changes(person, tab) == before
    assert path.read_bytes() == THREE.encode()


async def test_without_a_running_app_it_says_so(tmp_path: Path) -> None:
    home = tmp_path / "no-app"
    home.mkdir()
    code, out, err = await vmark_cli(home, "review", "list", str(tmp_path / "plan.md"))
    assert (code, out) == (1, "") and err.startswith("vmark: ") and len(err.splitlines()) == 1, err
