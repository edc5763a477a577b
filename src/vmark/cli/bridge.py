"""Asking the running app as the person, over its bridge (the commands that work on the app's state)."""

from __future__ import annotations

from typing import Any


class Refused(Exception):
    """The app said no, or no app is running: ``vmark: ERROR`` on stderr, exit 1 (:func:`vmark.cli.main.main`)."""

    def __init__(self, error: Any) -> None:
        super().__init__(error)
        self.error = error


def ask(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The ``data`` of the app's answer to one request of the person's protocol; :class:`Refused` when it
    failed."""
    import asyncio

    from ..mcp.bridge_client import BridgeClient, BridgeUnavailable
    from ..storage.datadir import data_dir

    async def go() -> dict[str, Any]:
        client = BridgeClient(data_dir(), role="person", autostart=False)
        try:
            return await client.request(kind, payload)
        finally:
            await client.close()

    try:
        response = asyncio.run(go())
    except (BridgeUnavailable, ConnectionError) as exc:
        # No app (or it went away): a runtime failure (exit 1), not a usage error (exit 2).
        raise Refused(str(exc)) from exc
    if not response.get("success"):
        raise Refused(response.get("error"))
    data: dict[str, Any] = response["data"]
    return data
