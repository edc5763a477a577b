"""Shared tools of the security suites: exact pictures of directory trees on disk."""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: relative path -> (kind, payload): file bytes and mode, link target, or just the kind.
Entry = tuple[str, bytes | str | int]
Tree = dict[str, Entry]


def _entry(path: str) -> Entry:
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return ("link", os.readlink(path))
    if stat.S_ISREG(st.st_mode):
        # Never opens anything but a regular file: a FIFO must not block the picture.
        with open(path, "rb") as handle:
            return ("file", handle.read() + b"|mode=" + oct(stat.S_IMODE(st.st_mode)).encode())
    if stat.S_ISDIR(st.st_mode):
        return ("dir", stat.S_IMODE(st.st_mode))
    return ("other", stat.S_IFMT(st.st_mode))


def snapshot(root: Path, skip: frozenset[str] = frozenset()) -> Tree:
    """Every entry below ``root`` (symlinks not followed), except top-level names in ``skip``."""
    tree: Tree = {}
    for current, dirs, files in os.walk(root, followlinks=False):
        rel_dir = os.path.relpath(current, root)
        if rel_dir == ".":
            dirs[:] = [d for d in dirs if d not in skip]
            files = [f for f in files if f not in skip]
        for name in [*dirs, *files]:
            rel = os.path.normpath(os.path.join(rel_dir, name))
            tree[rel] = _entry(os.path.join(current, name))
    return tree


def tree_diff(before: Tree, after: Tree) -> list[str]:
    """Human-readable differences between two pictures (empty when identical)."""
    lines = [f"+ {p}" for p in sorted(after.keys() - before.keys())]
    lines += [f"- {p}" for p in sorted(before.keys() - after.keys())]
    lines += [f"~ {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]]
    return lines


def write_files(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
