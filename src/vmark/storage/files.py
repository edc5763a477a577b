"""Reading documents and saving them atomically, inside a :class:`PathScope`.

Saves write a temp file beside the target (:func:`vmark.storage.atomic.write_temp`), fsync it,
rename it into place and fsync the directory, so a crash leaves the old or the new content and
nothing else. Every
file operation goes through a directory descriptor that is re-checked against the
scope after it is opened, so a directory swapped for a symlink in between is caught.
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

from ..core.model import DiskStamp
from .atomic import TEMP_SUFFIX, write_temp
from .pathscope import PathScope, ScopeError

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


def save_replace(real_path: str, data: bytes, scope: PathScope) -> DiskStamp:
    """Atomically replace (or create) ``real_path``, keeping its permission bits."""
    name = os.path.basename(real_path)
    try:
        with _scoped_dir(real_path, scope) as dfd:
            try:
                st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            # Only a regular file has permission bits to keep (a swapped-in symlink's 0777 is not one).
            mode = stat.S_IMODE(st.st_mode) if st is not None and stat.S_ISREG(st.st_mode) else 0o644
            tmp = _write_temp(dfd, name, data, mode)
            try:
                os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
            except BaseException:
                os.unlink(tmp, dir_fd=dfd)
                raise
            os.fsync(dfd)
            return stamp_of(os.stat(name, dir_fd=dfd, follow_symlinks=False))
    except ScopeError:
        raise
    except OSError as exc:
        raise SaveError(f"cannot save {real_path!r}: {exc.strerror or exc}") from exc


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
            os.fsync(dfd)
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
