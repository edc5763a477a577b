"""What Playwright's failures say, told to a person: the first line (the rest is its call log)."""

from __future__ import annotations


def first_line(exc: BaseException, limit: int | None = 300) -> str:
    """The first line of ``exc``'s message (cut at ``limit`` characters), else its type's name."""
    text = str(exc).strip()
    return text.splitlines()[0][:limit] if text else type(exc).__name__
