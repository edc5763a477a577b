"""The connection guard on its own, spoken to as a browser speaks to a proxy."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import pytest

from tests.browser.localsite import Policy
from vmark.browser.netguard import NetGuard


@pytest.fixture
def policy() -> Policy:
    return Policy()


@pytest.fixture
async def guard(policy: Policy) -> AsyncIterator[NetGuard]:
    guard = NetGuard(policy.check)
    await guard.start()
    yield guard
    await guard.stop()


@pytest.fixture
async def upstream() -> AsyncIterator[tuple[int, list[bytes]]]:
    """A server that records what it receives and answers like a tiny keep-alive HTTP server."""
    received: list[bytes] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        data = await reader.read(65536)
        received.append(data)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    yield server.sockets[0].getsockname()[1], received
    server.close()


async def _exchange(guard: NetGuard, request: bytes) -> bytes:
    port = int(guard.url.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    answer = await reader.read(65536)
    writer.close()
    return answer


async def test_a_tunnel_to_an_allowed_address(guard: NetGuard, upstream: tuple[int, list[bytes]]) -> None:
    port, received = upstream
    guard_port = int(guard.url.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", guard_port)
    writer.write(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    assert await reader.readuntil(b"\r\n\r\n") == b"HTTP/1.1 200 Connection Established\r\n\r\n"
    writer.write(b"hello")
    assert await reader.read(65536) == b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok"
    writer.close()
    assert received == [b"hello"]
    assert list(guard.refusals) == []


async def test_refused_tunnels_name_the_reason(
    guard: NetGuard, policy: Policy, upstream: tuple[int, list[bytes]]
) -> None:
    port, received = upstream
    refused = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    assert await _exchange(guard, f"CONNECT localhost:{port} HTTP/1.1\r\n\r\n".encode()) == refused
    policy.allow_private, policy.rebinding = False, True  # names pass, the addresses they resolve to do not
    assert await _exchange(guard, f"CONNECT localhost:{port} HTTP/1.1\r\n\r\n".encode()) == refused
    assert [(r.url, r.reason, r.detail) for r in guard.refusals] == [
        (f"https://localhost:{port}/", "localhost", "localhost names this computer"),
        (f"https://localhost:{port}/", "loopback", "localhost resolved to 127.0.0.1 is a loopback address"),
    ]
    assert received == []


async def test_plain_http_is_forwarded_once_and_closed(guard: NetGuard, upstream: tuple[int, list[bytes]]) -> None:
    port, received = upstream
    request = (
        f"GET http://127.0.0.1:{port}/a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Proxy-Connection: keep-alive\r\nConnection: keep-alive\r\n\r\n"
    )
    answer = await _exchange(guard, request.encode())
    assert answer == b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
    assert received == [f"GET /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()]


async def test_an_unreachable_target_is_recorded_as_a_failure(guard: NetGuard) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert await _exchange(guard, f"GET http://127.0.0.1:{port}/x HTTP/1.1\r\n\r\n".encode()) == b""
    [failure] = guard.refusals
    assert (failure.reason, failure.refused) == ("unreachable", False)
    assert failure.detail == f"could not connect to 127.0.0.1:{port} (ConnectionRefusedError)"
