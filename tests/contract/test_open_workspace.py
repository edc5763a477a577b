"""``workspace.open_workspace``: consent per connection, lapse, denial, folder access, BUSY, bad paths."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import fail_code, make_client, ok
from tests.contract.helpers import get_state, open_tab, wait_event, window_of
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient


def _folder(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "inside.md").write_text(f"# {name}\n", "utf-8")
    return folder


async def _open(client: Client, folder: Path | str) -> dict[str, Any]:
    return await ok(client, "workspace", "open_workspace", folderPath=str(folder))


async def _asks(client: Client, folder: Path | str, canonical: Path) -> None:
    result = await _open(client, folder)
    assert result["needsApproval"] is True, result
    assert result.get("folderPath", str(canonical)) == str(canonical)
    assert "workspaceInstanceId" not in result


async def _refused(client: Client, folder: Path, code: str) -> dict[str, Any]:
    envelope = await fail_code(client, "workspace", "open_workspace", folderPath=str(folder))
    assert envelope["error"] == code, envelope
    return envelope


async def _opens(client: Client, folder: Path) -> str:
    result = await _open(client, folder)
    assert "needsApproval" not in result, result
    wsi = str(result["workspaceInstanceId"])
    assert window_of(await get_state(client), "main")["activeWorkspaceInstanceId"] == wsi
    return wsi


async def _pending(person: UIClient, kind: str = "open_workspace") -> list[dict[str, Any]]:
    return [a for a in await person.approvals() if a["kind"] == kind and a["state"] == "pending"]


async def _no_workspace(client: Client) -> None:
    assert window_of(await get_state(client), "main")["activeWorkspaceInstanceId"] is None


# --- the consent -----------------------------------------------------------------------------------------
@pytest.mark.legacy_protocol
async def test_first_call_asks_the_person_naming_the_canonical_folder(
    mcp: Client, person: UIClient, tmp_path: Path
) -> None:
    real = _folder(tmp_path, "project")
    link = tmp_path / "link"
    link.symlink_to(real)
    await _asks(mcp, link, real)
    [approval] = await person.approvals()
    assert set(approval) >= {"id", "kind", "requester", "subject", "created", "expires"}
    assert (approval["kind"], approval["subject"], approval["state"]) == ("open_workspace", str(real), "pending")
    lifetime = datetime.fromisoformat(approval["expires"]) - datetime.fromisoformat(approval["created"])
    assert lifetime.total_seconds() == 300
    prompt = await wait_event(person, "prompt")
    assert (prompt["subject"], prompt["kind"]) == (str(real), "open_workspace")
    # Asking again while the person has not answered: the same prompt, still waiting.
    await _asks(mcp, link, real)
    await _asks(mcp, real, real)
    assert [a["id"] for a in await person.approvals()] == [approval["id"]]
    await _no_workspace(mcp)


async def test_an_approved_retry_opens_the_folder_once(mcp: Client, person: UIClient, tmp_path: Path) -> None:
    folder = _folder(tmp_path, "project")
    await _asks(mcp, folder, folder)
    [approval] = await _pending(person)
    await person.answer(approval["id"], True)
    wsi = await _opens(mcp, folder)
    assert await person.approvals() == []  # used up
    tab = await open_tab(mcp, folder / "inside.md")  # the folder is the agent's scope now
    assert (await ok(mcp, "document", "read", tabId=tab))["content"] == "# project\n"
    # Single use: opening it again asks again.
    await _asks(mcp, folder, folder)
    [again] = await _pending(person)
    assert again["id"] != approval["id"]
    assert window_of(await get_state(mcp), "main")["activeWorkspaceInstanceId"] == wsi


async def test_the_approval_belongs_to_the_requesting_connection(
    mcp: Client, person: UIClient, vmark: RunningApp, tmp_path: Path
) -> None:
    folder = _folder(tmp_path, "project")
    await _asks(mcp, folder, folder)
    async with make_client(vmark.data_dir) as other:
        await _asks(other, folder, folder)  # another assistant gets its own prompt
        mine, theirs = await _pending(person)
        assert mine["id"] != theirs["id"] and mine["subject"] == theirs["subject"] == str(folder)
        await person.answer(mine["id"], True)
        await _asks(other, folder, folder)  # the first connection's approval is not the other's
        await _opens(mcp, folder)
        await person.answer(theirs["id"], True)
    # The other client reconnects: a new connection must be approved again.
    async with make_client(vmark.data_dir) as reconnected:
        await _asks(reconnected, folder, folder)
        [fresh] = await _pending(person)
        assert fresh["id"] not in (mine["id"], theirs["id"])


async def test_a_denial_keeps_failing_until_allowed(mcp: Client, person: UIClient, tmp_path: Path) -> None:
    folder = _folder(tmp_path, "project")
    await _asks(mcp, folder, folder)
    [approval] = await _pending(person)
    await person.answer(approval["id"], False)
    for _ in range(2):
        envelope = await _refused(mcp, folder, "APPROVAL_REQUIRED")
        assert envelope.get("folderPath", str(folder)) == str(folder)
    await _no_workspace(mcp)
    await person.answer(approval["id"], True)
    await _opens(mcp, folder)


class FakeClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def test_approvals_lapse_after_five_minutes(
    mcp: Client, person: UIClient, vmark: RunningApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock(1_000_000.0)
    monkeypatch.setattr(vmark.app.approvals, "_clock", clock)
    folder = _folder(tmp_path, "project")
    await _asks(mcp, folder, folder)
    clock.now += 301  # never answered
    assert await person.approvals() == []
    await _asks(mcp, folder, folder)  # a fresh prompt
    [fresh] = await _pending(person)
    await person.answer(fresh["id"], True)
    clock.now += 301  # allowed, but not used in time
    await _asks(mcp, folder, folder)
    await _no_workspace(mcp)
    [late] = await _pending(person)
    await person.answer(late["id"], True)
    clock.now += 299  # allowed and used within five minutes
    await _opens(mcp, folder)


# --- folder access outside the always-readable locations -------------------------------------------------
@pytest.fixture
def no_readable_roots(vmark: RunningApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the home folder is always readable, and the test folders are not under it."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    vmark.app.settings.set("readable_roots", [])


async def _confirm(client: Client, person: UIClient, folder: Path) -> None:
    await _asks(client, folder, folder)
    [approval] = [a for a in await _pending(person) if a["subject"] == str(folder)]
    await person.answer(approval["id"], True)


async def test_a_folder_outside_readable_roots_needs_the_folder_picker(
    mcp: Client, person: UIClient, tmp_path: Path, no_readable_roots: None
) -> None:
    folder = _folder(tmp_path, "far")
    await _confirm(mcp, person, folder)
    await _refused(mcp, folder, "APPROVAL_REQUIRED")
    [picker] = await _pending(person, "folder_access")
    assert picker["subject"] == str(folder)
    event = await wait_event(person, "folder_picker")
    assert (event["id"], event["kind"], event["subject"]) == (picker["id"], "folder_access", str(folder))
    await _refused(mcp, folder, "APPROVAL_REQUIRED")  # still waiting for the person: no second dialog
    assert [p["id"] for p in await _pending(person, "folder_access")] == [picker["id"]]
    await person.call("ui.state")  # events sent before this answer have arrived
    assert len(person.events_named("folder_picker")) == 1
    await _no_workspace(mcp)
    await person.answer(picker["id"], True)
    await _opens(mcp, folder)


async def test_busy_while_another_folder_dialog_is_open(
    mcp: Client, person: UIClient, tmp_path: Path, no_readable_roots: None
) -> None:
    first, second = _folder(tmp_path, "far-1"), _folder(tmp_path, "far-2")
    await _confirm(mcp, person, first)
    await _refused(mcp, first, "APPROVAL_REQUIRED")  # the folder dialog for the first is open
    await _confirm(mcp, person, second)
    for _ in range(2):
        await _refused(mcp, second, "BUSY")
    assert [p["subject"] for p in await _pending(person, "folder_access")] == [str(first)]
    [dialog] = await _pending(person, "folder_access")
    await person.answer(dialog["id"], False)
    # The confirmation for the second folder was kept: its own folder dialog now, no new consent.
    await _refused(mcp, second, "APPROVAL_REQUIRED")
    assert await _pending(person) == []
    [picker] = await _pending(person, "folder_access")
    assert picker["subject"] == str(second)
    await person.answer(picker["id"], True)
    await _opens(mcp, second)


# --- bad paths -----------------------------------------------------------------------------------------------
async def test_not_a_folder_or_missing_is_invalid_path(mcp: Client, person: UIClient, tmp_path: Path) -> None:
    folder = _folder(tmp_path, "project")
    for path in (folder / "inside.md", tmp_path / "missing", "relative/folder", ""):
        envelope = await fail_code(mcp, "workspace", "open_workspace", folderPath=str(path))
        assert envelope["error"] == "INVALID_PATH", path
    assert await person.approvals() == []
    await _no_workspace(mcp)
