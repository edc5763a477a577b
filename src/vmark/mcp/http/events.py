"""The SSE event store of ``vmark mcp --http``: what a client that lost a stream can ask for again.

Every message sent on a session's SSE streams is kept here under an event id, so a client that
reconnects with ``Last-Event-ID`` gets what it missed on that stream, in order. It lives in memory and
holds at most :data:`MAX_EVENTS` messages over all streams: the oldest go first, and an id that has
gone (or never was) resumes nothing.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict

import mcp_types as types
from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId

#: a few thousand messages: several minutes of a busy session, a bounded few MB for most answers
MAX_EVENTS = 4096


class BoundedEventStore(EventStore):
    def __init__(self, max_events: int = MAX_EVENTS) -> None:
        if max_events <= 0:
            raise ValueError("max_events must be positive")
        self.max_events = max_events
        self._ids = itertools.count(1)
        self._events: OrderedDict[EventId, tuple[StreamId, types.JSONRPCMessage | None]] = OrderedDict()

    async def store_event(self, stream_id: StreamId, message: types.JSONRPCMessage | None) -> EventId:
        event_id = str(next(self._ids))
        self._events[event_id] = (stream_id, message)
        while len(self._events) > self.max_events:
            self._events.popitem(last=False)
        return event_id

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        found = self._events.get(last_event_id)
        if found is None:
            return None
        stream_id = found[0]
        after = False
        # A snapshot: sending may await while new events arrive (those go out live on the resumed stream).
        for event_id, (stream, message) in list(self._events.items()):
            if after and stream == stream_id and message is not None:  # None: a priming event, nothing to resend
                await send_callback(EventMessage(message, event_id))
            after = after or event_id == last_event_id
        return stream_id
