"""The official ``mcp`` client launching the real ``vmark mcp`` over stdio, against a real ``vmark app``."""

from __future__ import annotations

import os
import signal

import mcp_types as types
import pytest
from mcp import Client

from tests.conftest import fail, fail_code, ok
from tests.e2e.conftest import StartApp
from tests.e2e.helpers import AppProcess, Home, app_pids, app_stopped, await_until, cli, stdio_client
from vmark import __version__
from vmark.mcp.discovery import read_bridge

MODES = pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["protocol-current", "protocol-legacy"])

#: (readOnly, destructive, idempotent, openWorld) per tool, as the reference and its rationale say.
ANNOTATIONS = {
    "session": (True, False, True, False),
    "workspace": (False, True, False, False),
    "document": (False, True, False, False),
    "workflow": (False, True, True, False),
    "selection": (False, True, False, False),
    "comments": (False, False, True, False),
    "browser": (False, True, False, True),
    "browser_read": (True, False, True, True),
    "coherence": (True, False, True, False),
    "coherence_resolve": (False, True, False, False),
}


@pytest.fixture
async def app(world: Home, start_app: StartApp) -> AppProcess:
    """``vmark app --headless WORKSPACE``, ready."""
    running = start_app(world.workspace)
    await running.aready()
    return running


def check_tools(client: Client, tools: list[types.Tool]) -> None:
    """Identity, instructions, the tools with the reference's annotations, flat action enums."""
    assert client.server_info is not None and client.server_info.name == "vmark"
    assert client.server_info.version == __version__
    assert client.instructions is not None and "session.get_state" in client.instructions
    assert [t.name for t in tools] == list(ANNOTATIONS)
    for tool in tools:
        a = tool.annotations
        assert a is not None
        hints = (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint)
        assert hints == ANNOTATIONS[tool.name], tool.name
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["required"] == ["action"]
        assert schema["properties"]["action"]["type"] == "string"
    document = next(t for t in tools if t.name == "document")
    assert document.input_schema["properties"]["action"]["enum"] == ["read", "write", "edit", "transform"]


@MODES
async def test_tools_state_document_round_trip_and_both_error_forms(world: Home, app: AppProcess, mode: str) -> None:
    path = world.workspace / "a.md"
    async with stdio_client(world, mode) as client:
        check_tools(client, (await client.list_tools()).tools)
        state = await ok(client, "session", "get_state")
        assert state["capabilities"] == {
            "version": __version__,
            "supportedKinds": ["markdown", "yaml-workflow"],
            "mcpProtocol": "0.2.0",
        }
        (window,) = state["windows"]
        assert window["label"] == "main" and window["focused"] is False and window["tabs"] == []
        assert window["activeWorkspaceInstanceId"].startswith("wsi-")

        opened = await ok(client, "workspace", "open", filePath=str(path))
        tab = opened["tabId"]
        assert opened["workspaceSwitched"] is False
        doc = await ok(client, "document", "read", tabId=tab)
        assert doc == {
            "content": "# A\n\nalpha\n",
            "revision": doc["revision"],
            "filePath": str(path),
            "kind": "markdown",
            "dirty": False,
            "totalLength": len("# A\n\nalpha\n"),
        }
        content = "# A\n\nälpha — ✓ 日本\n\n- [ ] task\n"
        out = await ok(client, "document", "write", tabId=tab, content=content, expected_revision=doc["revision"])
        assert out["revision"] != doc["revision"]
        assert (out["applied"], out["durable"], out["saved"], out["journaled"]) == (True, True, True, "yes")
        assert path.read_bytes() == content.encode("utf-8")
        again = await ok(client, "document", "read", tabId=tab)
        assert (again["content"], again["revision"], again["dirty"]) == (content, out["revision"], False)
        (listed,) = (await ok(client, "session", "get_state"))["windows"][0]["tabs"]
        assert listed == {
            "id": tab,
            "filePath": str(path),
            "title": "a",
            "dirty": False,
            "revision": out["revision"],
            "kind": "markdown",
            "active": listed["active"],
            "visible": True,
        }

        stale = await fail_code(
            client, "document", "write", tabId=tab, content="lost\n", expected_revision=doc["revision"]
        )
        assert stale["error"] == "STALE" and stale["current_revision"] == out["revision"]
        assert isinstance(stale["message"], str) and stale["message"]
        assert path.read_bytes() == content.encode("utf-8")

        outside = await fail_code(client, "workspace", "open", filePath=str(world.root / "elsewhere.md"))
        assert outside["error"] == "INVALID_PATH"
        unknown = await fail_code(client, "document", "read", tabId="tab-nope")
        assert (unknown["error"], unknown["tabId"]) == ("INVALID_TAB", "tab-nope")

        assert await fail(client, "document", "write", tabId=tab) == (
            "document.write: missing required argument 'content'"
        )
        assert await fail(client, "document", "write", tabId=tab, content=7) == (
            "document.write: argument 'content' must be a string"
        )
        assert await fail(client, "document", "erase") == (
            "document: unknown action 'erase'; expected one of: read, write, edit, transform"
        )
    assert path.read_bytes() == content.encode("utf-8")


