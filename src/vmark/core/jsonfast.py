"""JSON text in one place, fast: the frames the app and ``vmark mcp`` send each other (and the app its events to
pages), and the compact JSON of a tool result that the MCP server sends and measures against its bound.

``orjson`` (a maintained PyPI package, Rust) writes a 1 MB document's JSON in under a millisecond, where the
standard library took 10 to 35 ms with ``ensure_ascii=False`` (a whole-document write paid it in each of two
processes, a 64 KB read several times). Its output is the standard library's compact JSON for every value a
frame or a result holds (strings with the same escapes, integers, dicts in order), except that a float prints
in its shortest form (``1e-05`` is ``1e-5``) and a NaN or infinity becomes ``null`` (as the MCP answer renders
it anyway). What it refuses goes to the standard library, with the same text as before: a lone surrogate
(UTF-8 cannot carry it), an integer beyond 64 bits, a key that is not a string. Decoding stays with
:func:`json.loads` (as fast for text-heavy JSON, and it hands a lone surrogate escape to the tools, which refuse
it with ``INVALID_TEXT``).
"""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - a dependency; the standard library writes the same JSON, slower
    orjson = None  # type: ignore[assignment]


def _fast(value: Any) -> bytes | None:
    if orjson is None:
        return None
    try:
        return orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        return None


def _slow(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def compact_json(value: Any) -> str:
    """Compact JSON text (no spaces), non-ASCII as is."""
    fast = _fast(value)
    return _slow(value) if fast is None else fast.decode("utf-8")


def compact_size(value: Any) -> int:
    """The UTF-8 bytes of :func:`compact_json` (a lone surrogate, which UTF-8 cannot carry, as three)."""
    fast = _fast(value)
    return len(_slow(value).encode("utf-8", "surrogatepass")) if fast is None else len(fast)


def encode_frame(message: Any) -> bytes:
    """``message`` as one UTF-8 JSON text; a lone surrogate travels as its ``\\uXXXX`` escape."""
    fast = _fast(message)
    if fast is not None:
        return fast
    try:
        return _slow(message).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(message, separators=(",", ":")).encode("ascii")
