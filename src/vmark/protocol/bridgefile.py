"""``bridge.json``'s format: how a ``vmark mcp`` (or any client) finds the running app of a data directory.

The app writes ``{port, token, pid, uiToken}`` (mode 0600, atomically) and holds an exclusive ``flock``
on ``app.lock`` for its lifetime; a ``bridge.json`` whose lock is free belongs to a dead app. This module
is the format only (pure: names, parse, serialize); :mod:`vmark.storage.datadir` writes the file and the
clients' :mod:`vmark.mcp.discovery` reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

BRIDGE_FILE = "bridge.json"
LOCK_FILE = "app.lock"


@dataclass(frozen=True)
class BridgeInfo:
    port: int
    token: str
    pid: int
    #: the UI page token (``uiToken``); empty in a bridge.json written before the UI existed
    ui_token: str = ""

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/bridge"

    @property
    def ui_url(self) -> str:
        """The address that opens the UI: the token is swapped for a cookie on the first request."""
        return f"http://127.0.0.1:{self.port}/?token={self.ui_token}"

    def to_json(self) -> dict[str, Any]:
        return {"port": self.port, "token": self.token, "pid": self.pid, "uiToken": self.ui_token}


def bridge_path(directory: Path) -> Path:
    return directory / BRIDGE_FILE


def parse_bridge(data: Any) -> BridgeInfo | None:
    if not isinstance(data, dict):
        return None
    try:
        return BridgeInfo(
            port=int(data["port"]),
            token=str(data["token"]),
            pid=int(data["pid"]),
            ui_token=str(data.get("uiToken", "")),
        )
    except (KeyError, TypeError, ValueError):
        return None
