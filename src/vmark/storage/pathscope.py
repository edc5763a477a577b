"""Path scope: which files an agent may reach, decided in one place.

The scope is a set of canonical directories (a window's workspace roots and the
directories of its open documents). A requested path is canonicalized (symlinks,
``..``) and must lie inside one of them. Linux file systems are case- and
normalization-sensitive, so there we compare exact strings: folding case or Unicode
there would let ``cafe\\u0301`` pass for ``café``, which is another directory.

The always-readable locations live here too (:func:`readable_roots`), and what the person's
own picker may list (:func:`browsable`).
"""

from __future__ import annotations

import os
import stat
import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from ..protocol.errors import DomainError

_FOLDING_FS = sys.platform in ("darwin", "win32")


class ScopeError(Exception):
    """The path is malformed, unreadable or outside the scope (``INVALID_PATH``)."""

    def refusal(self, path: str) -> DomainError:
        """The one translation of a scope failure into the request's refusal: ``INVALID_PATH`` for ``path``."""
        return DomainError("INVALID_PATH", str(self), filePath=path)


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
        """The scope of ``directories``, canonical already (resolved once, when they were opened).

        They are deliberately not resolved again: a directory swapped for a symlink later
        must not carry the scope to wherever that symlink points.
        """
        roots = set()
        for directory in directories:
            if not isinstance(directory, str) or not os.path.isabs(directory) or "\x00" in directory:
                raise ScopeError(f"scope directory must be an absolute path: {directory!r}")
            roots.add(os.path.normpath(directory))
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
        _check_settled(real)
        return real

    def check_fd(self, fd: int, fallback: str) -> None:
        """Re-check an opened descriptor: defeats a component swapped after :meth:`resolve`."""
        actual = fd_path(fd) or os.path.realpath(fallback)
        if not self.contains(actual):
            raise ScopeError(f"{fallback!r} left the scope while it was opened")


def home_folder() -> str:
    """The person's home folder, canonical."""
    return os.path.realpath(os.path.expanduser("~"))


def readable_roots(configured: Iterable[object]) -> list[str]:
    """The always-readable locations (DECISIONS.md, "Files and scope"): the home folder and the folders of the
    ``readable_roots`` setting, canonical; an entry that is not an absolute path is ignored.

    The one rule for two questions: may an agent's ``open_workspace`` open a folder without the folder dialog,
    and what may the person's own picker list (these, plus the window's workspace roots and the folders the
    person granted: :func:`browsable`). The picker lists what the person could type anyway, and nothing more.
    """
    roots = [home_folder()]
    roots += [os.path.realpath(r) for r in configured if isinstance(r, str) and os.path.isabs(r) and "\x00" not in r]
    return roots


def browsable(configured: Iterable[object], granted: Iterable[str], workspace_roots: Iterable[str]) -> PathScope:
    """What the person's picker may list: the always-readable locations, the folders the person granted this
    session (``folder_access``) and the window's workspace roots."""
    return PathScope.of([*readable_roots(configured), *granted, *workspace_roots])


def _check_settled(real: str) -> None:
    """Refuse a path that did not resolve to a usable place: a symlink loop (left unresolved
    by ``realpath``), a name too long, or a parent that is not an existing directory."""
    try:
        parent = os.stat(os.path.dirname(real))
    except OSError as exc:
        raise ScopeError(f"the directory of {real!r} cannot be used: {exc.strerror}") from exc
    if not stat.S_ISDIR(parent.st_mode):
        raise ScopeError(f"the directory of {real!r} is not a directory")
    try:
        st = os.lstat(real)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ScopeError(f"{real!r} cannot be used: {exc.strerror}") from exc
    if stat.S_ISLNK(st.st_mode):
        raise ScopeError(f"{real!r} is a symlink that does not resolve (a loop)")


def fd_path(fd: int) -> str | None:
    """Where an open descriptor really points (Linux ``/proc``), or ``None`` elsewhere."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
