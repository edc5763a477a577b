"""The app data directory: where it is, the single-instance lock, writing ``bridge.json`` (its format is
:mod:`vmark.protocol.bridgefile`; clients read it with :mod:`vmark.mcp.discovery`), this installation's
coherence writer id.

``$VMARK_HOME`` or ``$XDG_DATA_HOME/vmark`` (``~/.local/share/vmark``). One app runs
per data directory: it holds an exclusive ``flock`` on ``app.lock`` for its lifetime,
so a ``bridge.json`` whose lock is free belongs to a dead app and is replaced.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from ..core.ids import uuid7
from ..protocol.bridgefile import LOCK_FILE, BridgeInfo, bridge_path
from .atomic import write_text_atomic
from .atomic_json import read_json, write_json


def data_dir() -> Path:
    home = os.environ.get("VMARK_HOME")
    if home:
        return Path(home)
    xdg = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(xdg) / "vmark"


class InstanceLock:
    """An exclusive lock on ``app.lock``; released by the kernel if the app dies."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def write_bridge(directory: Path, info: BridgeInfo) -> None:
    write_json(bridge_path(directory), info.to_json())


def remove_bridge(directory: Path, token: str) -> None:
    """Remove ``bridge.json`` only if it is still ours (a newer app may have replaced it)."""
    data = read_json(bridge_path(directory))
    if isinstance(data, dict) and data.get("token") == token:
        bridge_path(directory).unlink(missing_ok=True)


def installation_writer(directory: Path) -> str:
    """This installation's coherence writer id: a UUID kept in ``writer-id`` (made on first use)."""
    path = directory / "writer-id"
    try:
        text = path.read_text().strip()
        if len(text) == 36:
            return text
    except OSError:
        pass
    writer = uuid7()
    directory.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, writer + "\n")
    return path.read_text().strip()  # two first uses at once: both keep the one that landed last


__all__ = ["BridgeInfo", "InstanceLock", "bridge_path", "data_dir"]
