"""What an agent read: the kernel's small value type (who a record is by is :class:`vmark.core.actor.Actor`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReadPin:
    """A document an agent read, as it read it (absolute path, text)."""

    path: str
    text: str
