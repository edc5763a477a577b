"""The app's sockets send small frames at once (TCP_NODELAY): pushes to pages must not wait for ACKs."""

from __future__ import annotations

import socket

from tests.contract.helpers import wait_until
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient


async def test_accepted_connections_have_nodelay(vmark: RunningApp) -> None:
    assert vmark._server is not None
    async with UIClient(vmark.data_dir) as page:
        await page.attach("main")
        connections = vmark._server.server_state.connections
        await wait_until(lambda: bool(connections), "the page's connection")
        sockets = [c.transport.get_extra_info("socket") for c in connections]  # type: ignore[attr-defined]
        assert [s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for s in sockets] == [1] * len(sockets)
