"""Identifiers: revisions, tabs, workspace instances, approvals."""

from __future__ import annotations

import os
import secrets
import string
import time as _time
import uuid

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


def uuid7(now_ms: int | None = None) -> str:
    """A UUIDv7: 48-bit Unix milliseconds, then random bits (RFC 9562)."""
    ms = int(_time.time() * 1000) if now_ms is None else now_ms
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 64) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))
