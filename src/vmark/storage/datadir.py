"""The app data directory: where it is, the single-instance lock, ``bridge.json``.

``$VMARK_HOME`` or ``$XDG_DATA_HOME/vmark`` (``~/.local/share/vmark``). One app runs
per data directory: it holds an exclusive ``flock`` on ``app.lock`` for its lifetime,
so a ``bridge.json`` whose lock is free belongs to a dead app and is replaced.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.atomic import write_text_atomic
from ..core.ids import uuid7
from .atomic_json import read_json, write_json


def data_dir() -> Path:
    home = os.environ.get("VMARK_HOME")
    if home:
        return Path(home)
    xdg = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(xdg) / "vmark"


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


class InstanceLock:
    """An exclusive lock on ``app.lock``; released by the kernel if the app dies."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "app.lock"
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


def lock_is_held(directory: Path) -> bool:
    path = directory / "app.lock"
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


def bridge_path(directory: Path) -> Path:
    return directory / "bridge.json"


def write_bridge(directory: Path, info: BridgeInfo) -> None:
    data = {"port": info.port, "token": info.token, "pid": info.pid, "uiToken": info.ui_token}
    write_json(bridge_path(directory), data)


def read_bridge(directory: Path) -> BridgeInfo | None:
    """The live app's bridge, or ``None`` when there is none (missing, malformed or stale)."""
    data: Any = read_json(bridge_path(directory))
    if not isinstance(data, dict):
        return None
    try:
        info = BridgeInfo(
            port=int(data["port"]),
            token=str(data["token"]),
            pid=int(data["pid"]),
            ui_token=str(data.get("uiToken", "")),
        )
    except (KeyError, TypeError, ValueError):
        return None
    if not lock_is_held(directory):
        return None
    return info


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
