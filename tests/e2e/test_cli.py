"""The ``vmark`` command line as a real process: principals, settings, approvals, mcp install."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import StartApp
from tests.e2e.helpers import Home, Result, bridge_client, cli, request, stdio_client
from vmark import settings_keys  # noqa: F401  (every setting, as the CLI registers them)
from vmark.mcp.bridge_client import BridgeUnavailable
from vmark.protocol.limits import APPROVAL_TTL_SECONDS, DEFAULT_REVIEW_BACKLOG_LIMIT
from vmark.storage.principals import Principals
from vmark.storage.settings import SETTINGS

TOKEN = re.compile(r"[0-9a-f]{64}")


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def assert_usage_error(result: Result, message: str) -> None:
    assert (result.code, result.out, result.err) == (2, "", f"vmark: {message}\n")


# --- principals ---------------------------------------------------------------------------


async def test_principals_add_list_remove(world: Home) -> None:
    env = world.env()
    added = await cli(env, "principals", "add", "claude", "--json")
    assert added.code == 0 and added.err == ""
    claude = added.json()
    assert set(claude) == {"name", "token"} and claude["name"] == "claude"
    assert TOKEN.fullmatch(claude["token"])
    plain = await cli(env, "principals", "add", "cursor.ide_2")
    name, token = plain.out.rstrip("\n").split("\t")
    assert plain.code == 0 and name == "cursor.ide_2" and TOKEN.fullmatch(token) and token != claude["token"]

    stored = world.data / "principals.json"
    assert mode_of(stored) == 0o600
    assert claude["token"] not in stored.read_text() and token not in stored.read_text()
    principals = Principals(stored)
    assert principals.authenticate(claude["token"]) == "claude"
    assert principals.authenticate(token) == "cursor.ide_2"

    assert (await cli(env, "principals", "list")).out == "claude\ncursor.ide_2\n"
    listing = (await cli(env, "principals", "list", "--json")).json()
    assert [p["name"] for p in listing] == ["claude", "cursor.ide_2"]
    assert all(set(p) == {"name", "created"} and isinstance(p["created"], float) for p in listing)

    removed = await cli(env, "principals", "remove", "claude")
    assert (removed.code, removed.out, removed.err) == (0, "", "")
    assert (await cli(env, "principals", "list")).out == "cursor.ide_2\n"
    assert principals.authenticate(claude["token"]) is None


async def test_principals_refusals(world: Home) -> None:
    env = world.env()
    assert (await cli(env, "principals", "add", "claude")).code == 0
    assert_usage_error(await cli(env, "principals", "add", "claude", "--json"), "principal 'claude' already exists")
    bad = ("-dash", "a b", "x" * 65, "", "ünïcode", "../up")
    results = await asyncio.gather(*(cli(env, "principals", "add", "--", name) for name in bad))
    for name, result in zip(bad, results, strict=True):
        assert_usage_error(result, f"invalid principal name {name!r} (letters, digits, . _ -; at most 64)")
    assert_usage_error(await cli(env, "principals", "remove", "ghost"), "no principal named 'ghost'")
    assert (await cli(env, "principals", "list")).out == "claude\n"


# --- settings -----------------------------------------------------------------------------

#: the CLI knows every package's settings (the CJK rules, the coherence checker), like the app
KNOWN_SETTINGS = ", ".join(sorted(SETTINGS))


async def get_setting(env: dict[str, str], key: str) -> Any:
    result = await cli(env, "settings", "get", key)
    assert result.code == 0, result.err
    return result.json()


async def test_settings_defaults(world: Home) -> None:
    env = world.env()
    expected = {
        "auto_approve_save_as": False,
        "review_backlog_limit": DEFAULT_REVIEW_BACKLOG_LIMIT,
        "browser.allow_private_network": False,
        "readable_roots": [str(world.root)],
    }
    values = await asyncio.gather(*(get_setting(env, key) for key in expected))
    assert dict(zip(expected, values, strict=True)) == expected
    assert all(type(v) is type(e) for v, e in zip(values, expected.values(), strict=True))


async def test_settings_set_and_get(world: Home) -> None:
    env = world.env()
    roots = [str(world.root / "a"), "/srv/notes"]
    for key, value in (
        ("auto_approve_save_as", "true"),
        ("review_backlog_limit", "7"),
        ("readable_roots", json.dumps(roots)),
        ("browser.allow_private_network", "false"),
    ):
        result = await cli(env, "settings", "set", key, value)
        assert (result.code, result.out, result.err) == (0, "", "")
    assert await get_setting(env, "auto_approve_save_as") is True
    assert await get_setting(env, "review_backlog_limit") == 7
    assert await get_setting(env, "readable_roots") == roots
    path = world.data / "settings.json"
    assert mode_of(path) == 0o600
    assert json.loads(path.read_text()) == {
        "auto_approve_save_as": True,
        "browser.allow_private_network": False,
        "readable_roots": roots,
        "review_backlog_limit": 7,
    }


async def test_settings_refusals(world: Home) -> None:
    env = world.env()
    before = (world.data / "settings.json").read_bytes()
    unknown = f"unknown setting 'nope'; known: {KNOWN_SETTINGS}"
    cases: list[tuple[list[str], str]] = [
        (["get", "nope"], unknown),
        (["set", "nope", "1"], unknown),
        (["set", "auto_approve_save_as", "1"], "setting 'auto_approve_save_as' takes a bool, not 1"),
        (["set", "auto_approve_save_as", "yes"], "setting 'auto_approve_save_as' takes a bool, not 'yes'"),
        (["set", "review_backlog_limit", "true"], "setting 'review_backlog_limit' takes a int, not True"),
        (["set", "review_backlog_limit", "1.5"], "setting 'review_backlog_limit' takes a int, not 1.5"),
        (["set", "readable_roots", '"/tmp"'], "setting 'readable_roots' takes a list, not '/tmp'"),
        (["set", "readable_roots", "[1]"], "setting 'readable_roots' takes a list of strings"),
    ]
    results = await asyncio.gather(*(cli(env, "settings", *args) for args, _ in cases))
    for (_, message), result in zip(cases, results, strict=True):
        assert_usage_error(result, message)
    assert (world.data / "settings.json").read_bytes() == before


# --- approvals ----------------------------------------------------------------------------


async def pending(env: dict[str, str]) -> list[dict[str, Any]]:
    result = await cli(env, "approvals", "list", "--json")
    assert result.code == 0, result.err
    return result.json()  # type: ignore[no-any-return]


async def answer(env: dict[str, str], verb: str, approval_id: str) -> dict[str, Any]:
    result = await cli(env, "approvals", verb, approval_id)
    assert result.code == 0 and result.err == "", result.err
    return result.json()  # type: ignore[no-any-return]


def seconds_between(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


async def add_principal(env: dict[str, str], name: str) -> str:
    result = await cli(env, "principals", "add", name, "--json")
    assert result.code == 0, result.err
    return str(result.json()["token"])


async def test_approvals_list_and_allow(world: Home, start_app: StartApp) -> None:
    env = world.env()
    token = await add_principal(env, "claude")
    await start_app().aready()
    folder = str(world.workspace)
    async with bridge_client(world.data, token) as agent:
        first = await request(agent, "workspace", "open_workspace", folderPath=folder)
        assert first == {"success": True, "data": {"needsApproval": True, "folderPath": folder}}
        (item,) = await pending(env)
        assert {k: item[k] for k in ("kind", "requester", "subject", "state")} == {
            "kind": "open_workspace",
            "requester": "claude",
            "subject": folder,
            "state": "pending",
        }
        assert re.fullmatch(r"apr-[0-9A-Za-z]{10}", item["id"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", item["created"])
        assert seconds_between(item["created"], item["expires"]) == APPROVAL_TTL_SECONDS
        text = await cli(env, "approvals", "list")
        assert text.out == f"{item['id']}\topen_workspace\tpending\tclaude\t{folder}\texpires {item['expires']}\n"

        allowed = await answer(env, "allow", item["id"])
        assert allowed["id"] == item["id"] and allowed["state"] == "allowed"
        opened = await request(agent, "workspace", "open_workspace", folderPath=folder)
        assert opened["success"] is True
        assert opened["data"]["opened"] is True and opened["data"]["folderPath"] == folder
        assert opened["data"]["windowLabel"] == "main"
        assert opened["data"]["workspaceInstanceId"].startswith("wsi-")
        # The approval was used up: nothing is pending any more.
        assert await pending(env) == []


async def test_approvals_deny_keeps_failing_until_allowed(world: Home, start_app: StartApp) -> None:
    env = world.env()
    await start_app().aready()
    folder = str(world.workspace / "notes")
    async with bridge_client(world.data) as agent:
        assert (await request(agent, "workspace", "open_workspace", folderPath=folder))["data"]["needsApproval"]
        (item,) = await pending(env)
        assert item["requester"].startswith("anonymous (conn-")
        denied = await answer(env, "deny", item["id"])
        assert denied["state"] == "denied"
        for _ in range(2):
            refused = await request(agent, "workspace", "open_workspace", folderPath=folder)
            assert refused["success"] is False
            envelope = json.loads(refused["error"])
            assert envelope["error"] == "APPROVAL_REQUIRED" and envelope["folderPath"] == folder
        assert [a["state"] for a in await pending(env)] == ["denied"]
        await answer(env, "allow", item["id"])
        assert (await request(agent, "workspace", "open_workspace", folderPath=folder))["data"]["opened"] is True
    # An id that is not (or no longer) there.
    unknown = await cli(env, "approvals", "allow", "apr-0000000000")
    assert (unknown.code, unknown.out) == (1, "")
    assert unknown.err == "vmark: no pending approval 'apr-0000000000' (it may have expired)\n"


async def test_approvals_folder_access_outside_readable_roots(world: Home, start_app: StartApp) -> None:
    env = world.env()
    assert (await cli(env, "settings", "set", "readable_roots", "[]")).code == 0
    await start_app().aready()
    folder = str(world.workspace)
    async with bridge_client(world.data) as agent:
        await request(agent, "workspace", "open_workspace", folderPath=folder)
        (consent,) = await pending(env)
        await answer(env, "allow", consent["id"])
        picker = await request(agent, "workspace", "open_workspace", folderPath=folder)
        assert json.loads(picker["error"])["error"] == "APPROVAL_REQUIRED"
        (dialog,) = [a for a in await pending(env) if a["kind"] == "folder_access"]
        assert dialog["subject"] == folder and dialog["state"] == "pending"
        await answer(env, "allow", dialog["id"])
        assert (await request(agent, "workspace", "open_workspace", folderPath=folder))["data"]["opened"] is True


async def test_approvals_without_an_app(world: Home) -> None:
    commands = [["list"], ["list", "--json"], ["allow", "apr-x"], ["deny", "apr-x"]]
    for result in await asyncio.gather(*(cli(world.env(), "approvals", *args) for args in commands)):
        assert (result.code, result.out) == (1, "")
        assert result.err == f"vmark: no VMark app is running for {world.data}\n"


# --- mcp install --------------------------------------------------------------------------

OTHER = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"]}


async def install(world: Home, client: str, *extra: str, cwd: Path | None = None) -> Result:
    result = await cli(world.env(), "mcp", "install", client, *extra, cwd=cwd)
    assert result.code == 0 and result.err == "", result.err
    return result


def assert_entry(entry: dict[str, Any], world: Home, client: str, principal: str) -> str:
    """Check one ``mcpServers.vmark`` entry; return its token."""
    expected = {"command", "args", "env"} | ({"type"} if client == "claude-code" else set())
    assert set(entry) == expected
    if client == "claude-code":
        assert entry["type"] == "stdio"
    launch = [entry["command"], *entry["args"]]
    assert launch[-1] == "mcp" and os.path.isabs(launch[0])
    assert launch[-3:-1] == ["-m", "vmark"] or os.path.basename(launch[0]) == "vmark"
    assert set(entry["env"]) == {"VMARK_MCP_TOKEN", "VMARK_HOME"}
    assert entry["env"]["VMARK_HOME"] == str(world.data)
    token = str(entry["env"]["VMARK_MCP_TOKEN"])
    assert TOKEN.fullmatch(token)
    assert Principals(world.data / "principals.json").authenticate(token) == principal
    return token


@pytest.mark.parametrize("client", ["claude-code", "claude-desktop", "cursor"])
async def test_install_merges_into_an_existing_config(world: Home, client: str) -> None:
    path = world.root / "cfg" / f"{client}.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"mcpServers": {"other": OTHER}, "theme": "dark"}))
    result = await install(world, client, "--config", str(path))
    assert result.out == f"wrote the vmark server to {path} (principal {client!r})\n"
    config = json.loads(path.read_text())
    assert set(config) == {"mcpServers", "theme"} and config["theme"] == "dark"
    assert set(config["mcpServers"]) == {"other", "vmark"} and config["mcpServers"]["other"] == OTHER
    assert_entry(config["mcpServers"]["vmark"], world, client, client)
    assert mode_of(path) == 0o600
    # Installing again registers a fresh principal and replaces only our entry.
    await install(world, client, "--config", str(path), "--name", "laptop")
    again = json.loads(path.read_text())
    assert again["mcpServers"]["other"] == OTHER
    assert_entry(again["mcpServers"]["vmark"], world, client, "laptop")
    await install(world, client, "--config", str(path), "--name", "laptop")
    assert_entry(json.loads(path.read_text())["mcpServers"]["vmark"], world, client, "laptop-2")


@pytest.mark.parametrize(
    ("client", "where"),
    [
        ("claude-code", "proj/.mcp.json"),
        ("cursor", "home/.cursor/mcp.json"),
        ("claude-desktop", "home/.config/Claude/claude_desktop_config.json"),
    ],
)
async def test_install_default_config_paths(world: Home, client: str, where: str) -> None:
    (world.root / "proj").mkdir()
    await install(world, client, cwd=world.root / "proj")
    config = json.loads((world.root / where).read_text())
    assert set(config) == {"mcpServers"}
    assert_entry(config["mcpServers"]["vmark"], world, client, client)


async def test_install_print(world: Home) -> None:
    result = await install(world, "print")
    config = json.loads(result.out)
    assert set(config) == {"mcpServers"} and set(config["mcpServers"]) == {"vmark"}
    assert_entry(config["mcpServers"]["vmark"], world, "print", "print")
    assert not list(world.home.iterdir())


async def test_install_refuses_a_broken_config(world: Home) -> None:
    path = world.root / "broken.json"
    for text in ("[1, 2]", "{not json", '{"mcpServers": []}'):
        path.write_text(text)
        result = await cli(world.env(), "mcp", "install", "cursor", "--config", str(path))
        assert (result.code, result.out) == (2, "") and result.err.startswith("vmark: "), result
        assert path.read_text() == text
        if text == "{not json":
            assert result.err.startswith(f"vmark: {path} is not valid JSON (")
    assert result.err == f"vmark: {path}: mcpServers is not an object\n"
    # No token was registered for a config that was never written.
    assert Principals(world.data / "principals.json").list() == []


async def test_installed_config_connects_and_authenticates(world: Home, start_app: StartApp) -> None:
    """Launch the server exactly as the written config says, against a running app."""
    path = world.root / "claude_desktop_config.json"
    await install(world, "claude-desktop", "--config", str(path))
    entry = json.loads(path.read_text())["mcpServers"]["vmark"]
    launch = [entry["command"], *entry["args"]]
    await start_app(world.workspace).aready()
    async with stdio_client(world, token=entry["env"]["VMARK_MCP_TOKEN"], launch=launch) as client:
        result = await client.call_tool("workspace", {"action": "open_workspace", "folderPath": str(world.workspace)})
        assert result.structured_content == {"needsApproval": True, "folderPath": str(world.workspace)}
        (item,) = await pending(world.env())
        assert item["requester"] == "claude-desktop"
    # The approval belonged to that connection: it is gone with it.
    assert await pending(world.env()) == []
    # A removed principal's token no longer authenticates.
    assert (await cli(world.env(), "principals", "remove", "claude-desktop")).code == 0
    with pytest.raises(BridgeUnavailable, match="refused our credentials"):
        async with bridge_client(world.data, entry["env"]["VMARK_MCP_TOKEN"]):
            pass
