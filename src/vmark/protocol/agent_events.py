"""The bridge's change notification for agents, and how an agent's MCP server asks for it.

The app sends ``{"type": "event", "event": "agent_notify", "payload": {updated, resourcesListChanged,
promptsListChanged}}`` to the agent connections that hear: those whose ``auth`` carried ``"hears": true``, or
that sent a ``hear`` frame since (``{"id", "type": "hear", "payload": {}}``, answered ``{"hears": true}``). A
``vmark mcp`` asks once one of its clients may want to hear (it listed resources or prompts, subscribed or
listens); one that only calls tools is sent nothing, so a write does not build, send and parse an event
for every agent connected.
"""

from __future__ import annotations

#: the event's name on the bridge (``vmark.app.agent_feed`` sends it, ``vmark.mcp.notify`` hears it)
AGENT_NOTIFY = "agent_notify"

#: the frame an agent connection sends to be sent :data:`AGENT_NOTIFY` from now on (until it closes)
HEAR_FRAME = "hear"

#: the ``auth`` payload's key that asks for the same from the start (a reconnect of a connection that heard)
HEARS_KEY = "hears"
