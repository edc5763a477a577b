"""Identifiers: revisions, tabs, workspace instances, approvals."""

from __future__ import annotations

import secrets
import string

_BASE62 = string.digits + string.ascii_letters


def _random_base62(length: int) -> str:
    return "".join(secrets.choice(_BASE62) for _ in range(length))


def new_revision() -> str:
    """``rev-`` + 8 base62 characters, fresh for every content change (never a content hash)."""
    return "rev-" + _random_base62(8)


def new_id(prefix: str) -> str:
    """``<prefix>-<random>``: ``tab``, ``wsi``, ``apr``, ``c``, ``r``, ``run``."""
    return f"{prefix}-{_random_base62(10)}"


def new_token() -> str:
    """A 256-bit secret, hex-encoded."""
    return secrets.token_hex(32)
