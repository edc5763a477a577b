"""The ``.vmark/`` folder of a workspace: created only when provenance tracking is switched on.

``ledger/`` holds one append-only JSONL file per writer (and ``quarantine/`` for lines that are
not records), ``snapshots/sha256/`` content-addressed texts, ``contexts/`` the person's context
files. ``index.db`` is derived from the ledger, so git ignores it; ledger files are merged by
union, since two branches only ever add lines to them.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

VMARK_DIR = ".vmark"

# index.db is derived; .*.tmp are the temp files of atomic writes a crash left behind.
_GITIGNORE = "index.db\nindex.db-wal\nindex.db-shm\nindex.db-journal\n.*.tmp\n"
# Quarantine files are append-only too: two branches that quarantined different lines merge cleanly.
_GITATTRIBUTES = "ledger/*.jsonl merge=union\nledger/quarantine/* merge=union\n"
_DIRS = ("ledger", "ledger/quarantine", "snapshots/sha256", "contexts")


def vmark_dir_of(workspace_root: Path) -> Path:
    return workspace_root / VMARK_DIR


def is_initialized(workspace_root: Path) -> bool:
    return (vmark_dir_of(workspace_root) / "ledger").is_dir()


def init_layout(workspace_root: Path) -> Path:
    """Create ``.vmark/`` and its parts where missing (never touching what is there); return it."""
    root = vmark_dir_of(workspace_root)
    for name in _DIRS:
        (root / name).mkdir(parents=True, exist_ok=True)
    for name, text in ((".gitignore", _GITIGNORE), (".gitattributes", _GITATTRIBUTES)):
        if not (root / name).exists():
            write_atomic(root / name, text.encode("utf-8"))
    fsync_dir(root)
    fsync_dir(workspace_root)
    return root


def fsync_dir(path: Path) -> None:
    """Make a created, renamed or removed directory entry durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until all of ``data`` is written (a write may take fewer bytes than given)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_atomic(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` all at once: a reader sees the old bytes or the new, never a mix."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    fsync_dir(path.parent)
