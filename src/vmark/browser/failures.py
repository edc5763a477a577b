"""Playwright's failures: the class its API raises, and what one says, told to a person: the first line (the rest
is its call log)."""

from __future__ import annotations

# The very class ``playwright.async_api.Error`` is (a unit test checks), from the small module that defines it:
# catching it must not import Playwright's API (about 130 ms of CPU), which the app loads at its first browser use.
from playwright._impl._errors import Error as PlaywrightError

__all__ = ["PlaywrightError", "first_line"]


def first_line(exc: BaseException, limit: int | None = 300) -> str:
    """The first line of ``exc``'s message (cut at ``limit`` characters), else its type's name."""
    text = str(exc).strip()
    return text.splitlines()[0][:limit] if text else type(exc).__name__
