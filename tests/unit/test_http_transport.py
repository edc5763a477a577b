"""Parts of the Streamable HTTP transport: the bounded SSE event store, the listening socket."""

from __future__ import annotations

import mcp_types as types
import pytest
from mcp.server.streamable_http import EventMessage

from vmark.mcp.http.events import BoundedEventStore


def _note(n: int) -> types.JSONRPCMessage:
    return types.JSONRPCNotification(jsonrpc="2.0", method="notifications/progress", params={"n": n})


async def _replay(store: BoundedEventStore, after: str) -> tuple[str | None, list[tuple[str | None, int]]]:
    sent: list[EventMessage] = []

    async def collect(event: EventMessage) -> None:
        sent.append(event)

    stream = await store.replay_events_after(after, collect)
    return stream, [(e.event_id, e.message.params["n"]) for e in sent]  # type: ignore[union-attr,index]


async def test_replays_what_followed_on_the_same_stream_only() -> None:
    store = BoundedEventStore()
    priming = await store.store_event("a", None)
    a1 = await store.store_event("a", _note(1))
    await store.store_event("b", _note(2))
    a3 = await store.store_event("a", _note(3))
    assert await _replay(store, priming) == ("a", [(a1, 1), (a3, 3)])
    assert await _replay(store, a1) == ("a", [(a3, 3)])
    assert await _replay(store, a3) == ("a", [])
    assert await _replay(store, "unknown") == (None, [])


async def test_the_oldest_events_go_past_the_bound() -> None:
    store = BoundedEventStore(max_events=3)
    ids = [await store.store_event("s", _note(n)) for n in range(5)]
    assert await _replay(store, ids[0]) == (None, [])  # evicted: resumes nothing
    assert await _replay(store, ids[1]) == (None, [])
    assert await _replay(store, ids[2]) == ("s", [(ids[3], 3), (ids[4], 4)])
    with pytest.raises(ValueError):
        BoundedEventStore(max_events=0)


def test_the_listening_socket_is_tcp_so_asyncio_turns_nagle_off() -> None:
    """asyncio sets TCP_NODELAY on accepted sockets only when the listener's proto is IPPROTO_TCP."""
    import socket

    from vmark.mcp.http import bind

    sock = bind(0)
    try:
        assert (sock.family, sock.type, sock.proto) == (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        assert sock.getsockname()[0] == "127.0.0.1"
    finally:
        sock.close()