async def test_autostart_when_no_app_runs(world: Home) -> None:
    assert read_bridge(world.data) is None
    async with stdio_client(world) as client:
        state = await ok(client, "session", "get_state")
        (window,) = state["windows"]
        assert (window["label"], window["tabs"], window["activeWorkspaceInstanceId"]) == ("main", [], None)
        info = read_bridge(world.data)
        assert info is not None
    # Started detached: its own session, and it outlives the `vmark mcp` that started it.
    assert os.getsid(info.pid) == info.pid
    assert app_pids(world.data) == [info.pid]
    assert read_bridge(world.data) == info
    assert (world.data / "app.log").exists()
    stopped = await cli(world.env(), "stop")
    assert (stopped.code, stopped.err) == (0, "")
    assert app_stopped(world.data)
    await await_until(lambda: not app_pids(world.data), 10, "the stopped app to exit")


@pytest.mark.parametrize(
    ("sig", "restart"),
    [(signal.SIGTERM, True), (signal.SIGKILL, False)],
    ids=["SIGTERM-new-app", "SIGKILL-autostart"],
)
async def test_reconnects_after_the_app_restarts(
    world: Home, app: AppProcess, start_app: StartApp, sig: signal.Signals, restart: bool
) -> None:
    path = world.workspace / "b.md"
    async with stdio_client(world) as client:
        old_tab = (await ok(client, "workspace", "open", filePath=str(path)))["tabId"]
        assert (await ok(client, "document", "read", tabId=old_tab))["content"] == "# B\n\nbeta\n"
        app.signal(sig)
        app.wait()
        if restart:
            new = start_app(world.workspace)
            new_pid = (await new.aready()).pid
        # The same `vmark mcp` answers on a new connection to the new app (started by it if need be).
        state = await ok(client, "session", "get_state")
        assert state["windows"][0]["tabs"] == []
        info = read_bridge(world.data)
        assert info is not None and info.pid != app.pid
        if restart:
            assert info.pid == new_pid
        gone = await fail_code(client, "document", "read", tabId=old_tab)
        assert gone["error"] == "INVALID_TAB"
        if restart:
            tab = (await ok(client, "workspace", "open", filePath=str(path)))["tabId"]
            assert (await ok(client, "document", "read", tabId=tab))["content"] == "# B\n\nbeta\n"


async def add_principal(world: Home, name: str) -> str:
    result = await cli(world.env(), "principals", "add", name, "--json")
    assert result.code == 0, result.err
    assert result.json()["name"] == name
    return str(result.json()["token"])


async def test_client_token_is_accepted_and_names_the_requester(world: Home, app: AppProcess) -> None:
    token = await add_principal(world, "claude")
    folder = str(world.workspace / "notes")
    async with stdio_client(world, token=token) as client:
        assert (await ok(client, "session", "get_state"))["windows"][0]["label"] == "main"
        asked = await ok(client, "workspace", "open_workspace", folderPath=folder)
        assert asked == {"needsApproval": True, "folderPath": folder}
        listing = await cli(world.env(), "approvals", "list", "--json")
        (approval,) = listing.json()
        assert (approval["requester"], approval["subject"]) == ("claude", folder)


async def test_wrong_client_token_fails_with_a_plain_string(world: Home, app: AppProcess) -> None:
    token = "0" * 64  # well-formed, but no principal has it
    expected = (
        "VMark app unavailable: the VMark app refused our credentials (check VMARK_MCP_TOKEN)."
        " The call was not sent; nothing was changed."
    )
    async with stdio_client(world, token=token) as client:
        assert len((await client.list_tools()).tools) == len(ANNOTATIONS)
        assert await fail(client, "session", "get_state") == expected
        write = await fail(client, "document", "write", content="x")
        assert write == expected
    # It did not start an app of its own, and the running one is unharmed.
    assert read_bridge(world.data) is not None and read_bridge(world.data).pid == app.pid  # type: ignore[union-attr]
    assert app_pids(world.data) == [app.pid]
    assert (world.workspace / "a.md").read_text() == "# A\n\nalpha\n"
