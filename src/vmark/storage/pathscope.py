"""Path scope: which files an agent may reach, decided in one place.

The scope is a set of canonical directories (a window's workspace roots and the
directories of its open documents). A requested path is canonicalized (symlinks,
``..``) and must lie inside one of them. Linux file systems are case- and
normalization-sensitive, so there we compare exact strings: folding case or Unicode
there would let ``cafe\\u0301`` pass for ``café``, which is another directory.
"""

from __future__ import annotations

import os
import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

_FOLDING_FS = sys.platform in ("darwin", "win32")


class ScopeError(Exception):
    """The path is malformed, unreadable or outside the scope (``INVALID_PATH``)."""


def canonical(path: object) -> str:
    """The canonical absolute form of a user-supplied path, or :class:`ScopeError`."""
    if not isinstance(path, str) or not path:
        raise ScopeError("path must be a non-empty string")
    if "\x00" in path:
        raise ScopeError("path contains a NUL byte")
    if not os.path.isabs(path):
        raise ScopeError(f"path must be absolute: {path!r}")
    try:
        return os.path.realpath(path, strict=False)
    except (OSError, ValueError) as exc:
        raise ScopeError(f"cannot resolve {path!r}: {exc}") from exc


def _comparable(path: str) -> str:
    if _FOLDING_FS:
        return os.path.normcase(unicodedata.normalize("NFC", path))
    return path


def is_within(path: str, root: str) -> bool:
    """True when canonical ``path`` is ``root`` or below it (no prefix collisions)."""
    p, r = _comparable(path), _comparable(root)
    if p == r:
        return True
    return p.startswith(r.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class PathScope:
    roots: tuple[str, ...]

    @classmethod
    def of(cls, directories: Iterable[str]) -> PathScope:
        roots = {canonical(d) for d in directories}
        return cls(tuple(sorted(roots)))

    def contains(self, real_path: str) -> bool:
        return any(is_within(real_path, root) for root in self.roots)

    def resolve(self, path: object) -> str:
        """Canonicalize ``path`` and check it lies in scope; :class:`ScopeError` otherwise."""
        if not self.roots:
            raise ScopeError("no workspace and no open document: there is no path scope")
        real = canonical(path)
        if not self.contains(real):
            raise ScopeError(f"{path!r} lies outside the open workspace and documents")
        return real

    def check_fd(self, fd: int, fallback: str) -> None:
        """Re-check an opened descriptor: defeats a component swapped after :meth:`resolve`."""
        actual = fd_path(fd) or os.path.realpath(fallback)
        if not self.contains(actual):
            raise ScopeError(f"{fallback!r} left the scope while it was opened")


def fd_path(fd: int) -> str | None:
    """Where an open descriptor really points (Linux ``/proc``), or ``None`` elsewhere."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
