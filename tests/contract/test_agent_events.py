"""The agents' change notifications go to the agent connections that hear (vmark.protocol.agent_events)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from tests.contract.helpers import person_open
from vmark.app.server import RunningApp
from vmark.mcp.bridge_client import BridgeClient
from vmark.testing.uiclient import UIClient

HEARD_WITHIN = 10.0


@asynccontextmanager
async def _agent(vmark: RunningApp) -> AsyncIterator[BridgeClient]:
    bridge = BridgeClient(vmark.data_dir, autostart=False)
    await bridge.connect()
    try:
        yield bridge
    finally:
        await bridge.close()


async def test_only_a_connection_that_hears_is_told_of_a_write(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    async with _agent(vmark) as quiet, _agent(vmark) as hearing:
        await hearing.hear()
        written = await quiet.request("vmark.document.write", {"tabId": tab, "content": "# A\n\nwritten\n"})
        assert written["success"] is True
        event = await asyncio.wait_for(hearing.events.get(), HEARD_WITHIN)
        assert event["event"] == "agent_notify"
        assert event["payload"] == {
            "updated": [f"vmark://tabs/{tab}", f"file://{opened}/a.md"],
            "resourcesListChanged": False,
            "promptsListChanged": False,
        }
        # The quiet connection's next answer comes after anything sent to it with the hearing one's event.
        assert (await quiet.request("vmark.session.get_state", {}))["success"] is True
        assert quiet.events.empty()
        assert hearing.events.empty()


async def test_a_connection_that_hears_again_after_a_reconnection_says_so_in_its_auth(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    async with _agent(vmark) as hearing:
        await hearing.hear()
        await hearing.close()
        await hearing.connect()
        (conn,) = [c for c in vmark.app.session.agents.values() if c.id == hearing.connection_id]
        assert conn.hears is True
        await hearing.request("vmark.document.write", {"tabId": tab, "content": "# A\n\nagain\n"})
        event = await asyncio.wait_for(hearing.events.get(), HEARD_WITHIN)
        assert event["payload"]["updated"] == [f"vmark://tabs/{tab}", f"file://{opened}/a.md"]
