"""The one table of error codes, and the two error shapes of the reference.

A *domain* error travels as a JSON envelope ``{"error": CODE, "message": ..., **extra}``;
an *argument* error (or one of the string-shaped codes) travels as a plain string.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

from .limits import TAB_LIMIT


class ErrorShape(Enum):
    ENVELOPE = "envelope"
    STRING = "string"
    #: the browser tools: ``TOKEN: message`` as text, ``{error, message, data}`` as structuredContent
    TOKEN = "token"


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
    # --- document.edit (beyond the reference): ``index`` names the edit, ``count`` its occurrences ---
    "EDIT_NOT_FOUND": (ErrorShape.ENVELOPE, "An edit's old text does not occur in the document; nothing was changed"),
    "EDIT_AMBIGUOUS": (
        ErrorShape.ENVELOPE,
        "An edit's old text occurs more than once in the document; nothing was changed",
    ),
    # --- session.changes (beyond the reference): ``oldest_cursor`` is the oldest cursor still held ---
    "CURSOR_EXPIRED": (
        ErrorShape.ENVELOPE,
        "The events after this cursor are no longer kept; call again with oldest_cursor (or without since)",
    ),
    # --- the person's export (``ui.export``, ``vmark export``): ``reason`` says what failed ---
    "EXPORT_FAILED": (ErrorShape.ENVELOPE, "The export could not be made; nothing was written"),
    "INTERNAL": (ErrorShape.ENVELOPE, "Unexpected handler error"),
    # --- browser and browser_read (always token-shaped, see BrowserError) ---
    "BROWSER_DISABLED": (ErrorShape.TOKEN, "The embedded browser is turned off in VMark's settings"),
    "TAB_LIMIT": (
        ErrorShape.TOKEN,
        f"At most {TAB_LIMIT} AI-owned browser tabs may be open; close one you are done with",
    ),
    "NO_BROWSER_TAB": (ErrorShape.TOKEN, "No such browser tab (or none is open): open one first"),
    "TAB_NOT_AI_OWNED": (ErrorShape.TOKEN, "The tab is the user's; the AI cannot do this on it"),
    "TAB_TEARDOWN_FAILED": (
        ErrorShape.TOKEN,
        "The tab entry was removed but closing its view could not be confirmed; do not retry, tell the user",
    ),
    "NOT_GRANTED": (ErrorShape.TOKEN, "The user has not allowed this on this site"),
    "APPROVAL_PENDING": (ErrorShape.TOKEN, "Waiting for the user's decision in VMark; retry the same call later"),
    "STALE_COMMAND": (ErrorShape.TOKEN, "The ref belongs to an older view of the page; read it again"),
    "ACT_REJECTED": (ErrorShape.TOKEN, "The action was not performed: the target did not pass verification"),
    "TARGET_REFUSED": (ErrorShape.TOKEN, "The URL is not a public http(s) address"),
    "NAVIGATION_FAILED": (ErrorShape.TOKEN, "The navigation failed"),
    "NAVIGATION_SUPERSEDED": (ErrorShape.TOKEN, "A newer navigation of the tab replaced this one"),
    "EVAL_TIMEOUT": (
        ErrorShape.TOKEN,
        "The script did not answer in time; it may still have run: read the page before acting again",
    ),
    "EVAL_FAILED": (ErrorShape.TOKEN, "The script threw, or returned a value JSON cannot encode"),
    "SESSION_NOT_FOUND": (ErrorShape.TOKEN, "No session is saved under this handle"),
    "SESSION_ORIGIN_MISMATCH": (
        ErrorShape.TOKEN,
        "A saved session applies only to a page of the origin it was saved from",
    ),
    "ATTACHMENT_ONCE_INSUFFICIENT": (
        ErrorShape.TOKEN,
        "An 'Allow once' attachment covers one read; ask the user for 'Allow until navigation'",
    ),
    "RUN_ACTIVE": (ErrorShape.TOKEN, "A workflow is already running on this tab: wait for it or cancel it"),
    "RUN_NOT_FOUND": (ErrorShape.TOKEN, "No such workflow run (unknown, or started by another agent)"),
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


class BrowserError(DomainError):
    """An error of the browser tools: ``TOKEN: message`` with the token and ``data`` in structuredContent.

    Any code may travel this way (a navigation ``TIMEOUT`` carries its ticket as data)."""

    def __init__(self, code: str, message: str | None = None, **data: Any) -> None:
        super().__init__(code, message, **data)
        self.shape = ErrorShape.TOKEN

    def envelope(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, "data": self.extra}

    def wire(self) -> str:
        return json.dumps({**self.envelope(), "shape": ErrorShape.TOKEN.value}, ensure_ascii=False)


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
