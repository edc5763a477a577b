"""The data directory: there (or creatable), ours to write, and its secrets not open to others.

It holds the client tokens (``principals.json``), the bridge token (``bridge.json``) and maybe the
file vault; each is written 0600. A directory others may write lets them replace ``bridge.json`` and
steer ``vmark mcp`` to their own server, so that fails like a secret readable by others does.
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Callable
from pathlib import Path

from vmark.doctor.report import Check

#: the files of the data directory that hold a secret
SECRET_FILES = ("principals.json", "bridge.json", "session-vault.json")


def check_data_dir(directory: Path, access: Callable[[Path, int], bool] = os.access) -> Check:
    """``access``: :func:`os.access` (which the tests, run as root, replace to see a refusal)."""
    name, where = "data directory", shlex.quote(str(directory))
    if not directory.exists():
        parent = _nearest_existing(directory)
        if access(parent, os.W_OK | os.X_OK):
            return Check(name, True, True, f"{directory} (not created yet: the app creates it on its first start)")
        return Check(
            name,
            True,
            False,
            f"{directory} does not exist and {parent} is not writable",
            f"mkdir -p {where} && chmod 700 {where} (as a user who may), or set VMARK_HOME to a writable directory",
        )
    if not directory.is_dir():
        return Check(name, True, False, f"{directory} is not a directory", "set VMARK_HOME to a directory")
    mode = stat.S_IMODE(directory.stat().st_mode)
    if not access(directory, os.R_OK | os.W_OK | os.X_OK):
        return Check(name, True, False, f"{directory} (mode {mode:04o}) is not writable by you", f"chmod u+rwx {where}")
    if mode & 0o022:
        return Check(
            name, True, False, f"{directory} (mode {mode:04o}) is writable by other users", f"chmod go-w {where}"
        )
    open_secrets = [p for p in (directory / f for f in SECRET_FILES) if p.is_file() and p.stat().st_mode & 0o077]
    if open_secrets:
        listed = ", ".join(f"{p.name} (mode {stat.S_IMODE(p.stat().st_mode):04o})" for p in open_secrets)
        files = " ".join(shlex.quote(str(p)) for p in open_secrets)
        return Check(name, True, False, f"{directory}: other users may read {listed}", f"chmod 600 {files}")
    return Check(name, True, True, f"{directory} (mode {mode:04o}, writable, secrets 0600)")


def _nearest_existing(path: Path) -> Path:
    for parent in path.parents:
        if parent.exists():
            return parent
    return Path(path.anchor)
