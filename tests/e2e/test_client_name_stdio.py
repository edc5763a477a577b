"""The real ``vmark mcp`` over stdio (the official client) carries its client's name to a real ``vmark app``:
``vmark approvals list`` and ``vmark review list`` show the agent as ``NAME (principal)``."""

from __future__ import annotations

import mcp_types as types
from mcp import Client, StdioServerParameters

from tests.conftest import ok
from tests.e2e.conftest import StartApp
from tests.e2e.helpers import Home, cli, vmark_script


async def test_stdio_client_name_in_the_cli(world: Home, start_app: StartApp) -> None:
    app = start_app(world.workspace)
    await app.aready()
    token = (await cli(world.env(), "principals", "add", "laptop", "--json")).json()["token"]
    command, prefix = vmark_script()
    env = {"VMARK_HOME": str(world.data), "HOME": str(world.home), "VMARK_MCP_TOKEN": token}
    params = StdioServerParameters(command=command, args=[*prefix, "mcp"], env=env, cwd=str(world.root))
    info = types.Implementation(name="claude-code\x1b]0;x\x07", version="2.1")
    async with Client(params, client_info=info, read_timeout_seconds=30) as agent:
        outside = world.root / "outside"
        outside.mkdir()
        asked = await ok(agent, "workspace", "open_workspace", folderPath=str(outside))
        assert asked["needsApproval"] is True
        listed = await cli(world.env(), "approvals", "list")
        assert listed.code == 0, listed.err
        [line] = listed.out.splitlines()
        assert line.split("\t")[2:5] == ["pending", "claude-code]0;x (laptop)", str(outside)]

        path = world.workspace / "a.md"
        tab = (await ok(agent, "workspace", "open", filePath=str(path)))["tabId"]
        read = await ok(agent, "document", "read", tabId=tab)
        await ok(agent, "document", "write", tabId=tab, content="# A\n\nbeta\n", expected_revision=read["revision"])
        review = await cli(world.env(), "review", "list", str(path))
        assert review.code == 0, review.err
        assert [line.split("\t")[2] for line in review.out.splitlines()] == [
            "claude-code]0;x (laptop) (document.write)"
        ]
