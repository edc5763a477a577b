"""The one atomic write: a temp file created beside the target with ``O_EXCL``, written whole, fsync'd,
renamed over the target, and the directory fsync'd, so a crash leaves the old bytes or the new and
nothing else (a reader never sees a mix).

A directory's fsync is shared by concurrent writers (:func:`sync_dir_fd`): one fsync that starts after a
rename makes that rename durable, so writers whose renames in one folder were done before an fsync started
are all answered by it, and at most one fsync of a folder runs at a time.

Every file VMark replaces goes through here: documents (``storage.files``, which adds the path scope and
the no-clobber rename on top of :func:`write_temp`), the small JSON files of the data directory, the
coherence layer's files, the MCP client configs ``vmark mcp install`` writes (:mod:`vmark.storage.client_configs`)
and the session vault (the browser package, which imports only ``core``, is handed this write by the app).
"""

from __future__ import annotations

import os
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path

#: temp files end so: ``.<name>.<12 hex>.vmark-tmp`` beside the target
TEMP_SUFFIX = ".vmark-tmp"


def temp_name(name: str) -> str:
    """A fresh temp name beside ``name`` (hidden, unguessable, recognisable as ours)."""
    return f".{name}.{secrets.token_hex(6)}{TEMP_SUFFIX}"


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until all of ``data`` is written (a write may take fewer bytes than given)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Make a created, renamed or removed directory entry durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        sync_dir_fd(fd)
    finally:
        os.close(fd)


@dataclass
class _Folder:
    """The fsyncs of one folder: ``started`` counts the fsyncs begun, ``done`` the last one that returned."""

    cond: threading.Condition = field(default_factory=threading.Condition)
    started: int = 0
    done: int = 0
    running: bool = False
    #: the last fsync that failed and its error: every writer it was to answer gets the error
    failed: int = 0
    error: OSError | None = None


_folders: dict[tuple[int, int], _Folder] = {}
_folders_lock = threading.Lock()


def sync_dir_fd(fd: int) -> None:
    """Make every directory entry changed in the open folder ``fd`` before this call durable.

    An fsync already running may have started before the caller's rename, so it does not count; the next one
    does, and it answers every caller that arrived while the previous one ran (group commit): with N writers
    in one folder, two fsyncs in a row at most instead of N."""
    st = os.fstat(fd)
    with _folders_lock:
        folder = _folders.setdefault((st.st_dev, st.st_ino), _Folder())
    with folder.cond:
        needed = folder.started + 1  # the first fsync to start from now on covers this caller's changes
        while folder.done < needed:
            if folder.failed >= needed and folder.error is not None:
                raise folder.error
            if folder.running:
                folder.cond.wait()
                continue
            folder.running = True
            folder.started += 1
            mine = folder.started
            folder.cond.release()
            error: OSError | None = None
            try:
                os.fsync(fd)
            except OSError as exc:
                error = exc
            finally:
                folder.cond.acquire()
                folder.running = False
                if error is None:
                    folder.done = mine
                else:
                    folder.failed, folder.error = mine, error
                folder.cond.notify_all()


def write_temp(name: str, data: bytes, mode: int, *, dir_fd: int | None = None) -> str:
    """Create a new temp file beside ``name`` (``O_EXCL``, never following a symlink) holding ``data``
    with exactly ``mode`` (an umask cannot narrow it, an old file cannot widen it), fsync'd; its name
    (relative to ``dir_fd`` when given, else in ``name``'s directory)."""
    folder, base = os.path.split(name)
    tmp = temp_name(base)
    path = tmp if dir_fd is not None else os.path.join(folder, tmp)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, mode, dir_fd=dir_fd)
    try:
        os.fchmod(fd, mode)
        write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(path, dir_fd=dir_fd)
        raise
    os.close(fd)
    return path


def write_atomic(path: str | os.PathLike[str], data: bytes, mode: int = 0o644) -> None:
    """Replace (or create) ``path`` with ``data`` all at once, with permission bits ``mode``."""
    target = Path(path)
    tmp = write_temp(str(target), data, mode)
    try:
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise
    fsync_dir(target.parent)


def write_text_atomic(path: str | os.PathLike[str], text: str, mode: int = 0o644) -> None:
    """:func:`write_atomic` of ``text`` as UTF-8."""
    write_atomic(path, text.encode("utf-8"), mode)
