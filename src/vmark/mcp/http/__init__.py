"""``vmark mcp --http``: the MCP Streamable HTTP transport, on loopback, for several clients at once.

The only part of :mod:`vmark.mcp` that uses an HTTP server (starlette, uvicorn): the SDK's
``StreamableHTTPSessionManager`` serves sessions, SSE streams, resumption and ``DELETE``; in front of it
:mod:`.gate` refuses what is not for us, and :mod:`.bridges` gives each session its own bridge connection.
"""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import ASGIApp

from ...protocol.limits import MAX_FRAME_BYTES
from ..http_endpoint import HOST, MCP_PATH, url_of
from ..notify import Notifier
from ..server import build_server
from .bridges import SessionBridges
from .events import BoundedEventStore
from .gate import Authenticate, Gate, loopback_hosts, loopback_origins

__all__ = ["HOST", "bind", "http_app", "serve_http", "url_of"]
#: a session nobody used for this long is ended (its bridge connection and approvals with it)
SESSION_IDLE_SECONDS = 30 * 60.0
#: how long shutting down waits for open SSE streams before it closes them
GRACEFUL_SHUTDOWN_SECONDS = 2


class _SessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager, telling :class:`SessionBridges` when a session ends (however it ends)."""

    def __init__(self, server: Server[Any], bridges: SessionBridges, port: int) -> None:
        super().__init__(
            server,
            event_store=BoundedEventStore(),
            security_settings=TransportSecuritySettings(
                allowed_hosts=loopback_hosts(port), allowed_origins=loopback_origins(port)
            ),
            session_idle_timeout=SESSION_IDLE_SECONDS,
            max_request_body_size=MAX_FRAME_BYTES,
        )
        self.bridges = bridges

    async def _discard_session(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        await super()._discard_session(session_id, transport)
        await self.bridges.session_ended(session_id)


def http_app(data_dir: Path, port: int, authenticate: Authenticate, *, autostart: bool = True) -> ASGIApp:
    """The ASGI application serving ``http://127.0.0.1:{port}/mcp`` for the app of ``data_dir``."""
    bridges = SessionBridges(data_dir, autostart=autostart)
    notifier = Notifier()
    bridges.closed_listeners.append(notifier.forget)
    manager = _SessionManager(build_server(bridges.for_request, notifier), bridges, port)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        try:
            async with manager.run():
                yield
        finally:
            await bridges.close_all()

    routes = [Route(MCP_PATH, endpoint=StreamableHTTPASGIApp(manager))]
    return Gate(Starlette(routes=routes, lifespan=lifespan), port, authenticate)


def bind(port: int) -> socket.socket:
    """A listening socket on loopback (``port`` 0: a free one)."""
    # proto IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say so, and
    # with Nagle on, every small SSE answer on a kept-alive connection waits out the peer's delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


async def serve_http(
    data_dir: Path, sock: socket.socket, authenticate: Authenticate, announce: Callable[[str], None] | None = None
) -> None:
    """Serve until interrupted; ``announce`` (default: print to stdout) gets the URL once the socket listens."""
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        http_app(data_dir, port, authenticate),
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )
    (announce or _print)(url_of(port))
    await uvicorn.Server(config).serve(sockets=[sock])


def _print(url: str) -> None:
    sys.stdout.write(url + "\n")
    sys.stdout.flush()

