"""Change notifications for the clients of this MCP server: resources updated, resource and prompt lists changed.

The app tells the agents that hear what changed (an ``agent_notify`` event on the bridge: the resource URIs
whose text changed, and whether the open tabs or the prompts changed; :mod:`vmark.protocol.agent_events`). A
bridge connection hears once a client may want to (it asked for a list, subscribed or listens): one whose
clients only call tools is sent nothing. Each bridge connection has the clients
that hear through it: on stdio, the one client; over HTTP, a session's own bridge (one per ``Mcp-Session-Id``)
or, for the per-request protocol of 2026-07-28, the principal's. A client hears in the way of its protocol:

- 2025-11-25 and before: ``resources/subscribe`` / ``unsubscribe`` name the URIs; the session gets
  ``notifications/resources/updated`` for those, and ``notifications/resources/list_changed`` and
  ``notifications/prompts/list_changed`` once it has asked for a list or subscribed;
- 2026-07-28: ``subscriptions/listen`` (the SDK's :class:`ListenHandler`) is a stream of the kinds the client
  asked for, tagged with its subscription id.

The URIs a client subscribes to are checked first, as a read is (a path outside the scope is refused the same way).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..protocol.agent_events import AGENT_NOTIFY
from .bridge_client import BridgeClient

log = logging.getLogger(__name__)


@dataclass
class _Hearers:
    """Who hears through one bridge connection."""

    bus: InMemorySubscriptionBus = field(default_factory=InMemorySubscriptionBus)
    #: handshake-era sessions: the URIs each subscribed to (a session here hears of list changes too)
    sessions: dict[ServerSession, set[str]] = field(default_factory=dict)
    listen: ListenHandler = field(init=False)
    pump: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        self.listen = ListenHandler(self.bus)


class Notifier:
    def __init__(self) -> None:
        self._hearers: dict[BridgeClient, _Hearers] = {}

    def _of(self, bridge: BridgeClient) -> _Hearers:
        hearers = self._hearers.get(bridge)
        if hearers is None:
            hearers = self._hearers[bridge] = _Hearers()
            bridge.want_events()
            hearers.pump = asyncio.ensure_future(self._pump(bridge, hearers))
        return hearers

    def heard_by(self, bridge: BridgeClient, ctx: ServerRequestContext[Any]) -> None:
        """A client asked for something it may later want to hear about: a handshake-era session is kept."""
        hearers = self._of(bridge)
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            hearers.sessions.setdefault(ctx.session, set())

    def subscribe(self, bridge: BridgeClient, ctx: ServerRequestContext[Any], uri: str) -> None:
        self.heard_by(bridge, ctx)
        self._of(bridge).sessions[ctx.session].add(uri)

    def unsubscribe(self, bridge: BridgeClient, ctx: ServerRequestContext[Any], uri: str) -> None:
        self._of(bridge).sessions.get(ctx.session, set()).discard(uri)

    async def listen(
        self, bridge: BridgeClient, ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        await bridge.connect()  # the app's events come on the bridge: it must be open while the stream is
        hearers = self._of(bridge)
        await bridge.hear()
        return await hearers.listen(ctx, params)

    def forget(self, bridge: BridgeClient) -> None:
        """The bridge is closed (its HTTP session ended): nobody hears through it any more."""
        hearers = self._hearers.pop(bridge, None)
        if hearers is not None:
            hearers.listen.close()
            if hearers.pump is not None:
                hearers.pump.cancel()

    async def _pump(self, bridge: BridgeClient, hearers: _Hearers) -> None:
        while True:
            frame = await bridge.events.get()
            if frame.get("event") != AGENT_NOTIFY or not isinstance(frame.get("payload"), dict):
                continue
            try:
                await _deliver(hearers, frame["payload"])
            except Exception:  # one bad delivery must not end the hearing
                log.exception("delivering a change notification failed")


async def _deliver(hearers: _Hearers, payload: dict[str, Any]) -> None:
    updated = [u for u in payload.get("updated", []) if isinstance(u, str)]
    for uri in updated:
        await hearers.bus.publish(ResourceUpdated(uri))
    if payload.get("resourcesListChanged"):
        await hearers.bus.publish(ResourcesListChanged())
    if payload.get("promptsListChanged"):
        await hearers.bus.publish(PromptsListChanged())
    for session, uris in list(hearers.sessions.items()):
        try:
            for uri in updated:
                if uri in uris:
                    await session.send_resource_updated(uri)
            if payload.get("resourcesListChanged"):
                await session.send_resource_list_changed()
            if payload.get("promptsListChanged"):
                await session.send_prompt_list_changed()
        except Exception:  # the session is gone (its stream closed): it hears no more
            with contextlib.suppress(KeyError):
                del hearers.sessions[session]
