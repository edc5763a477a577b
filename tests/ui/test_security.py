"""The page's security: token -> cookie, Host allow-list, Origin on /ui, no CORS, strict CSP.

Raw HTTP through ``http.client`` (in a thread: the app serves on this test's loop), so every
header is exactly what the test says.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import re
from dataclasses import dataclass
from email.message import Message

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.ui.conftest import UI, Pages
from vmark.app.server import RunningApp


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Message
    body: bytes

    def header(self, name: str) -> str | None:
        return self.headers.get(name)


def _fetch(port: int, method: str, path: str, headers: dict[str, str]) -> Reply:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in {"Host": f"127.0.0.1:{port}", **headers}.items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        # A switched protocol (101) has no HTTP body to read: the socket is a WebSocket now.
        return Reply(response.status, response.headers, b"" if response.status == 101 else response.read())
    finally:
        conn.close()


async def fetch(ui: UI, path: str, method: str = "GET", **headers: str) -> Reply:
    return await asyncio.to_thread(_fetch, ui.port, method, path, {k.replace("_", "-"): v for k, v in headers.items()})


def cookie(ui: UI) -> str:
    return f"{ui.cookie_name}={ui.token}"


async def asset_path(ui: UI) -> str:
    page = await fetch(ui, "/", Cookie=cookie(ui))
    match = re.search(rb'src="(/assets/[^"]+\.js)"', page.body)
    assert match, page.body
    return match.group(1).decode()


# --- the token and the cookie ---------------------------------------------------------------------
async def test_the_token_becomes_an_httponly_strict_cookie_and_leaves_the_address(ui: UI) -> None:
    reply = await fetch(ui, f"/?token={ui.token}&window=doc-1")
    assert reply.status == 303
    assert reply.header("location") == "/?window=doc-1"
    assert reply.header("set-cookie") == (
        f"{ui.cookie_name}={ui.token}; HttpOnly; Path=/; SameSite=strict"
    )
    plain = await fetch(ui, f"/?token={ui.token}")
    assert (plain.status, plain.header("location")) == (303, "/")


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/", {}),
        ("/?token=" + "0" * 64, {}),
        ("/?window=main", {}),
        ("/", {"Cookie": "vmark_ui_1=" + "0" * 64}),
    ],
    ids=["no-token", "wrong-token", "no-token-with-window", "wrong-cookie"],
)
async def test_no_token_no_page(ui: UI, path: str, headers: dict[str, str]) -> None:
    reply = await fetch(ui, path, **headers)
    assert reply.status == 403
    assert reply.header("set-cookie") is None
    assert b"<script" not in reply.body


async def test_the_cookie_opens_the_page_with_a_strict_csp(ui: UI) -> None:
    reply = await fetch(ui, "/", Cookie=cookie(ui))
    assert reply.status == 200
    assert reply.header("cache-control") == "no-store"
    nonce = re.search(rb'<meta name="vmark-style-nonce" content="([A-Za-z0-9_-]+)">', reply.body)
    assert nonce, reply.body[:300]
    assert reply.header("content-security-policy") == (
        "default-src 'none'; script-src 'self'; "
        f"style-src 'self' 'nonce-{nonce.group(1).decode()}'; img-src 'self' data: https:; font-src 'self'; "
        "connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    assert (reply.header("x-frame-options"), reply.header("x-content-type-options")) == ("DENY", "nosniff")
    assert b"<script>" not in reply.body  # no inline script: only src="/assets/..."
    again = await fetch(ui, "/", Cookie=cookie(ui))
    assert re.search(rb'content="([A-Za-z0-9_-]+)"', again.body) != nonce  # a fresh nonce per response


async def test_assets_need_the_cookie(ui: UI) -> None:
    path = await asset_path(ui)
    assert (await fetch(ui, path)).status == 403
    served = await fetch(ui, path, Cookie=cookie(ui))
    assert served.status == 200
    assert served.header("content-type") in ("text/javascript; charset=utf-8", "application/javascript")
    assert (await fetch(ui, "/assets/../index.html", Cookie=cookie(ui))).status == 404


# --- Host, Origin, methods, CORS ----------------------------------------------------------------------
REBINDING_HOSTS = ["evil.example:{port}", "evil.example", "127.0.0.1:1", "localhost", "127.0.0.2:{port}", ""]


@pytest.mark.parametrize("path", ["/", "/health", "/?token=TOKEN"])
@pytest.mark.parametrize("host", REBINDING_HOSTS)
async def test_a_rebinding_host_is_refused(ui: UI, path: str, host: str) -> None:
    reply = await fetch(ui, path.replace("TOKEN", ui.token), Host=host.format(port=ui.port), Cookie=cookie(ui))
    assert (reply.status, reply.body) == (403, b"Host not allowed\n")
    assert reply.header("set-cookie") is None


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "[::1]", "LOCALHOST"])
async def test_loopback_names_with_our_port_are_allowed(ui: UI, name: str) -> None:
    reply = await fetch(ui, "/health", Host=f"{name}:{ui.port}")
    assert reply.status == 200 and json.loads(reply.body)["ok"] is True


async def test_foreign_origins_methods_and_cors(ui: UI) -> None:
    foreign = await fetch(ui, "/", Cookie=cookie(ui), Origin="http://evil.example")
    assert (foreign.status, foreign.body) == (403, b"cross-origin requests are refused\n")
    post = await fetch(ui, "/", "POST", Cookie=cookie(ui), Origin=ui.origin, Content_Length="0")
    assert (post.status, post.body) == (403, b"only GET and HEAD\n")
    preflight = await fetch(ui, "/", "OPTIONS", Origin="http://evil.example", Access_Control_Request_Method="GET")
    assert preflight.status == 403
    own = await fetch(ui, "/", Cookie=cookie(ui), Origin=ui.origin)
    assert own.status == 200
    for reply in (foreign, post, preflight, own):
        assert not [k for k in reply.headers if k.lower().startswith("access-control-")]


# --- the pages' WebSocket ----------------------------------------------------------------------------------
async def refused(url: str, **kwargs: object) -> int:
    with pytest.raises(InvalidStatus) as info:
        async with connect(url, **kwargs):  # type: ignore[arg-type]
            pass
    return int(info.value.response.status_code)


async def test_ui_socket_needs_our_origin_and_the_cookie(ui: UI, vmark: RunningApp) -> None:
    url = f"ws://127.0.0.1:{ui.port}/ui"
    with_cookie = {"Cookie": cookie(ui)}
    assert await refused(url, origin="http://evil.example", additional_headers=with_cookie) == 403
    assert await refused(url, origin=f"http://localhost:{ui.port}", additional_headers=with_cookie) == 403
    assert await refused(url, additional_headers=with_cookie) == 403  # no Origin at all
    assert await refused(url, origin=ui.origin) == 403  # no cookie
    async with connect(url, origin=ui.origin, additional_headers=with_cookie) as ws:  # type: ignore[arg-type]
        hello = json.loads(await ws.recv())
        assert hello["type"] == "hello" and hello["payload"]["connectionId"].startswith("conn-")
        # It speaks as the person at once: no auth frame, no app token.
        await ws.send(json.dumps({"id": "1", "type": "ui.attach", "payload": {"window": "main"}}))
        answer = json.loads(await ws.recv())
        while answer.get("type") != "response":
            answer = json.loads(await ws.recv())
        assert (answer["id"], answer["success"], answer["data"]["window"]) == ("1", True, "main")
        assert [c.role for c in vmark.app.session.pages["main"]] == ["person"]


UPGRADE = {
    "Connection": "Upgrade",
    "Upgrade": "websocket",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
}


@pytest.mark.parametrize("path", ["/ui", "/bridge"])
async def test_a_rebinding_host_cannot_open_a_socket(ui: UI, path: str) -> None:
    headers = {**UPGRADE, "Cookie": cookie(ui), "Origin": f"http://evil.example:{ui.port}"}
    rebound = await fetch(ui, path, Host=f"evil.example:{ui.port}", **headers)
    assert rebound.status == 403
    # The same upgrade with our own Host and Origin opens /ui (and /bridge still refuses any Origin).
    own = await fetch(ui, path, **{**headers, "Origin": ui.origin})
    assert own.status == (101 if path == "/ui" else 403)


async def test_bridge_still_refuses_our_own_origin(ui: UI) -> None:
    assert await refused(f"ws://127.0.0.1:{ui.port}/bridge", origin=ui.origin) == 403


# --- in the browser ---------------------------------------------------------------------------------------
async def test_the_browser_gets_the_cookie_and_a_clean_address(pages: Pages, ui: UI, vmark: RunningApp) -> None:
    context = await pages.context()
    page = await pages.open(context=context)
    assert page.url == f"{ui.origin}/?window=main"
    (jar,) = await context.cookies()
    assert (jar["name"], jar["value"], jar["httpOnly"], jar["sameSite"], jar["path"]) == (
        ui.cookie_name,
        ui.token,
        True,
        "Strict",
        "/",
    )
    assert await page.evaluate("document.cookie") == ""  # HttpOnly: no script reads it
    assert await page.inner_text("[data-testid=window-label]") == "main"
    assert await page.inner_text("[data-testid=connection]") == "connected"
    assert [c.role for c in vmark.app.session.pages["main"]] == ["person"]
    bare = await (await pages.context()).new_page()
    pages.opened.append(bare)
    response = await bare.goto(f"{ui.origin}/")
    assert response is not None and response.status == 403
