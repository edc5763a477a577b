"""What the agents' MCP servers are told, so that their clients hear of it: a subscribed document changed
(``notifications/resources/updated``), the open tabs changed (``notifications/resources/list_changed``), the
person's prompts changed (``notifications/prompts/list_changed``).

The feed follows the session (an observer of ``Session.apply`` for every text change, by the person, an agent
or the disk; the session's state for tabs that come and go or move) and the prompts. What one loop turn
gathered goes out as one ``agent_notify`` event to every agent connection that hears
(:mod:`vmark.protocol.agent_events`); each MCP server passes on what its clients subscribed to. While none
hears, nothing is gathered: a write by an agent that only calls tools costs the feed nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ..core.transaction import Transaction
from ..protocol.agent_events import AGENT_NOTIFY
from .resources import file_uri, tab_uri
from .state import Session


class AgentFeed:
    def __init__(self, session: Session) -> None:
        self.session = session
        self._updated: dict[str, None] = {}
        self._resources_listed = False
        self._prompts_listed = False
        self._scheduled = False
        #: the tabs as last seen while an agent heard (None: none heard since, the next look is the baseline)
        self._listing: tuple[tuple[str, str | None, str], ...] | None = None

    def observe(self, tx: Transaction) -> None:
        """A document's text changed: each of its tabs' resources, and its file's."""
        if not self._heard():
            return
        doc = tx.doc
        for _window, tab in self.session.tabs_of(doc):
            self._updated[tab_uri(tab)] = None
        if doc.path is not None:
            self._updated[file_uri(doc.path)] = None
        self._schedule()

    def session_changed(self) -> None:
        """The session changed: when the tabs (or what they show) did, the list of resources did.

        An agent that starts to hear changes the session (``Session.agent_hears``), so the tabs it could have
        listed are the baseline its first notification is measured against."""
        if not self._heard():
            self._listing = None
            return
        listing = tuple((tab.id, tab.doc.path, tab.title) for _window, tab in self.session.tabs())
        if self._listing is None:
            self._listing = listing
        elif listing != self._listing:
            self._listing = listing
            self._resources_listed = True
            self._schedule()

    def prompts_changed(self) -> None:
        self._prompts_listed = True
        self._schedule()

    def _heard(self) -> bool:
        return bool(self.session.hearing_agents())

    def _schedule(self) -> None:
        if not self._heard():
            self._updated.clear()
            self._resources_listed = self._prompts_listed = False
            return
        if self._scheduled:
            return
        self._scheduled = True
        asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(self._flush()))

    async def _flush(self) -> None:
        self._scheduled = False
        payload: dict[str, Any] = {
            "updated": list(self._updated),
            "resourcesListChanged": self._resources_listed,
            "promptsListChanged": self._prompts_listed,
        }
        self._updated.clear()
        self._resources_listed = self._prompts_listed = False
        event = {"type": "event", "event": AGENT_NOTIFY, "payload": payload}
        for conn in self.session.hearing_agents():
            with contextlib.suppress(ConnectionError):
                await conn.send(event)
