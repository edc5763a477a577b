"""Argument checks shared by the person's actions (the tools' arguments are checked by ``core.tools``)."""

from __future__ import annotations

from typing import Any

from ...core.errors import ArgumentError


def require_str(args: dict[str, Any], name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        raise ArgumentError(f"argument {name!r} must be a string")
    return value
