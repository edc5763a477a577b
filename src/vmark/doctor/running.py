"""A running app, and a stale ``bridge.json``.

No app is fine (``vmark mcp`` starts one). An app that holds the data directory's lock must answer on
the port its ``bridge.json`` names, or every ``vmark mcp`` of this data directory hangs on it: that is
a needed check. A ``bridge.json`` with no app holding the lock is stale (its process is gone, or lives
on as something else); the next app replaces it, so that is advisory.
"""

from __future__ import annotations

import json
import os
import shlex
import urllib.request
from pathlib import Path
from typing import Any

from vmark.doctor.report import Check
from vmark.mcp.discovery import lock_is_held, read_bridge_file
from vmark.protocol.bridgefile import LOCK_FILE, bridge_path, parse_bridge

NAME = "app"
#: how long the app's ``/health`` may take to answer
HEALTH_TIMEOUT = 3.0


def health(port: int, timeout: float = HEALTH_TIMEOUT) -> dict[str, Any] | None:
    """The app's ``/health`` answer on ``port``, or None when nothing answers it (never through a proxy)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"http://127.0.0.1:{port}/health", timeout=timeout) as reply:
            data = json.loads(reply.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("ok") is True else None


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive
    return True


def check_app(directory: Path) -> Check:
    raw = read_bridge_file(directory)
    info = parse_bridge(raw)
    bridge = bridge_path(directory)
    if not lock_is_held(directory):
        if not bridge.exists():
            return Check(NAME, True, True, "no app running (vmark mcp starts one when a client connects)")
        if info is None:
            why = "it is not a bridge file"
        elif process_alive(info.pid):
            why = f"process {info.pid} holds no lock on {LOCK_FILE}: it is no vmark app of this data directory"
        else:
            why = f"its process {info.pid} is gone"
        rm = f"rm {shlex.quote(str(bridge))}"
        return Check(NAME, False, False, f"no app running; stale {bridge} ({why}; the next app replaces it)", rm)
    if info is None:
        lock = shlex.quote(str(directory / LOCK_FILE))
        return Check(
            NAME,
            True,
            False,
            f"an app holds {directory / LOCK_FILE} but {bridge} is missing or not a bridge file",
            f"fuser -k -TERM {lock} && vmark app",
        )
    answer = health(info.port)
    if answer is None:
        return Check(
            NAME,
            True,
            False,
            f"app pid {info.pid} holds the lock but port {info.port} does not answer",
            f"vmark stop (or: kill {info.pid}), then vmark app",
        )
    # One port serves both: the bridge ``vmark mcp`` connects to, and the editor UI.
    return Check(
        NAME,
        True,
        True,
        f"app running: pid {info.pid}, version {answer.get('version')}, port {info.port} "
        f"(bridge {info.url}, UI http://127.0.0.1:{info.port}/)",
    )
