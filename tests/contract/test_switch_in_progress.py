"""open_workspace answers BUSY while a workspace switch is in progress in the window."""

import asyncio
from pathlib import Path

import anyio
from mcp import Client

from tests.conftest import fail_code, ok
from vmark.testing.uiclient import UIClient


async def _approve_all(person: UIClient) -> None:
    for approval in await person.approvals():
        if approval["state"] == "pending":
            await person.answer(approval["id"], True)


async def test_busy_while_switch_in_progress(mcp: Client, person: UIClient, tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    await person.focus()
    assert (await ok(mcp, "workspace", "open_workspace", folderPath=str(first))) == {
        "needsApproval": True,
        "folderPath": str(first),
    }
    await ok(mcp, "workspace", "open_workspace", folderPath=str(second))
    await _approve_all(person)
    person.switch_gate = loading = asyncio.Event()  # the page is loading the first folder's tree until set
    results: dict[str, object] = {}

    async def open_first() -> None:
        results["first"] = await ok(mcp, "workspace", "open_workspace", folderPath=str(first))

    async with anyio.create_task_group() as tg:
        tg.start_soon(open_first)
        await person.switching.wait()  # the first switch is in progress
        busy = await fail_code(mcp, "workspace", "open_workspace", folderPath=str(second))
        loading.set()
    assert busy["error"] == "BUSY"
    assert results["first"]["opened"] is True  # type: ignore[index]
    # The confirmation was kept: once the switch is over, the retry opens the second folder.
    person.switch_gate = None
    opened = await ok(mcp, "workspace", "open_workspace", folderPath=str(second))
    assert opened["opened"] is True and opened["folderPath"] == str(second)
    state = await ok(mcp, "session", "get_state")
    main = next(w for w in state["windows"] if w["label"] == "main")
    assert main["activeWorkspaceInstanceId"] == opened["workspaceInstanceId"]
