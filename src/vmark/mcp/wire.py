"""One line of newline-delimited JSON-RPC, read the way any client may write it, and one line written back.

The SDK's own stdio reader parses with pydantic's JSON parser, which refuses a lone surrogate escape
(``"\\ud800"``, exactly what JavaScript's ``JSON.stringify`` writes for one) and nesting past its depth
limit, and then answers nothing: the client waits for its own timeout. Here every line gets an answer:

- not UTF-8, not JSON (a cut-off line, plain text, ``NaN``): ``-32700 Parse error``, id null;
- JSON that is not a JSON-RPC 2.0 message (a number, a batch array, a request without a method, ...):
  ``-32600 Invalid Request``, with the request's id when it has a usable one, else null;
- anything else goes on to the server as a message. Python's ``json`` decodes a lone surrogate escape
  to a lone surrogate, so the tools see it (``INVALID_TEXT`` in a text, an argument error elsewhere);
  a line nested deeper than :data:`MAX_MESSAGE_DEPTH` is cut there first (what was cut becomes ``[]``,
  still deeper than any argument may nest, so the tool answers a plain argument error).

A blank line is not a message and gets no answer (nor does a well-formed notification: JSON-RPC answers
requests only).
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from ..protocol.limits import MAX_MESSAGE_DEPTH

PARSE_ERROR = -32700
INVALID_REQUEST = -32600

#: the tokens that matter for nesting: a whole string (escapes included), or a bracket
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


class LineError(Exception):
    """The answer to a line that is no message: a JSON-RPC error for ``request_id``."""

    def __init__(self, code: int, message: str, request_id: str | int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id

    def response(self) -> types.JSONRPCError:
        return types.JSONRPCError(
            jsonrpc="2.0",
            id=self.request_id,  # null is what JSON-RPC prescribes when the id is unknown
            error=types.ErrorData(code=self.code, message=self.message),
        )


def read_line(line: bytes) -> SessionMessage | None:
    """The message on ``line`` (None for a blank line), else :class:`LineError`."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LineError(PARSE_ERROR, f"Parse error: the line is not UTF-8 (byte {exc.start})") from None
    if not text.strip():
        return None
    value = _parse(text)
    return SessionMessage(_message(value))


def _parse(text: str) -> Any:
    try:
        return _loads(text)
    except RecursionError:
        pass
    try:
        return _loads(_cut(text, MAX_MESSAGE_DEPTH))
    except RecursionError:  # pragma: no cover - a cut line nests MAX_MESSAGE_DEPTH + 1 levels at most
        raise LineError(PARSE_ERROR, "Parse error: nested too deeply") from None


def _loads(text: str) -> Any:
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise LineError(PARSE_ERROR, f"Parse error: {exc.msg} at column {exc.colno}") from None
    except _NotJson as exc:
        raise LineError(PARSE_ERROR, f"Parse error: {exc} is not JSON") from None


class _NotJson(ValueError):
    pass


def _no_constant(name: str) -> Any:
    raise _NotJson(name)


def _cut(text: str, limit: int) -> str:
    """``text`` with every array or object that opens deeper than ``limit`` replaced by ``[]``."""
    out: list[str] = []
    depth, kept, cut_at = 0, 0, -1
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth == limit + 1:
                cut_at = match.start()
        elif token in "]}":
            if depth == limit + 1 and cut_at >= 0:
                out += (text[kept:cut_at], "[]")
                kept, cut_at = match.end(), -1
            depth -= 1
    if cut_at >= 0:  # never closed: the line is cut off, and stays so (a parse error)
        out += (text[kept:cut_at], "[")
        kept = len(text)
    out.append(text[kept:])
    return "".join(out)


def _message(value: Any) -> types.JSONRPCMessage:
    if isinstance(value, list):
        raise LineError(INVALID_REQUEST, "Invalid Request: batches are not supported; send one message per line")
    if not isinstance(value, dict):
        raise LineError(INVALID_REQUEST, "Invalid Request: a JSON-RPC message is an object")
    request_id = _usable_id(value.get("id"))
    if value.get("jsonrpc") != "2.0":
        raise LineError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', request_id)
    if "method" in value and "id" in value and request_id is None:  # not a notification: a request with a bad id
        raise LineError(INVALID_REQUEST, "Invalid Request: an id is a string or an integer")
    try:
        message: types.JSONRPCMessage = types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        raise LineError(
            INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
            " (a request has a string or integer id, a string method and object params)",
            request_id,
        ) from None
    return message


def _usable_id(value: Any) -> str | int | None:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def dump(message: types.JSONRPCMessage) -> bytes:
    """One line of UTF-8 JSON. A lone surrogate (a tool may echo one back) travels as its ``\\uXXXX`` escape."""
    try:
        text = message.model_dump_json(by_alias=True, exclude_unset=True)
    except PydanticSerializationError:
        data = message.model_dump(by_alias=True, exclude_unset=True, mode="json")
        text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.encode("utf-8") + b"\n"
