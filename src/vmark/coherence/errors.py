"""What the kernel refuses: plain argument errors, and an edge that no longer needs resolving."""

from __future__ import annotations


class CoherenceError(ValueError):
    """A request the kernel refuses; the message says why (a plain argument error)."""


class EdgeNotLive(CoherenceError):
    """The edge exists but is no longer live, or no longer needs resolving."""

    def __init__(self, message: str, state: str | None) -> None:
        super().__init__(message)
        self.state = state
