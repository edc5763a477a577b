"""Content snapshots: texts stored by the sha256 of their UTF-8 bytes, ``snapshots/sha256/ab/cdef...``.

A snapshot never changes once written (its name is its content), so writing one that is there
is a no-op, and a file whose bytes no longer hash to its name is damaged: it reads as missing
and the next ``put`` of that text writes it again.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..storage.atomic import write_atomic

_DIGEST = re.compile(r"[0-9a-f]{64}")


class SnapshotStore:
    def __init__(self, vmark_dir: Path) -> None:
        self.vmark_dir = vmark_dir
        self.dir = vmark_dir / "snapshots" / "sha256"

    def put(self, text: str) -> str:
        """Store ``text``; return its sha256 hex."""
        data = text.encode("utf-8")
        digest = hashlib.sha256(data).hexdigest()
        if self._read(digest) is None:
            path = self._path(digest)
            # .vmark/ must exist (tracking is on); only the store's own folders are made here.
            if not self.vmark_dir.is_dir():
                raise FileNotFoundError(f"{self.vmark_dir} does not exist: coherence tracking is off")
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, data)
        return digest

    def get(self, digest: str) -> str | None:
        """The text stored under ``digest``; None if there is none or it is damaged."""
        data = self._read(digest)
        try:
            return None if data is None else data.decode("utf-8")
        except UnicodeDecodeError:  # a file put there by hand, not by put(): not a text
            return None

    def has(self, digest: str) -> bool:
        return self._read(digest) is not None

    def _path(self, digest: str) -> Path:
        if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
            raise ValueError(f"not a sha256 digest (64 lowercase hex): {digest!r}")
        return self.dir / digest[:2] / digest[2:]

    def _read(self, digest: str) -> bytes | None:
        """The bytes under ``digest`` if they are intact (hash to it)."""
        try:
            data = self._path(digest).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        return data if hashlib.sha256(data).hexdigest() == digest else None
