"""Reading documents and saving them atomically, inside a :class:`PathScope`.

Saves write a temp file beside the target (:func:`vmark.storage.atomic.write_temp`), fsync it,
rename it into place and fsync the directory, so a crash leaves the old or the new content and
nothing else. Every
file operation goes through a directory descriptor that is re-checked against the
scope after it is opened, so a directory swapped for a symlink in between is caught.

A save can be done in two halves: :func:`prepare_replace` writes and fsyncs the temp file (nothing is
visible yet, so an agent's write does it while its journal entry is being committed), and
:func:`save_replace` with that :class:`Temp` renames it into place once the save's turn comes, if it still
holds exactly the bytes to save at that path (else it is removed and a new temp written).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import re
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

from ..core.model import DiskStamp
from .atomic import TEMP_SUFFIX, sync_dir_fd, write_temp
from .pathscope import PathScope, ScopeError, fd_path

_RENAME_NOREPLACE = 1
_AT_FDCWD = -100
#: a temp file older than this process was left by a save whose app died before its rename
_STARTED_NS = time.time_ns()


class SaveError(Exception):
    """Writing to disk failed; the message is safe to show."""


def stamp_of(st: os.stat_result) -> DiskStamp:
    return DiskStamp(mtime_ns=st.st_mtime_ns, size=st.st_size, inode=st.st_ino)


def disk_stamp(path: str) -> DiskStamp | None:
    try:
        return stamp_of(os.stat(path))
    except OSError:
        return None


def is_read_only(st: os.stat_result) -> bool:
    """A file with no write bit for anyone is read-only, even for root."""
    return not (st.st_mode & 0o222)


def read_document(path: str, scope: PathScope) -> tuple[str, DiskStamp, bool]:
    """``(text, stamp, read_only)`` of an in-scope UTF-8 text file, or :class:`ScopeError`."""
    real = scope.resolve(path)
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        raise ScopeError(f"cannot open {path!r}: {exc.strerror}") from exc
    try:
        scope.check_fd(fd, real)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ScopeError(f"{path!r} is not a regular file")
        if st.st_nlink > 1:
            # Another name for this inode may live outside the scope.
            raise ScopeError(f"{path!r} has several hard links; refusing to open it")
        data = _read_all(fd)
    finally:
        os.close(fd)
    if b"\x00" in data:
        raise ScopeError(f"{path!r} is a binary file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScopeError(f"{path!r} is not UTF-8 text") from exc
    return text, stamp_of(st), is_read_only(st)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


@contextmanager
def _scoped_dir(real_path: str, scope: PathScope) -> Iterator[int]:
    directory = os.path.dirname(real_path)
    try:
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError as exc:
        if os.path.islink(directory):
            raise ScopeError(f"{directory!r} was replaced by a symlink") from exc
        raise SaveError(f"cannot open directory {directory!r}: {exc.strerror}") from exc
    try:
        scope.check_fd(dfd, directory)
        yield dfd
    finally:
        os.close(dfd)


def remove_stale_temps(real_path: str, scope: PathScope) -> int:
    """Remove the temp files that killed saves of ``real_path`` left beside it; return how many."""
    name = os.path.basename(real_path)
    pattern = re.compile(rf"\.{re.escape(name)}\.[0-9a-f]{{12}}{re.escape(TEMP_SUFFIX)}")
    removed = 0
    try:
        with _scoped_dir(real_path, scope) as dfd:
            for entry in os.listdir(dfd):
                if not pattern.fullmatch(entry):
                    continue
                with suppress(OSError):
                    st = os.stat(entry, dir_fd=dfd, follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode) and st.st_mtime_ns < _STARTED_NS:
                        os.unlink(entry, dir_fd=dfd)
                        removed += 1
    except (SaveError, ScopeError, OSError):
        pass
    return removed


def _write_temp(dfd: int, name: str, data: bytes, mode: int) -> str:
    return write_temp(name, data, mode, dir_fd=dfd)


def _mode_of(dfd: int, name: str) -> int:
    """The permission bits a replacement of ``name`` keeps: a regular file's (a swapped-in symlink's 0777 is
    not one), else 0644 for a new file."""
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return 0o644
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else 0o644


@dataclass
class Temp:
    """A temp file written and fsync'd beside ``real_path`` (in the folder open as ``dfd``), not yet renamed:
    the first half of a save, owned by whoever holds it until :func:`save_replace` or :func:`discard` takes it."""

    real_path: str
    data: bytes
    dfd: int
    name: str
    mode: int


def prepare_replace(real_path: str, data: bytes, scope: PathScope) -> Temp:
    """The first half of :func:`save_replace`: ``data`` in a new temp file beside ``real_path``, durable,
    with the target's permission bits; nothing at ``real_path`` changes."""
    try:
        with _scoped_dir(real_path, scope) as dfd:
            name = os.path.basename(real_path)
            mode = _mode_of(dfd, name)
            tmp = _write_temp(dfd, name, data, mode)
            return Temp(real_path, data, os.dup(dfd), tmp, mode)
    except ScopeError:
        raise
    except OSError as exc:
        raise SaveError(f"cannot save {real_path!r}: {exc.strerror or exc}") from exc


