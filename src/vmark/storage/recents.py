"""Recent folders and files, and the last workspace of the main window (``recents.json`` in the data directory).

What the person opened, most recent first, so the picker and an empty window can offer it again, and
``vmark app`` without a folder can reopen what the main window held. Changes are made in memory at once
(a listing right after an open already shows it) and written by :meth:`Recents.save`, off the event loop;
writes land in the order the changes were made, the file atomically (mode 0600).

Entries are canonical paths. Nothing is pruned when it disappears from the disk: a listing says which
entries are gone (a folder on an unplugged drive comes back), and the person may forget one.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..protocol.limits import MAX_RECENT_FILES, MAX_RECENT_FOLDERS
from ..protocol.wire_types import RecentEntry
from .atomic_json import read_json, write_json

RecentKind = Literal["folder", "file"]
#: a kind's key in the file and how many entries its list keeps
_KEYS: dict[RecentKind, tuple[str, int]] = {
    "folder": ("folders", MAX_RECENT_FOLDERS),
    "file": ("files", MAX_RECENT_FILES),
}


@dataclass(frozen=True)
class LastWorkspace:
    """The main window's workspace roots (in the order they were opened) and the one it showed."""

    roots: tuple[str, ...]
    active: str | None


class Recents:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._data = _clean(read_json(path))
        self._version = 0
        self._written = 0
        #: told after every change (the app starts a :meth:`save` off the loop)
        self.on_change: Callable[[], None] = lambda: None

    # --- changes (in memory; :attr:`on_change` starts the write) ------------------------------------------
    def opened(self, kind: RecentKind, path: str) -> None:
        """``path`` (canonical) was opened: it goes first in its list."""
        key, bound = _KEYS[kind]
        with self._lock:
            entries = [e for e in self._data[key] if e["path"] != path]
            self._data[key] = [{"path": path, "at": time.time()}, *entries][:bound]
            self._version += 1
        self.on_change()

    def main_workspaces(self, roots: list[str], active: str | None) -> None:
        """The main window now holds ``roots``, showing ``active``: what ``vmark app`` reopens."""
        with self._lock:
            self._data["lastWorkspace"] = {"roots": list(roots), "active": active}
            self._version += 1
        self.on_change()

    def forget(self, path: str) -> bool:
        """Take ``path`` off both lists; whether it was on one."""
        with self._lock:
            before = len(self._data["folders"]) + len(self._data["files"])
            for key in ("folders", "files"):
                self._data[key] = [e for e in self._data[key] if e["path"] != path]
            found = len(self._data["folders"]) + len(self._data["files"]) < before
            if found:
                self._version += 1
        if found:
            self.on_change()
        return found

    # --- reading --------------------------------------------------------------------------------------------
    def listing(self, kind: RecentKind) -> list[RecentEntry]:
        """The list of ``kind``, most recent first, each entry saying whether it is gone (this stats each path)."""
        key, _ = _KEYS[kind]
        with self._lock:
            entries = [dict(e) for e in self._data[key]]
        check = os.path.isdir if kind == "folder" else os.path.isfile
        return [{"path": e["path"], "openedAt": e["at"], "gone": not check(e["path"])} for e in entries]

    def last_workspace(self) -> LastWorkspace | None:
        with self._lock:
            last = self._data.get("lastWorkspace")
        if not last or not last["roots"]:
            return None
        return LastWorkspace(tuple(last["roots"]), last["active"])

    # --- the file ---------------------------------------------------------------------------------------------
    def save(self) -> None:
        """Write the current lists (blocking: run it in a thread). A write older than the last one is skipped."""
        with self._write_lock:
            with self._lock:
                version = self._version
                # lists and entries are replaced on change, never changed in place: a shallow copy is a snapshot
                snapshot = {"version": 1, **self._data}
            if version <= self._written:
                return
            write_json(self.path, snapshot)
            self._written = version


def _clean(data: Any) -> dict[str, Any]:
    """What a ``recents.json`` holds, keeping only well-formed entries (a damaged file starts the lists empty)."""
    data = data if isinstance(data, dict) else {}
    clean: dict[str, Any] = {}
    for key, bound in _KEYS.values():
        entries = data.get(key)
        kept = []
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and _is_path(entry.get("path")) and isinstance(entry.get("at"), int | float):
                kept.append({"path": entry["path"], "at": float(entry["at"])})
        clean[key] = kept[:bound]
    last = data.get("lastWorkspace")
    if isinstance(last, dict) and isinstance(last.get("roots"), list) and all(_is_path(r) for r in last["roots"]):
        active = last.get("active")
        clean["lastWorkspace"] = {"roots": list(last["roots"]), "active": active if _is_path(active) else None}
    return clean


def _is_path(value: object) -> bool:
    return isinstance(value, str) and os.path.isabs(value) and "\x00" not in value
