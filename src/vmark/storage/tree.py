"""What a workspace's file tree shows: the files VMark opens under a root and its folders (relative, sorted).

Dot folders are not walked (except ``.github``, for workflows), nor ``node_modules`` and ``__pycache__``;
both listings stop at :data:`~vmark.protocol.limits.MAX_TREE_FILES` entries.
"""

from __future__ import annotations

import os

from ..core.kinds import kind_for_path
from ..protocol.limits import MAX_TREE_FILES
from ..protocol.wire_types import TreeFile

#: folders never walked (dot folders are skipped too, except ``.github`` for workflows)
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})


def list_files(root: str, limit: int = MAX_TREE_FILES) -> tuple[list[TreeFile], bool]:
    found: list[TreeFile] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if _walked(d))
        for name in sorted(names):
            path = os.path.join(folder, name)
            kind = kind_for_path(path)
            if kind is None:
                continue
            if len(found) >= limit:
                return found, True
            found.append({"path": os.path.relpath(path, root), "kind": kind})
    return found, False


def list_folders(root: str, limit: int = MAX_TREE_FILES) -> list[str]:
    """The folders the tree shows (empty ones too, so a new folder can take files), relative, sorted."""
    found: list[str] = []
    for folder, dirs, _names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if _walked(d))
        for name in dirs:
            if len(found) >= limit:
                return found
            found.append(os.path.relpath(os.path.join(folder, name), root))
    return found


def _walked(name: str) -> bool:
    return name not in SKIPPED_DIRS and (not name.startswith(".") or name == ".github")
