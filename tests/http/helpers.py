"""``vmark mcp --http`` as a real process, and the ways to talk to it: the official client, raw HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import make_data_dir, make_workspace, running_app
from vmark.app.server import RunningApp
from vmark.storage.principals import Principals

START_TIMEOUT = 120.0  # a deadline: `vmark mcp --http` imports a lot, and a loaded machine starts it slowly
STOP_TIMEOUT = 10.0
#: Inherited variables that would change what the process under test does.
_SCRUBBED = ("VMARK_HOME", "VMARK_MCP_TOKEN", "VMARK_TEST_HOOKS")

CURRENT = "2026-07-28"
PREVIOUS = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


@contextlib.asynccontextmanager
async def http_server(data_dir: Path, *args: str) -> AsyncIterator[str]:
    """Run ``vmark mcp --http ARGS`` for the app of ``data_dir``; yield the URL it printed first."""
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
    env["VMARK_HOME"] = str(data_dir)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "vmark", "mcp", "--http", *args,
        env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), START_TIMEOUT)
        assert line.startswith(b"http://127.0.0.1:") and line.endswith(b"/mcp\n"), line
        yield line.decode().strip()
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(proc.wait(), STOP_TIMEOUT)
            except TimeoutError:
                proc.kill()
                await proc.wait()


@dataclass(frozen=True)
class Served:
    """An app in-process, the workspace files beside it (not opened), ``vmark mcp --http`` in front of it, and
    the token of principal alice."""

    app: RunningApp
    workspace: Path
    url: str
    alice: str


@contextlib.asynccontextmanager
async def served_app(tmp: Path, readable: Path | None = None) -> AsyncIterator[Served]:
    """A :class:`Served` in ``tmp`` (``readable``: the always-readable tree, as :func:`make_data_dir` takes it):
    the app a module's tests share where a process start would be most of each test's CPU."""
    data, workspace = make_data_dir(tmp, readable), make_workspace(tmp)
    alice = Principals(data / "principals.json").add("alice")
    async with running_app(data) as running, http_server(data) as url:
        yield Served(running, workspace, url, alice)


def with_token(url: str, token: str) -> str:
    return f"{url}?token={token}"


def client_with_header(url: str, token: str, mode: str = "auto") -> Client:
    """The official client, sending the token as ``Authorization: Bearer``."""
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http), mode=mode)  # type: ignore[arg-type]


def client_with_url(url: str, token: str, mode: str = "auto") -> Client:
    """The official client, given only a URL (the token in it)."""
    return Client(with_token(url, token), mode=mode)  # type: ignore[arg-type]


def tool_call(tool: str, arguments: dict[str, Any], request_id: int = 1) -> dict[str, Any]:
    """A complete 2026-07-28 (sessionless) ``tools/call``: it runs the tool with no session to open first."""
    meta = {"io.modelcontextprotocol/protocolVersion": CURRENT, "io.modelcontextprotocol/clientCapabilities": {}}
    params = {"name": tool, "arguments": arguments, "_meta": meta}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def tool_call_headers(tool: str, **extra: str) -> dict[str, str]:
    return {
        "Content-Type": "application/json", "Accept": ACCEPT, "MCP-Protocol-Version": CURRENT,
        "MCP-Method": "tools/call", "MCP-Name": tool, **extra,
    }  # fmt: skip


def sse_messages(body: str) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an SSE body (or of a plain JSON body)."""
    if body.lstrip().startswith("{"):
        return [json.loads(body)]
    return [json.loads(line[5:]) for line in body.splitlines() if line.startswith("data:") and line[5:].strip()]


async def post(url: str, body: bytes | dict[str, Any], headers: dict[str, str]) -> httpx2.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(url, content=content, headers=headers)
