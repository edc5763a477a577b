"""A bridge connection: who is on the other end, and how to reach them."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from ..core.actor import Actor
from ..core.ids import new_id
from ..protocol.jsontypes import JSONObject

Role = Literal["agent", "person"]
SendFn = Callable[[JSONObject], Awaitable[None]]


@dataclass
class Connection:
    """``agent``: an MCP server (tool requests only). ``person``: a UI page or the CLI."""

    role: Role
    principal: str | None
    send: SendFn
    id: str = field(default_factory=lambda: new_id("conn"))
    window: str | None = None
    #: the name the agent's MCP client gave itself, cleaned (display only: never who the connection is)
    client_name: str | None = None
    #: whether it is sent the agents' change notifications (:mod:`vmark.protocol.agent_events`)
    hears: bool = False
    _replies: dict[str, asyncio.Future[JSONObject]] = field(default_factory=dict)
    _counter: itertools.count[int] = field(default_factory=itertools.count)

    @property
    def actor(self) -> Actor:
        """Who is on the other end, as every record of what it does names it."""
        return Actor(self.role, self.principal, self.id, self.client_name)

    @property
    def requester(self) -> str:
        """Who the connection is (its principal, else the connection itself): what ownership is checked against."""
        return self.actor.requester

    @property
    def label(self) -> str:
        """How the person sees the agent: ``claude-code (laptop)`` (see :attr:`Actor.label`)."""
        return self.actor.label

    async def ask(self, event: str, payload: JSONObject, timeout: float) -> JSONObject | None:
        """Send an event that wants a ``ui.reply``; ``None`` if none came in time."""
        request_id = f"q{next(self._counter)}"
        future: asyncio.Future[JSONObject] = asyncio.get_running_loop().create_future()
        self._replies[request_id] = future
        try:
            await self.send({"type": "event", "event": event, "requestId": request_id, "payload": payload})
            return await asyncio.wait_for(future, timeout)
        except (TimeoutError, ConnectionError):
            return None
        finally:
            self._replies.pop(request_id, None)

    def reply(self, request_id: str, payload: JSONObject) -> bool:
        future = self._replies.get(request_id)
        if future is None or future.done():
            return False
        future.set_result(payload)
        return True
