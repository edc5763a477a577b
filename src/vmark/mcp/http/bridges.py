"""One bridge connection per MCP session: each session is its token's principal, with its own approvals.

A session (``Mcp-Session-Id``) gets its own connection to the app, opened with the token that opened
the session, on its first tool call; it is closed when the session ends (``DELETE``, idle timeout,
shutdown), so an approval granted to one session never serves another. A request of the sessionless
protocol era (2026-07-28: no ``Mcp-Session-Id``) is served over one connection per principal.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER

from ..bridge_client import BridgeClient
from .gate import principal_token


class SessionBridges:
    def __init__(self, data_dir: Path, *, autostart: bool = True) -> None:
        self.data_dir = data_dir
        self.autostart = autostart
        self._bridges: dict[str, BridgeClient] = {}
        #: told of each bridge closed (its clients hear nothing through it any more)
        self.closed_listeners: list[Callable[[BridgeClient], None]] = []

    def for_request(self, ctx: ServerRequestContext[Any]) -> BridgeClient:
        request = ctx.request
        assert request is not None, "an HTTP request carries its starlette request"
        principal, token = principal_token(request.scope)
        session_id = request.headers.get(MCP_SESSION_ID_HEADER)
        key = f"session {session_id}" if session_id else f"principal {principal}"
        bridge = self._bridges.get(key)
        if bridge is None:
            bridge = self._bridges[key] = BridgeClient(self.data_dir, token, autostart=self.autostart)
        return bridge

    async def session_ended(self, session_id: str) -> None:
        bridge = self._bridges.pop(f"session {session_id}", None)
        if bridge is not None:
            await self._close(bridge)

    async def close_all(self) -> None:
        bridges, self._bridges = list(self._bridges.values()), {}
        for bridge in bridges:
            await self._close(bridge)

    async def _close(self, bridge: BridgeClient) -> None:
        for listener in self.closed_listeners:
            listener(bridge)
        await _close(bridge)


async def _close(bridge: BridgeClient) -> None:
    with anyio.CancelScope(shield=True), contextlib.suppress(OSError, RuntimeError):
        await bridge.close()
