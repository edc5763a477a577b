"""The one table of error codes, and the two error shapes of the reference.

A *domain* error travels as a JSON envelope ``{"error": CODE, "message": ..., **extra}``;
an *argument* error (or one of the string-shaped codes) travels as a plain string.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any


class ErrorShape(Enum):
    ENVELOPE = "envelope"
    STRING = "string"


#: Every code the surface can answer, with its shape and a default message.
ERROR_CODES: dict[str, tuple[ErrorShape, str]] = {
    "STALE": (ErrorShape.ENVELOPE, "Document has changed since the last read"),
    "INVALID_PATCH": (ErrorShape.ENVELOPE, "The patches array is malformed"),
    "INVALID_TAB": (ErrorShape.ENVELOPE, "The tab could not be resolved"),
    "INVALID_PATH": (ErrorShape.ENVELOPE, "The path cannot be read or lies outside the permitted scope"),
    "APPROVAL_REQUIRED": (ErrorShape.ENVELOPE, "The user has to approve this first"),
    "BUSY": (ErrorShape.ENVELOPE, "Busy; nothing was changed, retry shortly"),
    "JOURNAL_BUSY": (ErrorShape.ENVELOPE, "Another write to this document is being recorded; retry shortly"),
    "WRITE_BUSY": (ErrorShape.STRING, "WRITE_BUSY: waited 3 s behind another write; not executed, retry"),
    "TIMEOUT": (ErrorShape.STRING, "TIMEOUT: the call did not finish in time"),
    "STALE_PARENT": (
        ErrorShape.ENVELOPE,
        "Another window wrote this document after this tab's last write; read again and retry",
    ),
    "JOURNAL_DEGRADED": (
        ErrorShape.ENVELOPE,
        "An earlier journal entry for this document is still waiting to be saved; retry in a few seconds",
    ),
    "JOURNAL_UNAVAILABLE": (ErrorShape.ENVELOPE, "The agent edit journal cannot record anything"),
    "INVALID_TEXT": (ErrorShape.ENVELOPE, "content contains a lone UTF-16 surrogate"),
    "REVIEW_BACKLOG_FULL": (ErrorShape.ENVELOPE, "The document has too many unreviewed AI changes"),
    "ABORTED": (ErrorShape.ENVELOPE, "The user changed the document while the write was recorded"),
    "NOT_WORKFLOW": (ErrorShape.ENVELOPE, "The tab is not a YAML workflow"),
    "READ_ONLY": (ErrorShape.ENVELOPE, "The document is read-only"),
    "NO_EDITOR": (ErrorShape.ENVELOPE, "The focused tab has no active editor"),
    "INVALID_ADDRESSES": (ErrorShape.ENVELOPE, "addresses names comments that this edit cannot answer"),
    "STALE_COMMENT": (ErrorShape.ENVELOPE, "The thread changed or was deleted since it was listed; list again"),
    "INVALID_COMMENT": (ErrorShape.ENVELOPE, "The comment id is malformed or not a comment of this document"),
    "COMMENT_NOT_ALLOWED": (ErrorShape.ENVELOPE, "The thread is resolved; only the user can reopen it"),
    "COMMENT_LIMIT": (ErrorShape.ENVELOPE, "The thread has too many replies, the text is too long, or it is full"),
    "INTERNAL": (ErrorShape.ENVELOPE, "Unexpected handler error"),
}


class VMarkError(Exception):
    """Base of every error the surface answers with."""

    def wire(self) -> str:
        """The ``error`` field of a failed bridge response."""
        return str(self)


class ArgumentError(VMarkError):
    """A missing or mistyped argument, an unknown tool or action: a plain string."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def wire(self) -> str:
        return self.message


class DomainError(VMarkError):
    """A domain condition with a code from :data:`ERROR_CODES`."""

    def __init__(self, code: str, message: str | None = None, **extra: Any) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}")
        shape, default = ERROR_CODES[code]
        self.code = code
        self.shape = shape
        self.message = message or default
        self.extra = extra
        super().__init__(f"{code}: {self.message}")

    def envelope(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.extra}

    def wire(self) -> str:
        if self.shape is ErrorShape.STRING:
            return self.message if self.message.startswith(self.code) else f"{self.code}: {self.message}"
        return json.dumps(self.envelope(), ensure_ascii=False)


def parse_wire_error(error: str) -> dict[str, Any] | str:
    """Inverse of :meth:`VMarkError.wire`: an envelope dict, or the plain string."""
    if error.startswith("{"):
        try:
            value = json.loads(error)
        except ValueError:
            return error
        if isinstance(value, dict) and isinstance(value.get("error"), str):
            return value
    return error
