"""What every HTTP request to ``vmark mcp --http`` passes before the MCP transport sees it.

In this order, each refusal a JSON-RPC error body (id null) with its HTTP status, before any tool runs:

A refusal after the body was read (5, 6) carries the request's id; one before it, ``id: null`` (the body of a
request that may not be made is never read). An unsupported version's carries ``data: {supported, requested}``
(an ``UnsupportedProtocolVersionError``).

1. the path is ``/mcp`` (else 404);
2. ``Host`` is a loopback name with our port (else 421: a DNS-rebinding page names its own host);
3. ``Origin``, when a browser sends one, is a loopback origin with our port (else 403);
4. a principal's client token as ``Authorization: Bearer TOKEN`` or ``?token=TOKEN`` (else 401, with
   ``WWW-Authenticate``); the request then carries that principal as its authenticated user, which is
   what ties a session to the token that opened it (the SDK answers 404 to a session used with another);
5. a POST body is read by the same rules as a stdio line (:mod:`vmark.mcp.wire`): not JSON is
   ``-32700``, not a JSON-RPC message ``-32600`` (both 400), too deep is cut; the message goes on;
6. an ``MCP-Protocol-Version`` header names a version we serve (else 400).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from http import HTTPStatus
from urllib.parse import parse_qs

import mcp_types as types
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...protocol.limits import MAX_FRAME_BYTES
from ..http_endpoint import CHALLENGE, MCP_PATH
from ..wire import PARSE_ERROR, LineError, dump, read_line

#: every version the SDK serves: the 2026-07-28 per-request era and the handshake era before it
PROTOCOL_VERSIONS = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
#: a JSON-RPC "server error" code for refusals that are no message error (the SDK's own choice too)
REFUSED = -32000

#: a client token to the principal it belongs to, or None
Authenticate = Callable[[str], str | None]


def loopback_hosts(port: int) -> list[str]:
    return [f"{name}:{port}" for name in LOOPBACK_NAMES]


def loopback_origins(port: int) -> list[str]:
    return [f"http://{host}" for host in loopback_hosts(port)]


class Refusal(Exception):
    def __init__(
        self,
        status: HTTPStatus,
        message: str,
        code: int = REFUSED,
        headers: dict[str, str] | None = None,
        request_id: str | int | None = None,
        data: dict[str, object] | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers or {}
        self.request_id = request_id
        self.data = data

    async def send(self, send: Send) -> None:
        error: dict[str, object] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        body = json.dumps({"jsonrpc": "2.0", "id": self.request_id, "error": error})
        headers = [(b"content-type", b"application/json")]
        headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in self.headers.items()]
        await send({"type": "http.response.start", "status": int(self.status), "headers": headers})
        await send({"type": "http.response.body", "body": body.encode("utf-8")})


class Gate:
    """An ASGI wrapper: ``app`` gets only requests that passed, as the principal of their token."""

    def __init__(self, app: ASGIApp, port: int, authenticate: Authenticate) -> None:
        self.app = app
        self.port = port
        self.authenticate = authenticate
        self._hosts = set(loopback_hosts(port))
        self._origins = set(loopback_origins(port))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id: str | int | None = None
        try:
            self._check_place(scope)
            self._check_token(scope)
            if scope["method"] == "POST" and _is_json(scope):  # else the transport answers 415
                receive, request_id = await _checked_body(receive)
            self._check_version(scope)
        except Refusal as refusal:
            if refusal.request_id is None:
                refusal.request_id = request_id
            await refusal.send(send)
            return
        await self.app(scope, receive, send)

    def _check_place(self, scope: Scope) -> None:
        """Where the request goes and who may send it, before its body is read."""
        if scope["path"] != MCP_PATH:
            raise Refusal(HTTPStatus.NOT_FOUND, f"Not Found: the MCP endpoint is {MCP_PATH}")
        headers = _headers(scope)
        if headers.get("host") not in self._hosts:
            hosts = ", ".join(sorted(self._hosts))
            raise Refusal(HTTPStatus.MISDIRECTED_REQUEST, f"Misdirected Request: the Host must be one of {hosts}")
        origin = headers.get("origin")
        if origin is not None and origin not in self._origins:
            raise Refusal(HTTPStatus.FORBIDDEN, "Forbidden: requests from web pages of other origins are refused")

    def _check_token(self, scope: Scope) -> None:
        """A principal's token (before the body is read: nobody else makes us read one)."""
        headers = _headers(scope)
        token = _token(scope, headers)
        if token is None:
            raise Refusal(
                HTTPStatus.UNAUTHORIZED,
                "Unauthorized: send a client token (`vmark principals add NAME`) as `Authorization: Bearer TOKEN`"
                " or as ?token=TOKEN in the URL",
                headers={"WWW-Authenticate": CHALLENGE},
            )
        principal = self.authenticate(token)
        if principal is None:
            raise Refusal(
                HTTPStatus.UNAUTHORIZED,
                "Unauthorized: no principal has this token (see `vmark principals list`)",
                headers={"WWW-Authenticate": f'{CHALLENGE}, error="invalid_token"'},
            )
        scope["user"] = AuthenticatedUser(AccessToken(token=token, client_id=principal, scopes=[]))

    def _check_version(self, scope: Scope) -> None:
        version = _headers(scope).get(MCP_PROTOCOL_VERSION_HEADER.lower())
        if version is not None and version not in PROTOCOL_VERSIONS:
            raise Refusal(
                HTTPStatus.BAD_REQUEST,
                f"Bad Request: unsupported MCP-Protocol-Version {version!r}; supported: {', '.join(PROTOCOL_VERSIONS)}",
                UNSUPPORTED_PROTOCOL_VERSION,
                # the per-request era's versions (server/discover's): a handshake-era client negotiates by initialize
                data={"supported": list(MODERN_PROTOCOL_VERSIONS), "requested": version},
            )


def principal_token(scope: Scope) -> tuple[str, str]:
    """``(principal, token)`` of a request the gate let through."""
    user = scope["user"]
    assert isinstance(user, AuthenticatedUser)
    return user.access_token.client_id, user.access_token.token


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers; of a repeated one the first (a second ``Host`` cannot widen anything)."""
    headers: dict[str, str] = {}
    for key, value in scope["headers"]:
        headers.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
    return headers


def _is_json(scope: Scope) -> bool:
    return _headers(scope).get("content-type", "").lower().startswith("application/json")


def _token(scope: Scope, headers: dict[str, str]) -> str | None:
    authorization = headers.get("authorization")
    if authorization is not None:
        scheme, _, token = authorization.partition(" ")
        return token.strip() or None if scheme.lower() == "bearer" else None
    tokens = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
    return tokens[0] if tokens else None


async def _checked_body(receive: Receive) -> tuple[Receive, str | int | None]:
    """The body read whole, checked as one line of JSON-RPC; a ``receive`` that hands the message on, and the
    request's id (None for a notification or a response)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return _replay(b"", receive), None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_FRAME_BYTES:
            raise Refusal(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"Payload Too Large: at most {MAX_FRAME_BYTES} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    try:
        parsed = read_line(body)
    except LineError as exc:
        raise Refusal(HTTPStatus.BAD_REQUEST, exc.message, exc.code, request_id=exc.request_id) from None
    if parsed is None:
        raise Refusal(HTTPStatus.BAD_REQUEST, "Parse error: the body is empty", PARSE_ERROR)
    request_id = parsed.message.id if isinstance(parsed.message, types.JSONRPCRequest) else None
    return _replay(dump(parsed.message).rstrip(b"\n"), receive), request_id


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # after the body: the disconnect, when it comes

    return replayed

