"""Which files of a workspace changed since the last look: Linux inotify, like git's fsmonitor.

A long-lived kernel (the app's) answers a warm ``edges`` without stat-ing every file: the kernel scans
everything once, then asks :meth:`FolderWatch.changes` for the paths the kernel must look at again.
Anything the watch cannot vouch for (no inotify on this system, a queue overflow, a watch limit) answers
``None``, and the kernel walks the whole tree as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
import sys

_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
_IN_MODIFY = 0x2
_IN_ATTRIB = 0x4
_IN_CLOSE_WRITE = 0x8
_IN_MOVED_FROM = 0x40
_IN_MOVED_TO = 0x80
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000
_IN_ISDIR = 0x40000000
_MASK = (
    _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
    | _IN_DELETE_SELF | _IN_MOVE_SELF
)
_EVENT = struct.Struct("iIII")
_READ_BYTES = 64 * 1024


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1  # noqa: B018  (present?)
    except (OSError, AttributeError):
        return None
    return libc


class FolderWatch:
    """inotify watches on a set of folders; :meth:`changes` drains what happened since the last call."""

    def __init__(self) -> None:
        libc = _libc()
        if libc is None:
            raise OSError("inotify is not available here")
        fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self._libc, self._fd = libc, fd
        self._folders: dict[int, str] = {}  # watch descriptor -> the folder's relative prefix ("" or "a/b/")
        self._broken = False

    def add(self, path: str, prefix: str) -> None:
        """Watch the folder at ``path`` (its files are ``prefix + name``)."""
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(path), _MASK)
        if wd < 0:
            self._broken = True  # e.g. the watch limit: the next look walks everything
            return
        self._folders[wd] = prefix

    def changes(self) -> tuple[set[str], set[str]] | None:
        """``(paths, folders)`` that changed since the last call (folders: created or moved in, to scan
        and watch), or None when the watch cannot tell (overflow, a lost watch): then walk everything."""
        paths: set[str] = set()
        folders: set[str] = set()
        while True:
            try:
                data = os.read(self._fd, _READ_BYTES)
            except BlockingIOError:
                break
            except OSError:
                self._broken = True
                break
            if not data:
                break
            self._parse(data, paths, folders)
        if self._broken:
            self._broken = False
            return None
        return paths, folders

    def _parse(self, data: bytes, paths: set[str], folders: set[str]) -> None:
        offset = 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
            raw = data[offset + _EVENT.size : offset + _EVENT.size + length].rstrip(b"\0")
            offset += _EVENT.size + length
            if mask & _IN_Q_OVERFLOW:
                self._broken = True
                continue
            prefix = self._folders.get(wd)
            if mask & (_IN_IGNORED | _IN_DELETE_SELF | _IN_MOVE_SELF):
                self._folders.pop(wd, None)
                if prefix is not None and prefix != "":
                    self._broken = True  # a watched folder went away or moved: look at everything again
                continue
            if prefix is None or not raw:
                continue
            rel = prefix + os.fsdecode(raw)
            if mask & _IN_ISDIR:
                if mask & (_IN_CREATE | _IN_MOVED_TO):
                    folders.add(rel)
                elif mask & (_IN_MOVED_FROM | _IN_DELETE):
                    self._broken = True  # a folder went away: its files are gone from their paths
            else:
                paths.add(rel)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
