"""What a command prints: results on stdout (``--json``: one line of JSON; else lines a script can cut on
tabs), and every refusal as one ``vmark: ...`` line on stderr with the exit code (1: the app or the disk
said no; 2: the command line itself is wrong).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

from ..protocol.errors import parse_wire_error


def say(message: str) -> None:
    """``vmark: MESSAGE`` on stderr (a refusal, or a warning beside a result)."""
    print(f"vmark: {message}", file=sys.stderr)


def fail(message: str, code: int = 1) -> int:
    """:func:`say` ``message``; returns ``code``, the exit code."""
    say(message)
    return code


def error_text(error: Any) -> str:
    """A refusal as one line: ``CODE: message`` for an envelope, the plain string otherwise."""
    parsed = parse_wire_error(str(error))
    if isinstance(parsed, dict):
        message = parsed.get("message")
        return f"{parsed['error']}: {message}" if message else str(parsed["error"])
    return parsed


def print_json(data: Any, *, ensure_ascii: bool = True) -> None:
    print(json.dumps(data, ensure_ascii=ensure_ascii))


def print_table(rows: Iterable[Iterable[object]]) -> None:
    """A line a row, its cells separated by tabs."""
    for row in rows:
        print("\t".join(str(cell) for cell in row))


def print_listing(as_json: bool, data: Any, rows: Iterable[Iterable[object]]) -> None:
    """A listing: with ``--json`` (``as_json``) ``data``, else ``rows`` (a generator: made only when printed)."""
    if as_json:
        print_json(data)
    else:
        print_table(rows)
