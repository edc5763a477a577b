"""Identifiers: revisions, tabs, workspace instances, approvals."""

from __future__ import annotations

import os
import secrets
import string
import time as _time
import uuid

_BASE62 = string.digits + string.ascii_letters


#: bytes below this map evenly onto the 62 characters (four times over); the others are drawn again
_EVEN = 256 - 256 % len(_BASE62)


def _random_base62(length: int) -> str:
    """Uniform base62 from the OS's randomness: one read for the whole id (a read per character, as
    ``secrets.choice`` does, cost more than the rest of a small write's review)."""
    chars: list[str] = []
    while len(chars) < length:
        chars += [_BASE62[b % len(_BASE62)] for b in secrets.token_bytes(length + 4) if b < _EVEN]
    return "".join(chars[:length])


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
