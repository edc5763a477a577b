"""Finding the running app of a data directory: ``bridge.json`` read and its ``app.lock`` checked.

The client side of the bridge protocol's discovery (the MCP server, the command line, the tests' clients);
the app writes the file (:mod:`vmark.storage.datadir`) and both sides share its format
(:mod:`vmark.protocol.bridgefile`).
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

from ..protocol.bridgefile import LOCK_FILE, BridgeInfo, bridge_path, parse_bridge


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


def read_bridge(directory: Path) -> BridgeInfo | None:
    """The live app's bridge, or ``None`` when there is none (missing, malformed or stale)."""
    info = parse_bridge(read_bridge_file(directory))
    # A held lock alone is not enough: between a new app taking the lock and writing its own file, the file is
    # still a dead app's, and that app's process is gone.
    if info is None or not lock_is_held(directory) or not _process_exists(info.pid):
        return None
    return info


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True
