"""A change of a text as replaced spans: the value types (what they do is :mod:`vmark.core.changes`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """``start..end`` (code points of the text before) became ``insert``."""

    start: int
    end: int
    insert: str

    @property
    def delta(self) -> int:
        return len(self.insert) - (self.end - self.start)


Spans = tuple[Span, ...]
