"""The ``.vmark/`` folder of a workspace: created only when provenance tracking is switched on.

``ledger/`` holds one append-only JSONL file per writer (and ``quarantine/`` for lines that are
not records), ``snapshots/sha256/`` content-addressed texts, ``contexts/`` the person's context
files. ``index.db`` is derived from the ledger, so git ignores it; ledger files are merged by
union, since two branches only ever add lines to them.
"""

from __future__ import annotations

from pathlib import Path

from ..storage.atomic import fsync_dir, write_atomic

VMARK_DIR = ".vmark"

# index.db is derived; .*.vmark-tmp (.*.tmp before) are the temp files of atomic writes a crash left behind.
_GITIGNORE = "index.db\nindex.db-wal\nindex.db-shm\nindex.db-journal\n.*.tmp\n.*.vmark-tmp\n"
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
