"""``vmark mcp --http`` as a command: its URL first on stdout, a port in use refused plainly."""

from __future__ import annotations

import socket

from tests.e2e.helpers import Home, cli
from tests.http.helpers import http_server


async def test_a_port_in_use_is_refused(world: Home) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = await cli(world.env(), "mcp", "--http", "--port", str(port))
    assert (result.code, result.out) == (1, "")
    assert result.err == f"vmark: cannot listen on 127.0.0.1:{port}: Address already in use\n"


async def test_the_url_names_the_port_asked_for(world: Home, free_tcp_port: int) -> None:
    async with http_server(world.data, "--port", str(free_tcp_port)) as url:
        assert url == f"http://127.0.0.1:{free_tcp_port}/mcp"


async def test_port_without_http_is_refused(world: Home) -> None:
    result = await cli(world.env(), "mcp", "--port", "8765")
    assert (result.code, result.out, result.err) == (2, "", "vmark: --port goes with --http\n")
