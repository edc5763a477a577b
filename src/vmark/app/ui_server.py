"""The editor UI over HTTP: the built page and its assets, and the pages' WebSocket ``/ui``.

Security of the page (issue 3, item 6):

- a 256-bit UI token per app start (``uiToken`` in bridge.json, in the URL ``vmark app`` and
  ``vmark url`` print); the first GET with it sets an HttpOnly, SameSite=Strict cookie and
  redirects to the same address without the token; the page and its assets need the cookie;
- every request (HTTP and WebSocket, ``/bridge`` included) must name us in ``Host``:
  ``127.0.0.1``, ``localhost`` or ``[::1]`` with our port (DNS rebinding gets 403);
- an ``Origin`` other than our own is refused on every request; ``/ui`` requires it to be ours
  (``/bridge`` keeps refusing any ``Origin``); no CORS headers are ever sent; only GET and HEAD;
- a strict Content-Security-Policy: scripts, styles and sockets from our own origin only (CodeMirror's
  ``<style>`` elements carry a per-response nonce); images from our origin and, unless the person
  turned ``editor.remote_images`` off, ``https:``;
- ``/files/<window>/<path>``: the images of that window's path scope, read-only (``ui_files``).
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.requests import HTTPConnection, Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from .. import __version__
from ..storage.settings import Settings
from .bridge import CLOSE_POLICY, Bridge, sender
from .connection import Connection
from .ui_files import WorkspaceFiles

log = logging.getLogger(__name__)

DIST = Path(__file__).resolve().parent.parent / "ui" / "dist"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
SAFE_METHODS = frozenset({"GET", "HEAD"})
NONCE_META = "vmark-style-nonce"


def content_security_policy(style_nonce: str | None = None, remote_images: bool = False) -> str:
    """Scripts only from our files; styles too, plus the page's ``<style>`` elements bearing its nonce.

    Images come from our origin (workspace images through ``/files/``), ``data:`` and, with the
    ``editor.remote_images`` setting on, any ``https:`` address (never plain ``http:``)."""
    styles = "style-src 'self'" + (f" 'nonce-{style_nonce}'" if style_nonce else "")
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            styles,
            "img-src 'self' data:" + (" https:" if remote_images else ""),
            "font-src 'self'",
            "connect-src 'self'",
            "frame-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ]
    )


#: the diagram frame: our scripts only, inline styles for Mermaid's SVG, framed by our page only
FRAME_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'self'",
    ]
)

SECURITY_HEADERS = [
    (b"content-security-policy", content_security_policy().encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def allowed_hosts(port: int) -> frozenset[str]:
    return frozenset(f"{name}:{port}" for name in LOOPBACK_NAMES)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


class Guard:
    """ASGI middleware in front of everything: ``Host`` allow-list, foreign ``Origin``, methods, headers."""

    def __init__(self, inner: ASGIApp, port: int) -> None:
        self.inner = inner
        self.hosts = allowed_hosts(port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.inner(scope, receive, send)
            return
        host = (_header(scope, b"host") or "").lower()
        origin = _header(scope, b"origin")
        refusal = None
        if host not in self.hosts:
            refusal = "Host not allowed"
        elif scope["type"] == "http" and origin is not None and origin != f"http://{host}":
            refusal = "cross-origin requests are refused"
        elif scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            refusal = "only GET and HEAD"
        if refusal is not None:
            await _refuse(scope, send, refusal)
            return
        await self.inner(scope, receive, _with_headers(send) if scope["type"] == "http" else send)


async def _refuse(scope: Scope, send: Send, reason: str) -> None:
    if scope["type"] == "websocket":
        # Closing before the handshake is accepted answers the upgrade with HTTP 403.
        await send({"type": "websocket.close", "code": CLOSE_POLICY, "reason": reason})
        return
    body = f"{reason}\n".encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 403, "headers": headers + SECURITY_HEADERS})
    await send({"type": "http.response.body", "body": body})


def _with_headers(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [(k, v) for k, v in message.get("headers", []) if not k.startswith(b"access-control-")]
            present = {k for k, _ in headers}
            message["headers"] = headers + [(k, v) for k, v in SECURITY_HEADERS if k not in present]
        await send(message)

    return wrapped


class UIServer:
    """The routes of the UI: ``/`` (the page), ``/assets/*`` and the WebSocket ``/ui``."""

    def __init__(self, bridge: Bridge, settings: Settings, token: str, port: int, dist: Path = DIST) -> None:
        self.bridge = bridge
        self.settings = settings
        self.token = token
        self.dist = dist
        # Cookies do not keep ports apart: two apps on one machine must not overwrite each other's.
        self.cookie = f"vmark_ui_{port}"
        self._static = StaticFiles(directory=dist / "assets", check_dir=False)
        session = bridge.session
        self.files = WorkspaceFiles(
            lambda label: session.scope(session.windows[label]) if label in session.windows else None, self.admitted
        )

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/", self.index, methods=["GET", "HEAD"]),
            Mount("/assets", app=self.assets),
            Route("/files/{window}/{path:path}", self.files.handle, methods=["GET", "HEAD"]),
            Route("/mermaid-frame", self.mermaid_frame, methods=["GET", "HEAD"]),
            WebSocketRoute("/ui", self.page_socket),
        ]

    def admitted(self, conn: HTTPConnection) -> bool:
        value = conn.cookies.get(self.cookie)
        return value is not None and hmac.compare_digest(value.encode(), self.token.encode())

    async def index(self, request: Request) -> Response:
        token = request.query_params.get("token")
        if token is not None:
            if not hmac.compare_digest(token.encode(), self.token.encode()):
                return _forbidden("wrong UI token")
            rest = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "token"])
            response: Response = RedirectResponse("/" + (f"?{rest}" if rest else ""), status_code=303)
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="strict", path="/")
            response.headers["cache-control"] = "no-store"
            return response
        if not self.admitted(request):
            return _forbidden("open the address printed by `vmark app` or `vmark url`")
        page = self.dist / "index.html"
        if not page.is_file():
            return PlainTextResponse("the UI is not built: run `make setup`\n", status_code=503)
        # CodeMirror styles itself with <style> elements: they carry this response's nonce.
        nonce = secrets.token_urlsafe(18)
        html = page.read_text("utf-8").replace("<head>", f'<head>\n<meta name="{NONCE_META}" content="{nonce}">', 1)
        remote = self.settings.get("editor.remote_images") is True
        headers = {"cache-control": "no-store", "content-security-policy": content_security_policy(nonce, remote)}
        return HTMLResponse(html, headers=headers)

    async def mermaid_frame(self, request: Request) -> Response:
        """The frame that draws Mermaid diagrams for the page (a frame of this page only): Mermaid styles the
        SVG it measures with inline styles, which the page's own policy refuses; scripts stay ours only."""
        if not self.admitted(request):
            return _forbidden("no UI cookie")
        page = self.dist / "mermaid.html"
        if not page.is_file():
            return PlainTextResponse("the UI is not built: run `make setup`\n", status_code=503)
        headers = {
            "cache-control": "no-store",
            "content-security-policy": FRAME_POLICY,
            "x-frame-options": "SAMEORIGIN",
        }
        return HTMLResponse(page.read_text("utf-8"), headers=headers)

    async def assets(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.admitted(HTTPConnection(scope)):
            await _forbidden("no UI cookie")(scope, receive, send)
            return
        await self._static(scope, receive, send)

    async def page_socket(self, ws: WebSocket) -> None:
        """A page's socket: our own ``Origin`` and the cookie, then it speaks as the person."""
        host = ws.headers.get("host", "").lower()
        if ws.headers.get("origin") != f"http://{host}":
            await ws.close(code=CLOSE_POLICY, reason="Origin must be this app's")
            return
        if not self.admitted(ws):
            await ws.close(code=CLOSE_POLICY, reason="no UI cookie")
            return
        await self.bridge.accept(ws, _hello)


async def _hello(ws: WebSocket) -> Connection:
    conn = Connection(role="person", principal=None, send=sender(ws))
    await conn.send({"type": "hello", "payload": {"connectionId": conn.id, "version": __version__}})
    return conn


def _forbidden(reason: str) -> PlainTextResponse:
    return PlainTextResponse(f"{reason}\n", status_code=403)
