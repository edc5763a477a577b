"""Bridge security: every refusal of DESIGN.md section 4, one test each, on a raw WebSocket.

Each refused socket must be closed (with the bridge's close code where one is sent) and
must not have been served: no response frame arrives, and a request smuggled in behind
the refused frame changes nothing in the app.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

import vmark.app.bridge as bridge_module
from vmark import __version__
from vmark.app.bridge import CLOSE_POLICY, CLOSE_TOO_BIG
from vmark.app.server import RunningApp
from vmark.protocol import limits
from vmark.storage.datadir import bridge_path

#: A request smuggled in behind a refused frame: if it were served, ``main`` would get a tab.
SMUGGLED = {"id": "smuggled", "type": "vmark.workspace.new", "payload": {"windowLabel": "main"}}
WAIT_SECONDS = 5.0


# --- a raw client -----------------------------------------------------------------------------
def url(app: RunningApp) -> str:
    return f"ws://127.0.0.1:{app.port}/bridge"


def dial(app: RunningApp, **kwargs: Any) -> Any:
    """``connect`` to the bridge with no compression, proxy or size limit of our own."""
    return connect(url(app), open_timeout=WAIT_SECONDS, max_size=None, compression=None, proxy=None, **kwargs)


def frame(kind: str, payload: Any = None, frame_id: str = "1", **extra: Any) -> str:
    body: dict[str, Any] = {"id": frame_id, "type": kind, **extra}
    if payload is not None:
        body["payload"] = payload
    return json.dumps(body, ensure_ascii=False)


def auth(token: Any, **payload: Any) -> str:
    return frame("auth", {"token": token, **payload}, frame_id="auth")


def padded_auth(token: str, size: int, pad_char: str) -> str:
    """A valid auth frame of exactly ``size`` UTF-8 bytes, padded with ``pad_char`` (1 or 2 bytes)."""
    missing = size - len(auth(token, pad="").encode("utf-8"))
    width = len(pad_char.encode("utf-8"))
    text = auth(token, pad=pad_char * (missing // width) + "x" * (missing % width))
    assert len(text.encode("utf-8")) == size
    return text


async def drain(ws: ClientConnection) -> list[dict[str, Any]]:
    """Every frame until the server closes the socket (which must happen within the bound)."""
    frames: list[dict[str, Any]] = []
    with suppress(ConnectionClosed):
        while True:
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), WAIT_SECONDS)))
    return frames


async def send_quietly(ws: ClientConnection, *texts: str) -> None:
    """Send frames; the server may already have closed the socket, which is fine here."""
    with suppress(ConnectionClosed):
        for text in texts:
            await ws.send(text)


async def request(ws: ClientConnection, kind: str, payload: dict[str, Any], frame_id: str = "r") -> dict[str, Any]:
    """Send a request and return its response (events in between are skipped)."""
    await ws.send(frame(kind, payload, frame_id=frame_id))
    while True:
        reply = json.loads(await asyncio.wait_for(ws.recv(), WAIT_SECONDS))
        if reply.get("type") == "response" and reply.get("id") == frame_id:
            return dict(reply)


async def authenticated(
    app: RunningApp, stack: AsyncExitStack, **payload: Any
) -> tuple[ClientConnection, dict[str, Any]]:
    ws = await stack.enter_async_context(dial(app))
    await ws.send(auth(app.token, **payload))
    reply = json.loads(await asyncio.wait_for(ws.recv(), WAIT_SECONDS))
    return ws, reply


@asynccontextmanager
async def agent(app: RunningApp, **payload: Any) -> AsyncIterator[ClientConnection]:
    async with AsyncExitStack() as stack:
        ws, reply = await authenticated(app, stack, **payload)
        assert reply["type"] == "auth_result" and reply["payload"]["ok"] is True, reply
        yield ws


async def settle(condition: Callable[[], bool]) -> None:
    """Wait (bounded) for the server side to catch up with what the client already saw."""
    async with asyncio.timeout(WAIT_SECONDS):
        while not condition():
            await asyncio.sleep(0.01)


def nothing_served(app: RunningApp) -> None:
    assert [tab.id for _, tab in app.app.session.tabs()] == []


async def assert_refused(app: RunningApp, ws: ClientConnection, code: int, answers: list[dict[str, Any]]) -> None:
    """Closed with ``code``; exactly ``answers`` arrived first; nothing was served; no socket leaked."""
    assert await drain(ws) == answers
    assert ws.close_code == code
    await settle(lambda: app.bridge.sockets == 0)
    nothing_served(app)


AUTH_FAILED = {"id": "auth", "type": "auth_result", "payload": {"ok": False}}


# --- the first frame must be auth ----------------------------------------------------------------
@pytest.mark.parametrize(
    "first",
    [
        json.dumps(SMUGGLED),
        frame("ui.state", {}),
        frame("approvals.list", {}),
        "{not json",
        "[1, 2, 3]",
        '"auth"',
        frame("auth"),
        frame("auth", "not an object"),
        frame("AUTH", {"token": "x"}),
    ],
    ids=[
        "tool-request",
        "person-request",
        "approvals",
        "malformed",
        "array",
        "string",
        "no-payload",
        "bad-payload",
        "case",
    ],
)
async def test_first_frame_must_be_auth(vmark: RunningApp, first: str) -> None:
    async with dial(vmark) as ws:
        await send_quietly(ws, first, json.dumps(SMUGGLED), auth(vmark.token))
        await assert_refused(vmark, ws, CLOSE_POLICY, [])
        assert ws.close_reason == "auth must come first"


async def test_first_frame_with_the_right_token_but_another_type_is_refused(vmark: RunningApp) -> None:
    async with dial(vmark) as ws:
        await send_quietly(ws, frame("vmark.workspace.new", {"token": vmark.token, "windowLabel": "main"}))
        await assert_refused(vmark, ws, CLOSE_POLICY, [])


# --- credentials -----------------------------------------------------------------------------------
WRONG_TOKENS: dict[str, Callable[[str], Any]] = {
    "zeros": lambda real: "0" * len(real),
    "empty": lambda real: "",
    "prefix": lambda real: real[:-1],
    "longer": lambda real: real + "0",
    "upper-case": lambda real: real.upper(),
    "leading-space": lambda real: f" {real}",
    "int": lambda real: 12345,
    "null": lambda real: None,
    "list": lambda real: [real],
}


@pytest.mark.parametrize("wrong", WRONG_TOKENS.values(), ids=WRONG_TOKENS.keys())
async def test_wrong_token_is_refused(vmark: RunningApp, wrong: Callable[[str], Any]) -> None:
    async with dial(vmark) as ws:
        await send_quietly(ws, auth(wrong(vmark.token)), json.dumps(SMUGGLED))
        await assert_refused(vmark, ws, CLOSE_POLICY, [AUTH_FAILED])
        assert ws.close_reason == "authentication failed"


async def test_missing_token_is_refused(vmark: RunningApp) -> None:
    async with dial(vmark) as ws:
        await send_quietly(ws, frame("auth", {"role": "agent"}, frame_id="auth"), json.dumps(SMUGGLED))
        await assert_refused(vmark, ws, CLOSE_POLICY, [AUTH_FAILED])


@pytest.mark.parametrize(
    "client_token", ["f" * 64, "", 7, {"name": "alice"}], ids=["unknown", "empty", "int", "object"]
)
async def test_right_token_with_an_unknown_client_token_is_refused(vmark: RunningApp, client_token: Any) -> None:
    vmark.app.principals.add("alice")
    async with dial(vmark) as ws:
        await send_quietly(ws, auth(vmark.token, clientToken=client_token), json.dumps(SMUGGLED))
        await assert_refused(vmark, ws, CLOSE_POLICY, [AUTH_FAILED])


async def test_a_removed_principals_client_token_is_refused(vmark: RunningApp) -> None:
    token = vmark.app.principals.add("bob")
    vmark.app.principals.remove("bob")
    async with dial(vmark) as ws:
        await send_quietly(ws, auth(vmark.token, clientToken=token), json.dumps(SMUGGLED))
        await assert_refused(vmark, ws, CLOSE_POLICY, [AUTH_FAILED])


@pytest.mark.parametrize("role", ["admin", "Person", "", None])
async def test_unknown_role_is_refused(vmark: RunningApp, role: Any) -> None:
    async with dial(vmark) as ws:
        await send_quietly(ws, auth(vmark.token, role=role), json.dumps(SMUGGLED))
        await assert_refused(vmark, ws, CLOSE_POLICY, [AUTH_FAILED])


async def test_auth_result_names_the_registered_principal(vmark: RunningApp) -> None:
    token = vmark.app.principals.add("alice")
    async with AsyncExitStack() as stack:
        _, named = await authenticated(vmark, stack, clientToken=token)
        _, anonymous = await authenticated(vmark, stack)
    for reply, principal in ((named, "alice"), (anonymous, None)):
        assert reply["type"] == "auth_result" and reply["id"] == "auth"
        payload = reply["payload"]
        assert set(payload) == {"ok", "connectionId", "principal", "version"}
        assert payload["ok"] is True and payload["principal"] == principal and payload["version"] == __version__
        assert payload["connectionId"].startswith("conn-")
    assert named["payload"]["connectionId"] != anonymous["payload"]["connectionId"]


# --- Origin ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "origin",
    ["http://127.0.0.1:{port}", "http://localhost:{port}", "https://evil.example", "null", "file://"],
)
async def test_any_origin_header_is_refused(vmark: RunningApp, origin: str) -> None:
    with pytest.raises(InvalidStatus) as refused:
        async with dial(vmark, origin=origin.format(port=vmark.port)) as ws:
            await ws.send(auth(vmark.token))  # never reached: the handshake itself is refused
    assert refused.value.response.status_code == 403
    assert vmark.bridge.sockets == 0
    nothing_served(vmark)


# --- size before auth -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("size", "pad_char"),
    [(65_537, "x"), (65_537, "\u00e9"), (1 << 20, "x")],
    ids=["65537-ascii", "65537-two-byte-utf8", "1MiB"],
)
async def test_pre_auth_frame_over_64_kib_is_refused_even_with_the_right_token(
    vmark: RunningApp, size: int, pad_char: str
) -> None:
    assert limits.PRE_AUTH_FRAME_BYTES + 1 == 65_537
    big = padded_auth(vmark.token, size, pad_char)
    async with dial(vmark) as ws:
        await send_quietly(ws, big, json.dumps(SMUGGLED))
        await assert_refused(vmark, ws, CLOSE_TOO_BIG, [])
        assert ws.close_reason == "frame too large before auth"


@pytest.mark.parametrize("pad_char", ["x", "\u00e9"], ids=["ascii", "two-byte-utf8"])
async def test_auth_frame_of_exactly_64_kib_is_accepted(vmark: RunningApp, pad_char: str) -> None:
    async with dial(vmark) as ws:
        await ws.send(padded_auth(vmark.token, 65_536, pad_char))
        reply = json.loads(await asyncio.wait_for(ws.recv(), WAIT_SECONDS))
        assert reply["payload"]["ok"] is True


async def test_after_auth_frames_over_64_kib_are_served(vmark: RunningApp) -> None:
    async with agent(vmark) as ws:
        long_path = "/" + "x" * 200_000 + ".md"
        reply = await request(ws, "vmark.workspace.open", {"filePath": long_path})
        assert reply["success"] is False and json.loads(reply["error"])["error"] == "INVALID_PATH"


# --- the auth deadline ---------------------------------------------------------------------------
def test_auth_deadline_is_ten_seconds() -> None:
    assert limits.AUTH_DEADLINE_SECONDS == 10.0
    assert bridge_module.AUTH_DEADLINE_SECONDS == 10.0


async def test_no_auth_before_the_deadline_closes_the_socket(
    vmark: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bridge_module, "AUTH_DEADLINE_SECONDS", 0.2)
    async with dial(vmark) as ws:
        await assert_refused(vmark, ws, CLOSE_POLICY, [])
        assert ws.close_reason == "no auth within 10 s"
        # Too late: the socket is gone, so a late auth cannot be served either.
        with pytest.raises(ConnectionClosed):
            await ws.send(auth(vmark.token))


async def test_auth_within_the_deadline_is_accepted(vmark: RunningApp, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bridge_module, "AUTH_DEADLINE_SECONDS", 5.0)
    async with agent(vmark) as ws:
        reply = await request(ws, "vmark.session.get_state", {})
        assert reply["success"] is True


# --- socket limit ---------------------------------------------------------------------------------
async def test_at_most_32_sockets(vmark: RunningApp) -> None:
    assert limits.MAX_SOCKETS == 32
    async with AsyncExitStack() as stack:
        sockets = []
        for _ in range(32):
            ws, reply = await authenticated(vmark, stack)
            assert reply["payload"]["ok"] is True
            sockets.append(ws)
        assert vmark.bridge.sockets == 32
        with pytest.raises(InvalidStatus) as refused:
            async with dial(vmark):
                pass
        assert refused.value.response.status_code == 403
        assert vmark.bridge.sockets == 32
        # The 32 are still served.
        assert (await request(sockets[-1], "vmark.session.get_state", {}))["success"] is True
        await sockets[0].close()
        await settle(lambda: vmark.bridge.sockets == 31)
        ws, reply = await authenticated(vmark, stack)
        assert reply["payload"]["ok"] is True
        assert (await request(ws, "vmark.session.get_state", {}))["success"] is True
    await settle(lambda: vmark.bridge.sockets == 0)


async def test_unauthenticated_sockets_count_too_and_are_released_when_refused(vmark: RunningApp) -> None:
    async with dial(vmark) as ws:
        await settle(lambda: vmark.bridge.sockets == 1)
        await send_quietly(ws, "not auth")
        await drain(ws)
    await settle(lambda: vmark.bridge.sockets == 0)


# --- what an agent may send -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kind", ["approvals.answer", "approvals.list", "ui.edit", "ui.attach", "ui.open_folder", "ui.save", "ui.reply"]
)
async def test_agent_cannot_send_person_messages(vmark: RunningApp, workspace: Path, kind: str) -> None:
    async with agent(vmark) as ws:
        tab = (await request(ws, "vmark.workspace.new", {"windowLabel": "main"}, "new"))["data"]["tabId"]
        payload = {"tabId": tab, "text": "agent pretends to type", "id": "apr-x", "allow": True}
        payload |= {"path": str(workspace), "window": "main", "requestId": "q0"}
        reply = await request(ws, kind, payload)
        assert reply == {
            "type": "response",
            "id": "r",
            "success": False,
            "error": f"{kind!r} is a person's action; agents cannot send it",
        }
        # Refused as a plain string, and the connection is still served.
        doc = await request(ws, "vmark.document.read", {"tabId": tab}, "read")
        assert doc["success"] is True and doc["data"]["content"] == ""
    main = vmark.app.session.windows["main"]
    assert main.workspaces == [] and vmark.app.session.pages == {}


async def test_agent_cannot_approve_its_own_open_workspace_request(vmark: RunningApp, workspace: Path) -> None:
    async with agent(vmark) as ws:
        first = await request(ws, "vmark.workspace.open_workspace", {"folderPath": str(workspace)}, "ow1")
        assert first["data"] == {"needsApproval": True, "folderPath": str(workspace)}
        [approval] = vmark.app.approvals.listing()
        assert approval["state"] == "pending"
        answer = await request(ws, "approvals.answer", {"id": approval["id"], "allow": True}, "answer")
        assert answer["success"] is False
        assert answer["error"] == "'approvals.answer' is a person's action; agents cannot send it"
        assert vmark.app.approvals.listing()[0]["state"] == "pending"
        again = await request(ws, "vmark.workspace.open_workspace", {"folderPath": str(workspace)}, "ow2")
        assert again["data"] == {"needsApproval": True, "folderPath": str(workspace)}
    assert vmark.app.session.windows["main"].workspaces == []


# --- bridge.json ------------------------------------------------------------------------------------
async def test_bridge_json_is_private_and_names_port_token_pid(vmark: RunningApp) -> None:
    path = bridge_path(vmark.data_dir)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text("utf-8")) == {
        "port": vmark.port,
        "token": vmark.token,
        "pid": os.getpid(),
        "uiToken": vmark.ui_token,
    }
    assert len(vmark.token) == 64 and int(vmark.token, 16) >= 0  # 256 bits, hex
    leftovers = [p.name for p in vmark.data_dir.iterdir() if p.name.startswith(".bridge.json")]
    assert leftovers == []


# --- after auth, a bad frame is answered and the connection survives --------------------------------------
@pytest.mark.parametrize(
    ("text", "error", "frame_id"),
    [
        ("{not json", "malformed frame", None),
        ("[1, 2]", "malformed frame", None),
        ('"just a string"', "malformed frame", None),
        (b"\xed\xb3\xbf", "malformed frame", None),
        (json.dumps({"id": "t", "type": 5, "payload": {}}), "frame type must be a string", "t"),
        (json.dumps({"id": "p", "type": "vmark.session.get_state", "payload": []}), "payload must be an object", "p"),
    ],
    ids=["malformed", "array", "string", "binary-not-utf8", "type-not-string", "payload-not-object"],
)
async def test_bad_frame_after_auth_gets_an_error_and_the_connection_survives(
    vmark: RunningApp, text: str | bytes, error: str, frame_id: str | None
) -> None:
    async with agent(vmark) as ws:
        await ws.send(text)
        reply = json.loads(await asyncio.wait_for(ws.recv(), WAIT_SECONDS))
        assert reply == {"type": "response", "id": frame_id, "success": False, "error": error}
        state = await request(ws, "vmark.session.get_state", {})
        assert state["success"] is True and [w["label"] for w in state["data"]["windows"]] == ["main"]
