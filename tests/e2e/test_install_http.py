"""``vmark mcp install CLIENT --http --port N``: the URL form of a client's config, byte for byte, and
that a client configured so reaches ``vmark mcp --http`` as its principal, approvals included."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.contract.helpers import wait_until
from tests.e2e.conftest import StartApp
from tests.e2e.helpers import Home, cli
from tests.e2e.test_cli import TOKEN, pending
from tests.http.helpers import client_with_header, http_server
from vmark.storage.principals import Principals

PORT = 48123  # only written into the config; nothing listens on it in the config tests


def _expected(entry: dict[str, object]) -> bytes:
    return (json.dumps({"mcpServers": {"vmark": entry}}, indent=2) + "\n").encode()


def _token_of(path: Path) -> str:
    header = json.loads(path.read_text())["mcpServers"]["vmark"]["headers"]["Authorization"]
    token = header.removeprefix("Bearer ")
    assert TOKEN.fullmatch(token), header
    return str(token)


@pytest.mark.parametrize(("client", "kind"), [("claude-code", "http"), ("cursor", None)])
async def test_install_http_writes_the_url_form(world: Home, client: str, kind: str | None) -> None:
    path = world.root / f"{client}.json"
    result = await cli(world.env(), "mcp", "install", client, "--http", "--port", str(PORT), "--config", str(path))
    assert (result.code, result.err) == (0, ""), result
    assert result.out == f"wrote the vmark server to {path} (principal {client!r})\n"
    token = _token_of(path)
    entry = {"url": f"http://127.0.0.1:{PORT}/mcp", "headers": {"Authorization": f"Bearer {token}"}}
    assert path.read_bytes() == _expected({"type": kind, **entry} if kind else entry)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it holds a client token
    assert Principals(world.data / "principals.json").authenticate(token) == client


async def test_install_http_print(world: Home) -> None:
    result = await cli(world.env(), "mcp", "install", "print", "--http", "--port", str(PORT))
    assert (result.code, result.err) == (0, ""), result
    token = json.loads(result.out)["mcpServers"]["vmark"]["headers"]["Authorization"].removeprefix("Bearer ")
    entry = {"type": "http", "url": f"http://127.0.0.1:{PORT}/mcp", "headers": {"Authorization": f"Bearer {token}"}}
    assert result.out.encode() == _expected(entry)
    assert not list(world.home.iterdir())


@pytest.mark.parametrize(
    ("args", "err"),
    [
        (
            ["claude-desktop", "--http", "--port", str(PORT)],
            "vmark: claude-desktop takes no server URL in its config file; install it without --http"
            " (it starts `vmark mcp`)\n",
        ),
        (["cursor", "--http"], "vmark: --http needs --port N: the port `vmark mcp --http --port N` will serve on\n"),
        (["cursor", "--port", str(PORT)], "vmark: --port goes with --http\n"),
    ],
    ids=["claude-desktop takes no URL", "no port", "port without --http"],
)
async def test_install_http_refusals_change_nothing(world: Home, args: list[str], err: str) -> None:
    path = world.root / "existing.json"
    path.write_text('{"mcpServers": {}}\n')
    result = await cli(world.env(), "mcp", "install", *args, "--config", str(path))
    assert (result.code, result.out, result.err) == (2, "", err)
    assert path.read_text() == '{"mcpServers": {}}\n'
    assert Principals(world.data / "principals.json").list() == []


async def test_installed_url_config_connects_as_its_principal(
    world: Home, start_app: StartApp, free_tcp_port: int
) -> None:
    path = world.root / ".mcp.json"
    args = ("mcp", "install", "claude-code", "--http", "--port", str(free_tcp_port), "--config", str(path))
    assert (await cli(world.env(), *args)).code == 0
    entry = json.loads(path.read_text())["mcpServers"]["vmark"]
    await start_app(world.workspace).aready()
    async with http_server(world.data, "--port", str(free_tcp_port)) as url:
        assert url == entry["url"]
        async with client_with_header(url, _token_of(path), "legacy") as client:
            arguments = {"action": "open_workspace", "folderPath": str(world.workspace)}
            result = await client.call_tool("workspace", arguments)
            assert result.structured_content == {"needsApproval": True, "folderPath": str(world.workspace)}
            (item,) = await pending(world.env())
            assert item["requester"] == "claude-code"
        # The approval belonged to that session's connection: it is gone with the session (DELETE on close).
        async def withdrawn() -> bool:
            return await pending(world.env()) == []

        await wait_until(withdrawn, "the approval withdrawn with its session")
