"""``bridge.json``: how a ``vmark mcp`` (or any client) finds the running app of a data directory.

The app writes ``{port, token, pid, uiToken}`` (mode 0600, atomically) and holds an exclusive ``flock``
on ``app.lock`` for its lifetime; a ``bridge.json`` whose lock is free belongs to a dead app. This is
the discovery half of the bridge protocol, shared by the app (``storage.datadir`` writes it) and the MCP
server (which may import only ``core``); like :mod:`vmark.core.atomic` it is stdlib-only file access.
"""

from __future__ import annotations

import fcntl
import json
import os
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


def lock_is_held(directory: Path) -> bool:
    """Whether an app holds the data directory's instance lock now."""
    path = directory / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def read_bridge_file(directory: Path) -> Any:
    """The JSON in ``bridge.json`` as it is (None when missing or not JSON), live or not."""
    try:
        return json.loads(bridge_path(directory).read_text("utf-8"))
    except (FileNotFoundError, ValueError):
        return None


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


def read_bridge(directory: Path) -> BridgeInfo | None:
    """The live app's bridge, or ``None`` when there is none (missing, malformed or stale)."""
    info = parse_bridge(read_bridge_file(directory))
    if info is None or not lock_is_held(directory):
        return None
    return info
