"""Ledger records: the one shape every line of ``.vmark/ledger/<writer>.jsonl`` has.

A record is ``{format, id, kind, time, writer, idem, body}``. ``id`` is a UUIDv7, so sorting
by ``(time, id)`` orders records from several writers the same way on every machine. Kinds
this version knows have a checked body; a kind it does not know is kept as it is (a newer
writer's record) and ignored by the projection.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..core.ids import uuid7

__all__ = ["uuid7"]  # re-exported: records are identified by UUIDv7

FORMAT = 1

#: The kinds this version reads, and the body fields each one must carry (name -> type).
KNOWN_KINDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    # first capture of a file: the object's identity is born at this path
    "object": {"object": str, "path": str},
    # the object now lives at another path (a rename seen by a scan or a save)
    "move": {"object": str, "path": str},
    # a content revision: rev = rev1:sha256(content + sorted parents); cause says who minted it
    "revision": {"object": str, "rev": str, "content": str, "parents": list, "path": str, "cause": str},
    # a transformation: outputs derived from inputs (the edges) by an agent or the person
    "txf": {"outputs": list, "inputs": list, "agent": dict, "tool": str},
    # accept-newer: the edge (txf, input) now pins upstream_rev
    "ratify": {"txf": str, "input": int, "upstream_rev": str, "by": dict},
    # waive: the edge stays as it is at upstream_rev, for a reason, until expires (None: never)
    "waive": {"txf": str, "input": int, "upstream_rev": str, "reason": str, "by": dict},
    # a semantic check of an edge between two exact revisions under one claim set
    "check": {
        "txf": str,
        "input": int,
        "upstream_rev": str,
        "downstream_rev": str,
        "claims": str,
        "verdict": str,
        "checker": str,
    },
    # a version of a canon claim (the newest record of a claim id is its current state)
    "claim": {"claim": str, "statement": str, "maturity": str},
}

REVISION_CAUSES = ("save", "write", "external", "capture")
VERDICTS = ("valid", "contradicted", "unknown")
MATURITIES = ("draft", "established")


class MalformedRecord(ValueError):
    """A ledger line that is not a record (quarantined by the reader, never a crash)."""


def utc_now() -> str:
    """RFC 3339 UTC time with milliseconds, the ``time`` of new records."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(text: str) -> float:
    """Seconds since the epoch of an RFC 3339 ``time``; ``MalformedRecord`` if it is not one."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError) as exc:
        raise MalformedRecord(f"bad time {text!r}") from exc
    if moment.tzinfo is None:
        raise MalformedRecord(f"time without zone {text!r}")
    return moment.timestamp()


@dataclass(frozen=True)
class Record:
    kind: str
    body: dict[str, Any]
    writer: str
    id: str = field(default_factory=uuid7)
    time: str = field(default_factory=utc_now)
    idem: str | None = None
    format: int = FORMAT

    @property
    def known(self) -> bool:
        return self.kind in KNOWN_KINDS

    @property
    def sort_key(self) -> tuple[str, str]:
        return (self.time, self.id)

    def to_line(self) -> str:
        """One JSON line (no newline): compact, keys sorted, so equal records give equal bytes."""
        data = {
            "body": self.body,
            "format": self.format,
            "id": self.id,
            "idem": self.idem,
            "kind": self.kind,
            "time": self.time,
            "writer": self.writer,
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def parse_line(line: str) -> Record:
    """The record on one ledger line; ``MalformedRecord`` says why it is not one."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise MalformedRecord(f"not JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise MalformedRecord("not a JSON object")
    for name, kind in (("id", str), ("kind", str), ("time", str), ("writer", str), ("body", dict)):
        if not isinstance(data.get(name), kind):
            raise MalformedRecord(f"field {name!r} missing or of the wrong type")
    if not isinstance(data.get("format"), int) or isinstance(data.get("format"), bool):
        raise MalformedRecord("field 'format' missing or not an integer")
    idem = data.get("idem")
    if idem is not None and not isinstance(idem, str):
        raise MalformedRecord("field 'idem' is not a string")
    parse_time(data["time"])
    record = Record(
        kind=data["kind"],
        body=data["body"],
        writer=data["writer"],
        id=data["id"],
        time=data["time"],
        idem=idem,
        format=data["format"],
    )
    _check_body(record)
    return record


def _check_body(record: Record) -> None:
    fields = KNOWN_KINDS.get(record.kind)
    if fields is None:
        return  # a newer writer's kind: kept, not interpreted
    for name, kind in fields.items():
        value = record.body.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise MalformedRecord(f"{record.kind} record: body field {name!r} missing or of the wrong type")
