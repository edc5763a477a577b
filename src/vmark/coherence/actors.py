"""Who a record is by, and what an agent read: the kernel's two small value types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Actor:
    """Who made a record: the person, an agent (by principal), or nobody known (an outside edit)."""

    kind: str
    principal: str | None = None

    def body(self) -> dict[str, Any]:
        return {"kind": self.kind, "principal": self.principal}


PERSON = Actor("person")
UNKNOWN = Actor("unknown")


@dataclass(frozen=True)
class ReadPin:
    """A document an agent read, as it read it (absolute path, text)."""

    path: str
    text: str