def discard(temp: Temp) -> None:
    """Remove a temp file that will not be renamed into place."""
    try:
        with suppress(FileNotFoundError):
            os.unlink(temp.name, dir_fd=temp.dfd)
    finally:
        os.close(temp.dfd)


def _fits(temp: Temp, real_path: str, data: bytes, scope: PathScope) -> bool:
    """``temp`` may become ``real_path`` now: the same bytes, its folder still that path's and in the scope,
    and the target's permission bits unchanged since the temp was made."""
    if temp.real_path != real_path or temp.data != data:
        return False
    if fd_path(temp.dfd) != os.path.dirname(real_path):
        return False
    try:
        scope.check_fd(temp.dfd, os.path.dirname(real_path))
    except ScopeError:
        return False
    return _mode_of(temp.dfd, os.path.basename(real_path)) == temp.mode


def save_replace(real_path: str, data: bytes, scope: PathScope, temp: Temp | None = None) -> DiskStamp:
    """Atomically replace (or create) ``real_path``, keeping its permission bits. ``temp`` (from
    :func:`prepare_replace`) is used when it still fits (:func:`_fits`), else removed; it is taken either way."""
    if temp is not None:
        try:
            fits = _fits(temp, real_path, data, scope)
        except OSError:
            fits = False
        if not fits:
            discard(temp)
            temp = None
    if temp is None:
        temp = prepare_replace(real_path, data, scope)
    try:
        name = os.path.basename(real_path)
        try:
            os.rename(temp.name, name, src_dir_fd=temp.dfd, dst_dir_fd=temp.dfd)
        except BaseException:
            os.unlink(temp.name, dir_fd=temp.dfd)
            raise
        sync_dir_fd(temp.dfd)
        return stamp_of(os.stat(name, dir_fd=temp.dfd, follow_symlinks=False))
    except OSError as exc:
        raise SaveError(f"cannot save {real_path!r}: {exc.strerror or exc}") from exc
    finally:
        os.close(temp.dfd)


def save_new(real_path: str, data: bytes, scope: PathScope) -> DiskStamp:
    """Create ``real_path`` atomically; ``FileExistsError`` if anything is there when it lands."""
    name = os.path.basename(real_path)
    try:
        with _scoped_dir(real_path, scope) as dfd:
            tmp = _write_temp(dfd, name, data, 0o644)
            try:
                _rename_no_replace(dfd, tmp, name)
            finally:
                with suppress(FileNotFoundError):
                    os.unlink(tmp, dir_fd=dfd)
            sync_dir_fd(dfd)
            return stamp_of(os.stat(name, dir_fd=dfd, follow_symlinks=False))
    except (ScopeError, FileExistsError):
        raise
    except OSError as exc:
        raise SaveError(f"cannot save {real_path!r}: {exc.strerror or exc}") from exc


def _rename_no_replace(dfd: int, src: str, dst: str) -> None:
    renameat2 = _renameat2()
    if renameat2 is not None:
        if renameat2(dfd, src.encode(), dfd, dst.encode(), _RENAME_NOREPLACE) == 0:
            return
        err = ctypes.get_errno()
        if err == errno.EEXIST:
            raise FileExistsError(errno.EEXIST, "file exists", dst)
        if err not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise OSError(err, os.strerror(err), dst)
    # link() never replaces an existing name; the temp name is removed by the caller.
    os.link(src, dst, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)


_renameat2_fn: object = None


def _renameat2() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    global _renameat2_fn
    if _renameat2_fn is None:
        _renameat2_fn = False
        lib = ctypes.util.find_library("c")
        if lib:
            libc = ctypes.CDLL(lib, use_errno=True)
            fn = getattr(libc, "renameat2", None)
            if fn is not None:
                fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                fn.restype = ctypes.c_int
                _renameat2_fn = fn
    return _renameat2_fn or None
