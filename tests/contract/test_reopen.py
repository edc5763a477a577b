"""The main window's last workspace: recorded when it opens one, reopened by an app started with ``reopen_last``
(``vmark app`` without a folder; its process is tested in ``tests/e2e/test_app_process.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import make_client, ok
from tests.contract.helpers import wait_until
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient


def _roots(running: RunningApp, label: str = "main") -> list[str]:
    return [w.root for w in running.app.session.windows[label].workspaces]


def _active_root(running: RunningApp) -> str | None:
    main = running.app.session.windows["main"]
    return next((w.root for w in main.workspaces if w.id == main.active_workspace), None)


async def _restart(data_dir: Path, reopen_last: bool = True) -> RunningApp:
    running = RunningApp(data_dir, test_hooks=True, reopen_last=reopen_last)
    await running.start()
    return running


async def test_the_main_windows_folders_are_reopened_the_shown_one_shown(data_dir: Path, tmp_path: Path) -> None:
    one, two, three, other = (tmp_path / n for n in ("one", "two", "three", "other"))
    for folder in (one, two, three, other):
        folder.mkdir()
    first = RunningApp(data_dir, test_hooks=True)
    await first.start()
    try:
        async with UIClient(data_dir) as person, UIClient(data_dir) as second:
            await person.attach("main")
            for folder in (one, two, three):
                await person.call("ui.open_folder", path=str(folder))
            await person.call("ui.open_folder", path=str(two))  # shown again: the one it shows
            await second.attach()
            await second.call("ui.open_folder", path=str(other))  # another window's: not the main window's
    finally:
        await first.stop()
    saved = json.loads((data_dir / "recents.json").read_text())
    assert saved["lastWorkspace"] == {"roots": [str(one), str(two), str(three)], "active": str(two)}
    assert [f["path"] for f in saved["folders"]] == [str(other), str(two), str(three), str(one)]

    three.rmdir()  # gone since: left out
    again = await _restart(data_dir)
    try:
        assert again.opened == [str(one), str(two)]
        assert _roots(again) == [str(one), str(two)] and _active_root(again) == str(two)
        assert len(again.app.session.windows) == 1
    finally:
        await again.stop()

    plain = await _restart(data_dir, reopen_last=False)  # what the MCP autostart and the tests' apps do
    try:
        assert plain.opened == [] and _roots(plain) == []
    finally:
        await plain.stop()


async def test_a_folder_swapped_for_a_link_is_not_reopened(data_dir: Path, tmp_path: Path) -> None:
    kept, swapped, elsewhere = tmp_path / "kept", tmp_path / "swapped", tmp_path / "elsewhere"
    for folder in (kept, swapped, elsewhere):
        folder.mkdir()
    first = RunningApp(data_dir, test_hooks=True)
    await first.start()
    try:
        async with UIClient(data_dir) as person:
            await person.attach("main")
            await person.call("ui.open_folder", path=str(swapped))
            await person.call("ui.open_folder", path=str(kept))
    finally:
        await first.stop()
    swapped.rmdir()
    swapped.symlink_to(elsewhere)
    again = await _restart(data_dir)
    try:
        assert _roots(again) == [str(kept)]
    finally:
        await again.stop()


async def test_an_agents_approved_workspace_is_recorded_too(
    vmark: RunningApp, person: UIClient, workspace: Path
) -> None:
    async with make_client(vmark.data_dir) as agent:
        await ok(agent, "workspace", "open_workspace", folderPath=str(workspace))
        (approval,) = (await person.call("approvals.list"))["approvals"]
        await person.call("approvals.answer", id=approval["id"], allow=True)
        await ok(agent, "workspace", "open_workspace", folderPath=str(workspace))
    recents = vmark.app.recents
    await wait_until(lambda: (vmark.data_dir / "recents.json").exists(), "recents.json")
    last = recents.last_workspace()
    assert last is not None and last.roots == (str(workspace),)
