"""Small JSON files (bridge.json, settings, principals) written atomically, mode 0600."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .atomic import write_atomic


def write_json(path: Path, data: Any, mode: int = 0o600) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(data, indent=2, sort_keys=True).encode("utf-8") + b"\n", mode)


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except (FileNotFoundError, ValueError):
        return None


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Serialize read-modify-write of ``path`` across processes (a ``.lock`` file beside it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def update_json(path: Path, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Apply ``change`` to the JSON object in ``path`` under :func:`exclusive`; return the result."""
    with exclusive(path):
        data = read_json(path)
        data = data if isinstance(data, dict) else {}
        change(data)
        write_json(path, data)
        return data
